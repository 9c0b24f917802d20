/* The OpenCL worker process: owns one OpenCL context, device copies of the current task's data
 * (kept while consecutive jobs share the task) and at most one built program waiting for its
 * run. Everything but the device steps (the loop, the task's host data, instantiation, checks,
 * replies) is worker_common.c's; stage messages let the parent move its deadline from "build"
 * to "run" at the first launch. */
#include <string.h>

#include "core/alloc.h"
#include "measure/internal.h"

typedef struct ocl_worker {
    at_meas_wk   base; /* first: the hooks get &base */
    at_ocl_ctx  *ctx;
    at_ocl_buf  *dev[AT_OP_MAX_TENSORS]; /* the task's tensors on the device */
    /* the artifact's device part */
    at_ocl_code  code;
    at_ocl_prog *cl;
    at_ocl_buf **bufs; /* by program buffer: the task's tensors, then owned temporaries */
    size_t       n_bufs, n_params;
    at_ir_kernel *built; /* the kernels built when some were left out (skip_prepare), else NULL */
} ocl_worker;

static ocl_worker *ow(at_meas_wk *w)
{
    return (ocl_worker *)w;
}

static at_status upload(at_meas_wk *w, size_t i)
{
    ocl_worker *o = ow(w);
    AT_TRY(at_ocl_buf_new(o->ctx, w->ts.bytes[i], &o->dev[i]));
    return w->ts.desc[i].is_output ? AT_OK : at_ocl_buf_write(o->ctx, o->dev[i], w->ts.host[i]);
}

static void drop_task(at_meas_wk *w)
{
    ocl_worker *o = ow(w);
    for (size_t i = 0; i < AT_OP_MAX_TENSORS; i++) {
        at_ocl_buf_free(o->dev[i]);
        o->dev[i] = NULL;
    }
}

static void drop_art(at_meas_wk *w)
{
    ocl_worker *o = ow(w);
    at_ocl_prog_free(o->cl);
    at_ocl_code_fini(&o->code);
    if (o->bufs)
        for (size_t i = o->n_params; i < o->n_bufs; i++) at_ocl_buf_free(o->bufs[i]);
    at_free(o->bufs);
    at_free(o->built);
    o->built = NULL;
    memset(&o->code, 0, sizeof o->code);
    o->cl = NULL;
    o->bufs = NULL;
    o->n_bufs = o->n_params = 0;
}

/* While tuning (no correctness check) the preparation kernels are not built: TVM tunes with
 * their outputs (packed weights) as inputs, so they are never timed, and on PoCL each kernel
 * costs a fixed ~40 ms at its first launch besides its share of the parse (issue 18, T1). The
 * buffers they would fill get a fixed pattern instead (launch). Finishing kernels, which only
 * unpack the timed result into the op's layout, are left out the same way. With
 * --check-correctness the whole program runs, so the output can be compared. */
static bool skip_prepare(const at_meas_wk *w)
{
    return !w->o->check_correctness;
}

/* The program to emit: w's own, or a copy of its header whose kernel list leaves out the
 * preparation and finishing kernels (o->built holds that list). */
static at_status program_to_build(at_meas_wk *w, at_ir_program *view, const at_ir_program **out)
{
    ocl_worker *o = ow(w);
    const at_ir_program *p = w->art.prog;
    size_t n = 0;
    for (size_t k = 0; k < p->n_kernels; k++) n += at_ir_kernel_timed(&p->kernels[k]);
    *out = p;
    if (!skip_prepare(w) || n == p->n_kernels || n == 0) return AT_OK;
    o->built = at_calloc(n, sizeof *o->built);
    if (!o->built) return AT_OOM();
    for (size_t k = 0, j = 0; k < p->n_kernels; k++)
        if (at_ir_kernel_timed(&p->kernels[k])) o->built[j++] = p->kernels[k];
    *view = *p;
    view->kernels = o->built;
    view->n_kernels = n;
    *out = view;
    return AT_OK;
}

static void codegen(at_meas_wk *w, at_meas_wk_outcome *oc)
{
    ocl_worker *o = ow(w);
    at_ir_program view;
    const at_ir_program *p = NULL;
    if (program_to_build(w, &view, &p) != AT_OK || at_ocl_emit(p, &o->code) != AT_OK)
        at_meas_wk_fail(oc, AT_MEAS_COMPILE_HOST, "OpenCL code generation: %s", at_last_error());
    else if (at_meas_ocl_check_limits(p, &o->code, at_ocl_ctx_device(o->ctx)) != AT_OK)
        at_meas_wk_fail(oc, AT_MEAS_INSTANTIATION_ERROR, "Skipped because of invalid gpu kernel: %s", at_last_error());
}

/* No pre-launch check against CL_KERNEL_WORK_GROUP_SIZE: kernels carry reqd_work_group_size,
 * and NVIDIA's driver reports 256 there yet runs 1024-item groups correctly (checked on an
 * H200). A driver that cannot run the group fails the first launch: RUNTIME_DEVICE, as TVM. */
