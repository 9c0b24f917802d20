/* Mali templates and their op kinds without a device: workload JSON exactly as TVM logs it
 * (TopHub's forms included), argument checks, FLOPs and space sizes of every resnet-18 and
 * mobilenet task (spec/templates_vta.md 2.2, 2.4), TopHub indices decoding to their entities
 * (0.1), TVM's fallback configs (0.2b), the unscheduled computes against the references, and the
 * allocation-failure loop over task creation, fallback and instantiation. */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/json.h"
#include "core/rng.h"
#include "core/strbuf.h"
#include "records/log.h"
#include "templates/template.h"

static at_task *task(const char *name, const char *args)
{
    at_task *t;
    at_status st = at_task_create(name, AT_TARGET_OPENCL, args, &t);
    if (st != AT_OK) print_error("%s %s: %s\n", name, args, at_last_error());
    assert_ok(st);
    return t;
}

static void assert_workload(const at_task *t, const char *want)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), want);
    at_strbuf_fini(&sb);
}

static void workloads_should_write_back_as_tvm_logs_them(void **state)
{
    (void)state;
    static const struct {
        const char *name, *args;
    } cases[] = {
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 992, 7, 7], \"float32\"], [\"TENSOR\", [128, 992, 1, 1], \"float32\"], [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"]"},
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 992, 7, 7], \"float16\"], [\"TENSOR\", [128, 992, 1, 1], \"float16\"], [1, 1], [0, 1, 0, 1], [1, 1], \"float16\"]"},
        {"conv2d_nchw_winograd.mali", "[[\"TENSOR\", [1, 128, 7, 7], \"float32\"], [\"TENSOR\", [32, 128, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]"},
        {"depthwise_conv2d_nchw.mali", "[[\"TENSOR\", [1, 576, 14, 14], \"float32\"], [\"TENSOR\", [576, 1, 3, 3], \"float32\"], [2, 2], [1, 1, 1, 1], [1, 1], \"float32\"]"},
        {"dense.mali", "[[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], [\"TENSOR\", [1000], \"float32\"], null]"},
        {"dense.mali", "[[\"TENSOR\", [1, 1024], \"float32\"], [\"TENSOR\", [1000, 1024], \"float32\"], null, null]"},
        {"dense.mali", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]"},
        /* topi-level forms: bare ints and [pad_h, pad_w] */
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 3, 10, 10], \"float32\"], [\"TENSOR\", [4, 3, 3, 3], \"float32\"], 2, [1, 2], 1, null]"},
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 3, 10, 10], \"float32\"], [\"TENSOR\", [4, 3, 3, 3], \"float32\"], [1, 1], 1, [2, 2], \"float32\"]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_task *t = task(cases[i].name, cases[i].args);
        char want[1024];
        snprintf(want, sizeof want, "[\"%s\", %s", cases[i].name, cases[i].args + 1);
        assert_workload(t, want);
        at_task_free(t);
    }
    /* [pad_h, pad_w] pads both sides; out_dtype null is the data dtype; a bias is an input */
    at_task *t = task("conv2d_nchw_spatial_pack.mali", cases[7].args);
    const at_conv2d_args *c = &at_task_args(t)->u.conv2d;
    assert_int_equal(c->pad[0], 1);
    assert_int_equal(c->pad[1], 2);
    assert_int_equal(c->pad[2], 1);
    assert_int_equal(c->pad[3], 2);
    assert_int_equal(c->stride[1], 2);
    assert_true(c->out_dtype_null && at_ir_type_eq(c->out_dtype, AT_IR_F32));
    at_tensor_desc d[AT_OP_MAX_TENSORS];
    assert_int_equal(at_op_tensors(at_task_args(t), d), 3);
    assert_int_equal(d[2].shape[2], 5); /* (10 + 2 - 3) / 2 + 1 */
    assert_int_equal(d[2].shape[3], 6); /* (10 + 4 - 3) / 2 + 1 */
    at_task_free(t);
    t = task("dense.mali", cases[4].args);
    assert_int_equal(at_op_tensors(at_task_args(t), d), 4);
    assert_string_equal(d[2].name, "bias");
    assert_int_equal(d[2].shape[0], 1000);
    assert_true(d[3].is_output);
    assert_true(at_task_flop(t) == 2.0 * 1000 * 1024 + 1000); /* the bias add counts 1 per output */
    at_task_free(t);
    /* the comma forms */
    t = task("depthwise_conv2d_nchw.mali", "1,32,112,112,1,3,3,1,1");
    assert_workload(t, "[\"depthwise_conv2d_nchw.mali\", [\"TENSOR\", [1, 32, 112, 112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]");
    at_task_free(t);
    t = task("dense.mali", "1,1000,512");
    assert_workload(t, "[\"dense.mali\", [\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]");
    at_task_free(t);
}

