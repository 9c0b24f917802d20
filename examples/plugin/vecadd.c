/* An out-of-tree template plugin: the op kind "vecadd" (C[i] = A[i] + B[i] over N elements) and
 * its OpenCL template "vecadd.example" with one knob, tile_x, a 2-way split of N into work-groups
 * and work-items. Built against the installed headers only (CMakeLists.txt next to this file):
 *
 *   autotvm --plugin ./vecadd.so tune-task vecadd.example --args 4096 --tuner gridsearch --n-trial 13 \
 *       --log vecadd.log --check-correctness
 */
#include <stdio.h>
#include <string.h>

#include "templates/plugin.h"

AT_PLUGIN_DECLARE;

/* u.ext.v[0] is N; u.ext.dtype is float32 (the only type the reference adds). */
static at_status check_args(const at_args *a)
{
    if (a->u.ext.n != 1 || a->u.ext.v[0] < 1 || a->u.ext.v[0] > (1 << 26))
        return AT_FAIL(AT_EINVAL, "vecadd: N must be 1..2^26");
    if (!at_ir_type_eq(a->u.ext.dtype, AT_IR_F32)) return AT_FAIL(AT_EINVAL, "vecadd: dtype must be float32");
    return AT_OK;
}

static size_t tensors(const at_args *a, at_tensor_desc *out)
{
    int64_t n = a->u.ext.v[0];
    out[0] = (at_tensor_desc){.name = "A", .dtype = AT_IR_F32, .ndim = 1, .shape = {n}, .n_elems = n};
    out[1] = (at_tensor_desc){.name = "B", .dtype = AT_IR_F32, .ndim = 1, .shape = {n}, .n_elems = n};
    out[2] = (at_tensor_desc){.name = "C", .dtype = AT_IR_F32, .ndim = 1, .shape = {n}, .n_elems = n, .is_output = true};
    return 3;
}

/* The workload as TVM would log vecadd(N, "float32"): ["vecadd.example", N, "float32"]. */
static void write_json(const at_args *a, at_strbuf *sb)
{
    at_strbuf_printf(sb, "%lld, ", (long long)a->u.ext.v[0]);
    at_json_write_string(sb, "float32");
}

static at_status read_json(const cJSON *array, at_args *a)
{
    const cJSON *n = cJSON_GetArrayItem(array, 0), *dt = cJSON_GetArrayItem(array, 1);
    if (cJSON_GetArraySize(array) != 2 || !cJSON_IsNumber(n) || !cJSON_IsString(dt))
        return AT_FAIL(AT_EPARSE, "vecadd arguments: expected [N, \"float32\"]");
    a->u.ext.n = 1;
    a->u.ext.v[0] = (int64_t)n->valuedouble;
    return at_ir_type_parse(dt->valuestring, &a->u.ext.dtype);
}

static at_status parse_list(const char *text, at_args *a)
{
    long long n;
    char tail;
    if (sscanf(text, "%lld%c", &n, &tail) != 1) return AT_FAIL(AT_EPARSE, "vecadd arguments: expected N, got '%s'", text);
    a->u.ext.n = 1;
    a->u.ext.v[0] = n;
    a->u.ext.dtype = AT_IR_F32;
    return AT_OK;
}

static double flop(const at_args *a)
{
    return (double)a->u.ext.v[0];
}

/* C[i] = A[i] + B[i] for i in [0, N): the body both the compute and the template write. */
static const at_ir_stmt *add_at(at_ir_sched *s, const at_ir_buffer *const *t, const at_ir_expr *i)
{
    return at_ir_store(s, t[2], i, at_ir_add(s, at_ir_load(s, t[0], i, 1), at_ir_load(s, t[1], i, 1)));
}

static void params(const at_args *a, at_ir_sched *s, const at_ir_buffer **t)
{
    int64_t n = a->u.ext.v[0];
    t[0] = at_ir_param(s, "A", AT_IR_F32, n, AT_IR_INPUT);
    t[1] = at_ir_param(s, "B", AT_IR_F32, n, AT_IR_INPUT);
    t[2] = at_ir_param(s, "C", AT_IR_F32, n, AT_IR_OUTPUT);
}

static void compute(const at_args *a, at_ir_sched *s)
{
    const at_ir_buffer *t[3];
    params(a, s, t);
    const at_ir_var *i = at_ir_var_new(s, "i", AT_IR_I32);
    at_ir_add_kernel(s, "default_function_kernel", at_ir_for(s, i, a->u.ext.v[0], AT_IR_SERIAL, add_at(s, t, at_ir_v(s, i))));
}

static void reference(const at_args *a, const void *const *in, void *const *out)
{
    const float *x = in[0], *y = in[1];
    float *z = out[0];
    for (int64_t i = 0; i < a->u.ext.v[0]; i++) z[i] = x[i] + y[i];
}

static at_op_tolerance tolerance(const at_args *a)
{
    (void)a;
    return (at_op_tolerance){.atol = 0, .rtol = 0}; /* one rounding, the same on every device */
}

static const char *const tiny[] = {"16", "7", NULL};
static const char *const typical[] = {"4096", "1048576", NULL};

static const at_op_def vecadd_op = {
    .name = "vecadd",
    .check_args = check_args,
    .tensors = tensors,
    .write_json = write_json,
    .read_json = read_json,
    .parse_list = parse_list,
    .comma_form = "N",
    .flop = flop,
    .compute = compute,
    .reference = reference,
    .tolerance = tolerance,
    .tiny = tiny,
    .typical = typical,
};

enum { TILE_X, N_KNOBS };

static at_status define_space(const at_args *a, at_space *s)
{
    return at_space_split(s, TILE_X, "tile_x", a->u.ext.v[0], 2);
}

static at_status schedule(const at_args *a, const at_config *c, at_ir_sched *s)
{
    int64_t n = a->u.ext.v[0], sizes[2];
    at_config_split(c, TILE_X, sizes, 2);
    if (sizes[1] < 1 || n % sizes[1]) return AT_FAIL(AT_EINVAL, "tile_x inner %lld does not divide %lld", (long long)sizes[1], (long long)n);
    const at_ir_buffer *t[3];
    params(a, s, t);
    const at_ir_var *bx = at_ir_var_new(s, "bx", AT_IR_I32), *tx = at_ir_var_new(s, "tx", AT_IR_I32);
    const at_ir_var *v[2] = {bx, tx};
    const int64_t e[2] = {n / sizes[1], sizes[1]};
    const at_ir_stmt *body = add_at(s, t, at_ir_fuse(s, v, e, 2));
    body = at_ir_for(s, tx, sizes[1], AT_IR_THREAD_X, body);
    at_ir_add_kernel(s, "default_function_kernel", at_ir_for(s, bx, n / sizes[1], AT_IR_BLOCK_X, body));
    return at_ir_sched_status(s);
}

/* .op is the kind's value, known once register_op has run */
static at_template vecadd_opencl = {
    .name = "vecadd.example",
    .target = AT_TARGET_OPENCL,
    .n_knobs = N_KNOBS,
    .define_space = define_space,
    .schedule = schedule,
};

AT_PLUGIN_EXPORT at_status at_plugin_init(const at_plugin_api *api)
{
    AT_TRY(api->register_op(&vecadd_op, &vecadd_opencl.op));
    return api->register_template(&vecadd_opencl);
}