static void compile(at_meas_wk *w, at_meas_wk_outcome *oc)
{
    ocl_worker *o = ow(w);
    char *log = NULL;
    at_status st = at_ocl_prog_build(o->ctx, &o->code, w->o->build_options, &o->cl, &log);
    if (st == AT_OK) w->kernels_built = (uint32_t)o->code.n_kernels;
    if (st == AT_EDEVICE && log)
        at_meas_wk_fail(oc, AT_MEAS_COMPILE_DEVICE, "%s\n%s", at_last_error(), log);
    else if (st != AT_OK)
        at_meas_wk_fail(oc, AT_MEAS_COMPILE_DEVICE, "%s", at_last_error());
    at_free(log);
}

static void launch(at_meas_wk *w, at_meas_wk_outcome *oc)
{
    ocl_worker *o = ow(w);
    const at_ir_program *prog = w->art.prog;
    o->n_bufs = prog->n_bufs;
    o->n_params = at_ir_program_n_params(prog);
    o->bufs = at_calloc(o->n_bufs + 1, sizeof *o->bufs);
    at_status st = o->bufs ? AT_OK : AT_OOM();
    for (size_t i = 0; i < o->n_bufs && st == AT_OK; i++) {
        const at_ir_buffer *b = prog->bufs[i];
        if (i < o->n_params)
            o->bufs[i] = o->dev[i];
        else
            st = at_ocl_buf_new(o->ctx, (size_t)b->size * at_ir_type_bytes(b->elem), &o->bufs[i]);
        /* what a left-out preparation kernel would have written: 0x3C bytes are 0.0115 as
         * float, 1.06 as half, 60 as int8 (no NaN or denormal to skew the timing) */
        const unsigned char pattern = 0x3C;
        if (st == AT_OK && i >= o->n_params && o->built) st = at_ocl_buf_fill(o->ctx, o->bufs[i], &pattern, 1);
    }
    if (st == AT_OK) st = at_ocl_prog_bind(o->cl, o->bufs, o->n_bufs);
    if (st == AT_OK) st = at_ocl_prog_first_launch(o->cl);
    if (st != AT_OK) at_meas_wk_fail(oc, at_meas_wk_err_of(st), "first launch: %s", at_last_error());
}

static at_status time_fn(void *ctx, int64_t number, double *duration_ms)
{
    return at_ocl_prog_run(ctx, number, duration_ms);
}

/* Outputs are poisoned before the run, so elements a wrong kernel never writes cannot pass as
 * leftovers of an earlier config: 0xFF bytes are NaN for floats and -1 for integers. */
static at_meas_err time_runs(at_meas_wk *w, double *costs)
{
    ocl_worker *o = ow(w);
    const at_measure_opts *opt = w->o;
    const unsigned char pattern = 0xFF;
    at_status st = AT_OK;
    for (size_t i = 0; i < w->ts.n_tensors && st == AT_OK; i++)
        if (opt->check_correctness && w->ts.desc[i].is_output) st = at_ocl_buf_fill(o->ctx, o->dev[i], &pattern, 1);
    if (st == AT_OK) st = at_meas_time_evaluator(time_fn, o->cl, opt->number, opt->repeat, opt->min_repeat_ms, costs, NULL);
    return st == AT_OK ? AT_MEAS_OK : at_meas_wk_err_of(st);
}

static at_status read_output(at_meas_wk *w, size_t i)
{
    ocl_worker *o = ow(w);
    return at_ocl_buf_read(o->ctx, o->dev[i], w->ts.host[i]);
}

static at_status open_device(at_meas_wk *w, at_ocl_device_info *info)
{
    ocl_worker *o = ow(w);
    at_status st = at_ocl_runtime_init(w->o->cache_dir);
    at_ocl_device_info *devs = NULL;
    size_t n = 0, index = 0;
    if (st == AT_OK) st = at_ocl_devices(&devs, &n);
    if (st == AT_OK) st = at_ocl_device_select(devs, n, w->o->device, &index);
    at_free(devs);
    if (st == AT_OK) st = at_ocl_ctx_new(index, &o->ctx);
    if (st == AT_OK) memcpy(info, at_ocl_ctx_device(o->ctx), sizeof *info);
    return st;
}

static void close_device(at_meas_wk *w)
{
    at_ocl_ctx_free(ow(w)->ctx);
}

static const at_meas_wk_ops ocl_ops = {
    .open = open_device,
    .close = close_device,
    .upload = upload,
    .drop_task = drop_task,
    .codegen = codegen,
    .compile = compile,
    .launch = launch,
    .drop_art = drop_art,
    .time = time_runs,
    .read_output = read_output,
};

void at_meas_worker_main(int fd, const at_meas_worker_cfg *cfg)
{
    ocl_worker w = {.base = {.fd = fd, .o = &cfg->opts, .ops = &ocl_ops}};
    at_meas_wk_main(&w.base);
}