static void bad_workloads_should_be_rejected_with_a_reason(void **state)
{
    (void)state;
    static const struct {
        const char *name, *args, *needle;
        at_status   st;
    } cases[] = {
        {"conv2d_nchw_spatial_pack.mali", "1,4,8,8,4,3,3,1", "expected N,C,H,W", AT_EPARSE},
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [\"TENSOR\", [4, 3, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]", "kernel takes 3 input channels, data has 4", AT_EINVAL},
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [\"TENSOR\", [4, 4, 3, 3], \"float32\"], [1, 1], [1, 1, 1], [1, 1], \"float32\"]", "padding", AT_EPARSE},
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [\"TENSOR\", [4, 4, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1]]", "expected [data, kernel", AT_EPARSE},
        {"conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 4, 2, 2], \"float32\"], [\"TENSOR\", [4, 4, 3, 3], \"float32\"], [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"]", "larger than the padded input", AT_EINVAL},
        {"conv2d_nchw_spatial_pack.mali", "[[\"BUFFER\", [1, 4, 8, 8], \"float32\"], [\"TENSOR\", [4, 4, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]", "TENSOR", AT_EPARSE},
        {"conv2d_nchw_spatial_pack.mali", "1,4,8,8,4,3,3,1,1,1,int32", "dtypes must be float", AT_EINVAL},
        {"conv2d_nchw_winograd.mali", "1,4,8,8,4,3,3,2,1", "winograd takes a 3x3 kernel with stride 1", AT_EINVAL},
        {"conv2d_nchw_winograd.mali", "1,4,8,8,4,5,5,1,2", "winograd takes a 3x3 kernel", AT_EINVAL},
        {"depthwise_conv2d_nchw.mali", "[[\"TENSOR\", [1, 4, 8, 8], \"float32\"], [\"TENSOR\", [8, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]", "kernel has 8 channels, data 4", AT_EINVAL},
        {"dense.mali", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 256], \"float32\"], null, \"float32\"]", "data has 512 columns, weight 256", AT_EINVAL},
        {"dense.mali", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], [\"TENSOR\", [10], \"float32\"], null]", "bias has 10 values", AT_EINVAL},
        {"dense.mali", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, 3]", "out_dtype", AT_EPARSE},
        {"dense.mali", "1,2", "expected M,N,K", AT_EPARSE},
        {"dense.mali", "0,2,3", "extents must be in 1", AT_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_task *t = NULL;
        at_status st = at_task_create(cases[i].name, AT_TARGET_OPENCL, cases[i].args, &t);
        if (st != cases[i].st || !strstr(at_last_error(), cases[i].needle)) {
            print_error("case %zu: got %s '%s', want %s with '%s'\n", i, at_status_str(st), at_last_error(),
                        at_status_str(cases[i].st), cases[i].needle);
            fail();
        }
        assert_null(t);
    }
}

/* spec 2.2 and 2.4: every resnet-18 and mobilenet task's space size and FLOPs. */
static void network_tasks_should_have_tvms_space_sizes_and_flops(void **state)
{
    (void)state;
    static const struct {
        const char *tmpl, *args;
        int64_t     len;
        double      flop;
    } cases[] = {
        {"conv2d_nchw_spatial_pack.mali", "1,3,224,224,64,7,7,2,3", 9072000, 237138804},
        {"conv2d_nchw_spatial_pack.mali", "1,64,56,56,64,3,3,1,1", 4032000, 232718080},
        {"conv2d_nchw_winograd.mali", "1,64,56,56,64,3,3,1,1", 29400, 231211008},
        {"conv2d_nchw_spatial_pack.mali", "1,64,56,56,64,1,1,1,0", 4032000, 25690112},
        {"conv2d_nchw_spatial_pack.mali", "1,64,56,56,128,3,3,2,1", 1866240, 117112576},
        {"conv2d_nchw_spatial_pack.mali", "1,64,56,56,128,1,1,2,0", 1866240, 12845056},
        {"conv2d_nchw_spatial_pack.mali", "1,128,28,28,128,3,3,1,1", 1866240, 232017408},
        {"conv2d_nchw_winograd.mali", "1,128,28,28,128,3,3,1,1", 38400, 231211008},
        {"conv2d_nchw_spatial_pack.mali", "1,128,28,28,256,3,3,2,1", 583200, 116411904},
        {"conv2d_nchw_spatial_pack.mali", "1,128,28,28,256,1,1,2,0", 583200, 12845056},
        {"conv2d_nchw_spatial_pack.mali", "1,256,14,14,256,3,3,1,1", 583200, 231669760},
        {"conv2d_nchw_winograd.mali", "1,256,14,14,256,3,3,1,1", 38400, 231211008},
        {"conv2d_nchw_spatial_pack.mali", "1,256,14,14,512,3,3,2,1", 79200, 116064256},
        {"conv2d_nchw_spatial_pack.mali", "1,256,14,14,512,1,1,2,0", 79200, 12845056},
        {"conv2d_nchw_spatial_pack.mali", "1,512,7,7,512,3,3,1,1", 79200, 231501312},
        {"conv2d_nchw_winograd.mali", "1,512,7,7,512,3,3,1,1", 38400, 231211008},
        /* mobilenet */
        {"conv2d_nchw_spatial_pack.mali", "1,3,224,224,32,3,3,2,1", 6804000, 22748628},
        {"depthwise_conv2d_nchw.mali", "1,32,112,112,1,3,3,1,1", 850500, 10136448},
        {"conv2d_nchw_spatial_pack.mali", "1,32,112,112,64,1,1,1,0", 9072000, 51380224},
        {"depthwise_conv2d_nchw.mali", "1,64,112,112,1,3,3,2,1", 504000, 9434880},
        {"conv2d_nchw_spatial_pack.mali", "1,64,56,56,128,1,1,1,0", 5184000, 51380224},
        {"depthwise_conv2d_nchw.mali", "1,128,56,56,1,3,3,1,1", 648000, 10239488},
        {"conv2d_nchw_spatial_pack.mali", "1,128,56,56,128,1,1,1,0", 5184000, 102760448},
        {"depthwise_conv2d_nchw.mali", "1,128,56,56,1,3,3,2,1", 233280, 4820480},
        {"conv2d_nchw_spatial_pack.mali", "1,128,28,28,256,1,1,1,0", 2332800, 51380224},
        {"depthwise_conv2d_nchw.mali", "1,256,28,28,1,3,3,1,1", 291600, 5225472},
        {"conv2d_nchw_spatial_pack.mali", "1,256,28,28,256,1,1,1,0", 2332800, 102760448},
        {"depthwise_conv2d_nchw.mali", "1,256,28,28,1,3,3,2,1", 72900, 2515968},
        {"conv2d_nchw_spatial_pack.mali", "1,256,14,14,512,1,1,1,0", 712800, 51380224},
        {"depthwise_conv2d_nchw.mali", "1,512,14,14,1,3,3,1,1", 89100, 2723840},
        {"conv2d_nchw_spatial_pack.mali", "1,512,14,14,512,1,1,1,0", 712800, 102760448},
        {"depthwise_conv2d_nchw.mali", "1,512,14,14,1,3,3,2,1", 9900, 1369088},
        {"conv2d_nchw_spatial_pack.mali", "1,512,7,7,1024,1,1,1,0", 95040, 51380224},
        {"depthwise_conv2d_nchw.mali", "1,1024,7,7,1,3,3,1,1", 11880, 1483776},
        {"conv2d_nchw_spatial_pack.mali", "1,1024,7,7,1024,1,1,1,0", 95040, 102760448},
        {"dense.mali", "1,1000,1024", 700, 2048000},
        {"dense.mali", "1,1000,512", 700, 1024000},
    };
    assert_int_equal(sizeof cases / sizeof cases[0], 37);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_task *t = task(cases[i].tmpl, cases[i].args);
        if (at_space_len(at_task_space(t)) != cases[i].len || at_task_flop(t) != cases[i].flop) {
            print_error("%s %s: space %lld flop %.0f, want %lld %.0f\n", cases[i].tmpl, cases[i].args,
                        (long long)at_space_len(at_task_space(t)), at_task_flop(t), (long long)cases[i].len, cases[i].flop);
            fail();
        }
        at_task_free(t);
    }
    /* padding on one axis only: 2 comparisons + 1 AND per padded element (TopHub has (0, 1, 0, 1)) */
    at_task *t = task("conv2d_nchw_spatial_pack.mali", "[[\"TENSOR\", [1, 3, 8, 7], \"float32\"], [\"TENSOR\", [4, 3, 3, 3], \"float32\"], [1, 1], [0, 1, 0, 1], [1, 1], \"float32\"]");
    assert_true(at_task_flop(t) == 2.0 * 4 * 6 * 7 * 3 * 9 + 3.0 * 3 * 8 * 9);
    at_task_free(t);
}

static const at_entity *ent(const at_config *c, const char *name)
{
    const at_entity *e = at_config_find(c, name);
    assert_non_null(e);
    return e;
}

static void assert_split(const at_config *c, const char *name, int64_t a, int64_t b, int64_t cc, size_t n)
{
    const at_entity *e = ent(c, name);
    assert_int_equal(e->kind, AT_KNOB_SPLIT);
    assert_int_equal(e->n, n);
    const int64_t want[3] = {a, b, cc};
    for (size_t i = 0; i < n; i++)
        if (e->ints[i] != want[i]) {
            print_error("%s[%zu] = %lld, want %lld\n", name, i, (long long)e->ints[i], (long long)want[i]);
            fail();
        }
}

static void assert_anns(const at_config *c, const char *name, const char *a, const char *b, const char *cc)
{
    const at_entity *e = ent(c, name);
    assert_int_equal(e->kind, AT_KNOB_ANNOTATE);
    const char *want[3] = {a, b, cc};
    for (size_t i = 0; i < e->n; i++) assert_string_equal(e->anns[i], want[i]);
}

/* spec 0.1: indices of TopHub records decode to their stored entities. */
static void tophub_indices_should_decode_to_their_entities(void **state)
{
    (void)state;
    at_task *t = task("conv2d_nchw_spatial_pack.mali", "1,992,7,7,128,1,1,1,0");
    at_config *c;
    assert_ok(at_task_config(t, 36225, &c));
    assert_split(c, "tile_co", -1, 2, 2, 3);
    assert_split(c, "tile_oh", -1, 7, 1, 3);
    assert_split(c, "tile_ow", -1, 1, 7, 3);
    assert_int_equal(ent(c, "reorder_0")->ints[7], 9);
    assert_anns(c, "ann_reduce", "unroll", "unroll", NULL);
    assert_anns(c, "ann_spatial", "unroll", "unroll", "vec");
    at_config_free(c);
    at_task_free(t);

    t = task("conv2d_nchw_winograd.mali", "1,64,56,56,64,3,3,1,1");
    assert_ok(at_task_config(t, 18786, &c));
    assert_int_equal(ent(c, "tile_bna")->val.i, 2);
    assert_int_equal(ent(c, "tile_bnb")->val.i, 4);
    assert_split(c, "tile_t1", -1, 4, 0, 2);
    assert_split(c, "tile_t2", -1, 4, 0, 2);
    assert_split(c, "c_unroll", -1, 8, 0, 2);
    assert_int_equal(ent(c, "yt")->val.i, 8);
    at_config_free(c);
    at_task_free(t);

    t = task("depthwise_conv2d_nchw.mali", "1,960,7,7,1,3,3,1,1");
    assert_ok(at_task_config(t, 17673, &c));
    assert_split(c, "tile_c", -1, 6, 2, 3);
    assert_split(c, "tile_y", -1, 7, 1, 3);
    assert_split(c, "tile_x", -1, 1, 7, 3);
    assert_anns(c, "ann_spatial", "none", "vec", "unroll");
    at_config_free(c);
    at_task_free(t);

    t = task("dense.mali", "1,1000,512");
    assert_ok(at_task_config(t, 403, &c));
    assert_split(c, "tile_y", -1, 1, 1, 3);
    assert_split(c, "tile_x", -1, 5, 1, 3);
    assert_split(c, "c_unroll", -1, 16, 0, 2);
    at_config_free(c);
    at_task_free(t);
}

/* The reference configs TVM's load_reference_log("mali", "rk3399", name) gives: that template's
 * records of the pack, in file order. */
static const at_config **refs_of(const at_rec_log *log, const char *name, size_t *n)
{
    const at_config **refs = at_calloc(log->n, sizeof *refs);
    *n = 0;
    for (size_t i = 0; i < log->n; i++)
        if (!strcmp(log->recs[i].task_name, name)) refs[(*n)++] = log->recs[i].config;
    return refs;
}

/* spec 0.2b */
static void fallback_configs_should_be_tvms(void **state)
{
    (void)state;
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(at_test_shared_path("data/tophub/mali_v0.06.log"), &log));
    size_t n_sp, n_dw, n_de;
    const at_config **sp = refs_of(log, "conv2d_nchw_spatial_pack.mali", &n_sp);
    const at_config **dw = refs_of(log, "depthwise_conv2d_nchw.mali", &n_dw);
    const at_config **de = refs_of(log, "dense.mali", &n_de);
    assert_int_equal(n_sp, 406);
    assert_int_equal(n_dw, 45);
    assert_int_equal(n_de, 14);
    const at_template *tm = at_tmpl_find("conv2d_nchw_spatial_pack.mali", AT_TARGET_OPENCL);
    assert_string_equal(tm->ref_backend, "mali");
    assert_string_equal(tm->ref_model, "rk3399");
    assert_null(at_tmpl_find("conv2d_nchw_winograd.mali", AT_TARGET_OPENCL)->ref_backend);

    at_task *t = task("conv2d_nchw_spatial_pack.mali", "1,64,56,56,64,3,3,1,1");
    at_config *c;
    assert_ok(at_task_fallback_config(t, sp, n_sp, &c));
    assert_int_equal(at_config_index(c), -1);
    assert_split(c, "tile_co", 1, 16, 4, 3);
    assert_split(c, "tile_oh", 56, 1, 1, 3);
    assert_split(c, "tile_ow", 1, 14, 4, 3);
    assert_int_equal(ent(c, "reorder_0")->ints[7], 9);
    assert_anns(c, "ann_reduce", "none", "none", NULL);
    assert_anns(c, "ann_spatial", "unroll", "unroll", "vec");
    at_arena *ar;
    assert_ok(at_arena_new(0, &ar));
    const at_ir_program *p;
    assert_ok(at_task_instantiate(t, c, ar, &p)); /* a fallback config is a program too */
    at_arena_free(ar);
    at_config_free(c);
    /* without references: entity 0 of every knob */
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_split(c, "tile_co", -1, 1, 1, 3);
    assert_anns(c, "ann_spatial", "none", "none", "none");
    at_config_free(c);
    at_task_free(t);

    t = task("conv2d_nchw_spatial_pack.mali", "1,32,112,112,64,1,1,1,0");
    assert_ok(at_task_fallback_config(t, sp, n_sp, &c));
    assert_split(c, "tile_co", 4, 4, 4, 3);
    assert_split(c, "tile_oh", 112, 1, 1, 3);
    assert_split(c, "tile_ow", 2, 14, 4, 3);
    assert_int_equal(ent(c, "reorder_0")->ints[7], 7);
    assert_anns(c, "ann_reduce", "unroll", "none", NULL);
    assert_anns(c, "ann_spatial", "none", "unroll", "vec");
    at_config_free(c);
    at_task_free(t);

    t = task("depthwise_conv2d_nchw.mali", "1,32,112,112,1,3,3,1,1");
    assert_ok(at_task_fallback_config(t, dw, n_dw, &c));
    assert_split(c, "tile_c", 8, 4, 1, 3);
    assert_split(c, "tile_y", 112, 1, 1, 3);
    assert_split(c, "tile_x", 2, 7, 8, 3);
    assert_anns(c, "ann_spatial", "unroll", "vec", "unroll");
    at_config_free(c);
    at_task_free(t);

    t = task("dense.mali", "1,1000,1024");
    assert_ok(at_task_fallback_config(t, de, n_de, &c));
    assert_split(c, "tile_y", 1, 1, 1, 3);
    assert_split(c, "tile_x", 40, 25, 1, 3);
    assert_split(c, "c_unroll", 64, 16, 0, 2);
    at_config_free(c);
    at_task_free(t);
    t = task("dense.mali", "1,1000,512");
    assert_ok(at_task_fallback_config(t, de, n_de, &c));
    assert_split(c, "tile_x", 40, 25, 1, 3);
    assert_split(c, "c_unroll", 32, 16, 0, 2);
    at_config_free(c);
    at_task_free(t);

    /* Winograd reads no log: its own choice whatever the caller passes */
    t = task("conv2d_nchw_winograd.mali", "1,64,56,56,64,3,3,1,1");
    assert_ok(at_task_fallback_config(t, sp, n_sp, &c));
    assert_int_equal(ent(c, "tile_bna")->val.i, 4);
    assert_int_equal(ent(c, "tile_bnb")->val.i, 4);
    assert_split(c, "tile_t1", 1, 64, 0, 2);
    assert_split(c, "tile_t2", 1, 64, 0, 2);
    assert_split(c, "c_unroll", 8, 8, 0, 2);
    assert_int_equal(ent(c, "yt")->val.i, 8);
    at_config_free(c);
    at_task_free(t);
    t = task("conv2d_nchw_winograd.mali", "1,512,7,7,512,3,3,1,1");
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_split(c, "tile_t1", 4, 128, 0, 2);
    assert_split(c, "tile_t2", 4, 128, 0, 2);
    assert_split(c, "c_unroll", 64, 8, 0, 2);
    at_config_free(c);
    at_task_free(t);
    t = task("conv2d_nchw_winograd.mali", "1,4,8,8,6,3,3,1,1"); /* 4 does not divide 6: bna 2 */
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    assert_int_equal(ent(c, "tile_bna")->val.i, 2);
    at_config_free(c);
    at_task_free(t);

    /* a reference lacking the template's knobs does not fit */
    t = task("dense.mali", "1,1000,512");
    assert_int_equal(at_task_fallback_config(t, sp, 1, &c), AT_EINVAL);
    assert_null(c);
    at_task_free(t);
    at_free(sp);
    at_free(dw);
    at_free(de);
    at_rec_log_free(log);
}

static void unscheduled_computes_should_match_the_references(void **state)
{
    (void)state;
    static const struct {
        at_op_kind  op;
        const char *args;
    } cases[] = {
        {AT_OP_CONV2D_NCHW, "2,3,9,9,4,3,3,2,1"},
        {AT_OP_CONV2D_NCHW, "1,2,9,9,3,3,3,1,2,2"},
        {AT_OP_CONV2D_NCHW_WINOGRAD, "1,3,8,8,4,3,3,1,1"},
        {AT_OP_CONV2D_NCHW_WINOGRAD, "2,2,7,5,3,3,3,1,1"},
        {AT_OP_DEPTHWISE_CONV2D_NCHW, "1,3,8,8,2,3,3,2,1"},
        {AT_OP_DENSE, "[[\"TENSOR\", [3, 5], \"float32\"], [\"TENSOR\", [4, 5], \"float32\"], [\"TENSOR\", [4], \"float32\"], null]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_args a;
        assert_ok(at_op_args_parse(cases[i].op, cases[i].args, &a));
        at_tensor_desc d[AT_OP_MAX_TENSORS];
        size_t n = at_op_tensors(&a, d);
        float *buf[AT_OP_MAX_TENSORS], *ref[AT_OP_MAX_TENSORS];
        const void *in[AT_OP_MAX_TENSORS];
        void *outs[AT_OP_MAX_TENSORS];
        size_t ni = 0, no = 0;
        at_rng rng;
        at_rng_seed(&rng, 5 + i);
        for (size_t k = 0; k < n; k++) {
            buf[k] = at_calloc((size_t)d[k].n_elems, sizeof(float));
            ref[k] = at_calloc((size_t)d[k].n_elems, sizeof(float));
            for (int64_t e = 0; e < d[k].n_elems && !d[k].is_output; e++) buf[k][e] = (float)(at_rng_uniform(&rng) - 0.5);
            if (d[k].is_output)
                outs[no++] = ref[k];
            else
                in[ni++] = buf[k];
        }
        at_op_reference(&a, in, outs);
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        at_ir_sched *s = at_ir_sched_begin(ar, "compute");
        at_op_compute(&a, s);
        const at_ir_program *p;
        assert_ok(at_ir_sched_finish(s, &p));
        assert_ok(at_ir_verify(p));
        void *bufs[AT_OP_MAX_TENSORS];
        for (size_t k = 0; k < n; k++) bufs[k] = buf[k];
        assert_ok(at_ir_interp(p, bufs));
        at_op_tolerance tol = at_op_tolerance_of(&a);
        for (size_t k = 0; k < n; k++) {
            for (int64_t e = 0; d[k].is_output && e < d[k].n_elems; e++)
                if (!(fabs(buf[k][e] - ref[k][e]) <= tol.atol + tol.rtol * fabs(ref[k][e]))) {
                    print_error("%s %s: element %lld %g, want %g\n", at_op_name(cases[i].op), cases[i].args, (long long)e,
                                buf[k][e], ref[k][e]);
                    fail();
                }
            at_free(buf[k]);
            at_free(ref[k]);
        }
        at_arena_free(ar);
    }
}

/* The matrices satisfy Winograd's identity: A^T [(G g G^T) . (B^T d B)] A = correlation of d and g. */
static void winograd_matrices_should_compute_a_correlation(void **state)
{
    (void)state;
    for (int m = 2; m <= 4; m += 2) {
        int al = m + 2;
        const double *A, *B, *G;
        at_op_winograd_matrices(m, &A, &B, &G);
        double d[6][6], g[3][3];
        for (int i = 0; i < al; i++)
            for (int j = 0; j < al; j++) d[i][j] = (i * 7 + j * 3) % 5 - 2.0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) g[i][j] = (i * 2 + j) % 3 + 0.5;
        double U[6][6] = {{0}}, V[6][6] = {{0}}, M[6][6], Y[4][4] = {{0}};
        for (int e = 0; e < al; e++)
            for (int n = 0; n < al; n++) {
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) U[e][n] += G[e * 3 + a] * g[a][b] * G[n * 3 + b];
                for (int a = 0; a < al; a++)
                    for (int b = 0; b < al; b++) V[e][n] += B[a * al + e] * d[a][b] * B[b * al + n];
                M[e][n] = U[e][n] * V[e][n];
            }
        for (int y = 0; y < m; y++)
            for (int x = 0; x < m; x++)
                for (int a = 0; a < al; a++)
                    for (int b = 0; b < al; b++) Y[y][x] += A[a * m + y] * M[a][b] * A[b * m + x];
        for (int y = 0; y < m; y++)
            for (int x = 0; x < m; x++) {
                double want = 0;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) want += d[y + a][x + b] * g[a][b];
                assert_true(fabs(Y[y][x] - want) < 1e-9);
            }
    }
}

static void mali_tasks_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    static const struct {
        const char *name, *args;
        int64_t     index;
    } cases[] = {
        {"conv2d_nchw_spatial_pack.mali", "1,2,4,4,4,3,3,1,1", 77},
        {"conv2d_nchw_winograd.mali", "1,2,4,4,2,3,3,1,1", 17},
        {"depthwise_conv2d_nchw.mali", "1,4,4,4,1,3,3,1,1", 40},
        {"dense.mali", "4,8,16", 11},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long base = at_alloc_live();
        int n_fail = 0;
        for (long k = 0;; k++) {
            at_task *t = NULL;
            at_config *c = NULL, *fb = NULL;
            at_arena *a = NULL;
            const at_ir_program *p = NULL;
            at_alloc_fail_after(k);
            at_status st = at_task_create(cases[i].name, AT_TARGET_OPENCL, cases[i].args, &t);
            if (st == AT_OK) st = at_task_fallback_config(t, NULL, 0, &fb);
            if (st == AT_OK) st = at_task_config(t, cases[i].index, &c);
            if (st == AT_OK) st = at_arena_new(0, &a);
            if (st == AT_OK) st = at_task_instantiate(t, c, a, &p);
            at_alloc_fail_after(-1);
            at_arena_free(a);
            at_config_free(c);
            at_config_free(fb);
            at_task_free(t);
            assert_int_equal(at_alloc_live(), base);
            if (st == AT_OK) break;
            if (st != AT_ENOMEM) print_error("%s at allocation %ld: %s\n", cases[i].name, k, at_last_error());
            assert_int_equal(st, AT_ENOMEM);
            n_fail++;
            assert_true(k < 100000);
        }
        assert_true(n_fail > 10);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workloads_should_write_back_as_tvm_logs_them),
        cmocka_unit_test(bad_workloads_should_be_rejected_with_a_reason),
        cmocka_unit_test(network_tasks_should_have_tvms_space_sizes_and_flops),
        cmocka_unit_test(tophub_indices_should_decode_to_their_entities),
        cmocka_unit_test(fallback_configs_should_be_tvms),
        cmocka_unit_test(unscheduled_computes_should_match_the_references),
        cmocka_unit_test(winograd_matrices_should_compute_a_correlation),
        cmocka_unit_test(mali_tasks_should_survive_every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
