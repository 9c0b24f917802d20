/* The x86 NCHWc templates (conv2d_NCHWc.x86, depthwise_conv2d_NCHWc.x86): workload text as TVM
 * logs it, argument errors, FLOPs, space sizes, TopHub's llvm_v0.04 records against v0.18's space,
 * TVM's fallback configs, and both programs of seeded configs on the IR interpreter against the
 * reference. */
#include "tests/support/test_support.h"

#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "records/record.h"
#include "tests/unit/test_x86_cases.h"

#define T(shape) "[\"TENSOR\", " shape ", \"float32\"]"

static at_task *task(const char *name, const char *args)
{
    at_task *t;
    assert_ok(at_task_create(name, AT_TARGET_LLVM, args, &t));
    return t;
}

static void workloads_should_read_and_write_as_tvm_logs_them(void **state)
{
    (void)state;
    const char *json = "[" T("[1, 3, 224, 224]") ", " T("[64, 3, 7, 7]") ", [2, 2], [3, 3, 3, 3], [1, 1], \"NCHW\", \"NCHW\", \"float32\"]";
    at_task *t = task("conv2d_NCHWc.x86", json);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "[\"conv2d_NCHWc.x86\", " T("[1, 3, 224, 224]") ", " T("[64, 3, 7, 7]")
                                             ", [2, 2], [3, 3, 3, 3], [1, 1], \"NCHW\", \"NCHW\", \"float32\"]");
    /* compute_flop: 2 N CO OH OW CI KH KW, and topi's pad (7 ops per element of 3 x 230 x 230) */
    assert_true(at_task_flop(t) == 236027904.0 + 1110900.0);
    at_task_free(t);
    at_strbuf_fini(&sb);

    t = task("depthwise_conv2d_NCHWc.x86", "1,32,112,112,1,3,3,1,1");
    at_strbuf_init(&sb);
    at_task_write_workload(t, &sb);
    assert_string_equal(at_strbuf_cstr(&sb), "[\"depthwise_conv2d_NCHWc.x86\", " T("[1, 32, 112, 112]") ", "
                                             T("[32, 1, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW\", \"NCHW\", \"float32\"]");
    /* 2 C OH OW KH KW + 7 x 32 x 114 x 114 */
    assert_true(at_task_flop(t) == 2.0 * 32 * 112 * 112 * 9 + 7.0 * 32 * 114 * 114);
    at_task_free(t);
    at_strbuf_fini(&sb);
}

static void bad_workloads_should_be_refused_by_name(void **state)
{
    (void)state;
    at_task *t = NULL;
    assert_int_equal(at_task_create("conv2d_NCHWc.x86", AT_TARGET_LLVM,
                                    "[" T("[1, 4, 8, 8]") ", " T("[8, 4, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"NHWC\", \"NCHW\", \"float32\"]", &t),
                     AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "argument 5 (layout)"));
    assert_int_equal(at_task_create("conv2d_NCHWc.x86", AT_TARGET_LLVM,
                                    "[" T("[1, 4, 8, 8]") ", " T("[8, 4, 3, 3]") ", [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]", &t),
                     AT_EPARSE);
    assert_non_null(strstr(at_last_error(), "out_layout"));
    assert_int_equal(at_task_create("depthwise_conv2d_NCHWc.x86", AT_TARGET_LLVM, "1,4,8,8,2,3,3,1,1", &t), AT_EINVAL);
    assert_non_null(strstr(at_last_error(), "channel multiplier must be 1"));
    assert_null(t);
}

static int64_t space_len(const char *name, const char *args)
{
    at_task *t = task(name, args);
    int64_t n = at_space_len(at_task_space(t));
    at_task_free(t);
    return n;
}

static void spaces_should_have_tvms_sizes(void **state)
{
    (void)state;
    /* tile_ic 2 x tile_oc 7 x tile_ow (verbose on 112, <= 64: 9 divisors + 32, 64) 11 x unroll_kw 2 */
    assert_int_equal(space_len("conv2d_NCHWc.x86", "1,3,224,224,64,7,7,2,3"), 2 * 7 * 11 * 2);
    /* 1x1 on 56 x 56: 7 x 9 x (8 divisors + 16, 32 = 10) x tile_oh 2 */
    assert_int_equal(space_len("conv2d_NCHWc.x86", "1,64,56,56,256,1,1,1,0"), 7 * 9 * 10 * 2);
    /* 1x1 on a one-row output: tile_oh [1] */
    assert_int_equal(space_len("conv2d_NCHWc.x86", "1,16,1,8,16,1,1,1,0"), 5 * 5 * 4 * 1);
    /* depthwise: tile_ow is a factor split (112: 9 divisors <= 64) */
    assert_int_equal(space_len("depthwise_conv2d_NCHWc.x86", "1,32,112,112,1,3,3,1,1"), 6 * 6 * 9 * 2);
}

/* Three of the 35 records of TopHub's llvm_v0.04 (TVM 0.7.dev0, 2018), whose indices count in
 * 2018's space, where tile_ow was a factor split (v0.18's is "verbose": divisors and powers of
 * two in CPython's set order). All 35 are so; 7 give the same index in both spaces. */
static const char *const tophub_lines[] = {
    "{\"input\": [\"llvm -mcpu=skylake-avx512\", \"conv2d_NCHWc.x86\", [" T("[1, 3, 224, 224]") ", " T("[64, 3, 7, 7]") ", [2, 2], [3, 3, 3, 3], [1, 1], \"NCHW\", \"NCHW\", \"float32\"], {}], \"config\": {\"index\": 193, \"code_hash\": null, \"entity\": [[\"tile_ic\", \"sp\", [1, 3]], [\"tile_oc\", \"sp\", [2, 32]], [\"tile_ow\", \"sp\", [14, 8]], [\"unroll_kw\", \"ot\", false]]}, \"result\": [[9.593498664366054e-05], 0, 1.757516860961914, 1539972731.352305], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
    "{\"input\": [\"llvm -mcpu=skylake-avx512\", \"conv2d_NCHWc.x86\", [" T("[1, 64, 56, 56]") ", " T("[64, 64, 1, 1]") ", [1, 1], [0, 0, 0, 0], [1, 1], \"NCHW\", \"NCHW\", \"float32\"], {}], \"config\": {\"index\": 277, \"code_hash\": null, \"entity\": [[\"tile_ic\", \"sp\", [4, 16]], [\"tile_oc\", \"sp\", [4, 16]], [\"tile_ow\", \"sp\", [4, 14]], [\"tile_oh\", \"ot\", 1]]}, \"result\": [[1e-05], 0, 1.0, 1539972731.0], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
    "{\"input\": [\"llvm -mcpu=skylake-avx512\", \"conv2d_NCHWc.x86\", [" T("[1, 512, 28, 28]") ", " T("[256, 512, 1, 1]") ", [2, 2], [0, 0, 0, 0], [1, 1], \"NCHW\", \"NCHW\", \"float32\"], {}], \"config\": {\"index\": 516, \"code_hash\": null, \"entity\": [[\"tile_ic\", \"sp\", [8, 64]], [\"tile_oc\", \"sp\", [4, 64]], [\"tile_ow\", \"sp\", [7, 2]], [\"tile_oh\", \"ot\", 2]]}, \"result\": [[1e-05], 0, 1.0, 1539972731.0], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}",
};

static void tophub_records_should_name_configs_of_the_space(void **state)
{
    (void)state;
    /* the entities of each record are a config of v0.18's space (the index they give there), and
     * the stored index is what 2018's space (tile_ow by factors) gives */
    const int64_t v018[3] = {249, 326, 696}, stored[3] = {193, 277, 516};
    for (size_t i = 0; i < 3; i++) {
        at_rec r;
        assert_ok(at_rec_parse_line(tophub_lines[i], strlen(tophub_lines[i]), &r));
        at_task *t = task(r.task_name, r.args_json);
        int64_t index;
        assert_ok(at_space_index_of(at_task_space(t), r.config, &index));
        assert_int_equal(index, v018[i]);
        assert_int_equal(at_config_index(r.config), stored[i]);
        /* and the config instantiates */
        at_arena *ar;
        assert_ok(at_arena_new(0, &ar));
        const at_ir_program *p;
        assert_ok(at_task_instantiate(t, r.config, ar, &p));
        at_arena_free(ar);
        at_task_free(t);
        at_rec_fini(&r);
    }
}

static void entity(const at_config *c, size_t k, const char *name, int64_t outer, int64_t inner)
{
    const at_entity *e = at_config_at(c, k);
    assert_string_equal(e->name, name);
    assert_int_equal(e->n, 2);
    assert_int_equal(e->ints[0], outer);
    assert_int_equal(e->ints[1], inner);
}

static at_config *fallback_of(const char *name, const char *args)
{
    at_task *t = task(name, args);
    at_config *c;
    assert_ok(at_task_fallback_config(t, NULL, 0, &c));
    at_task_free(t);
    return c;
}

static void fallbacks_should_be_tvms_default_configs(void **state)
{
    (void)state;
    /* avx_common: blocks of 4 lanes (llvm without -mcpu), reg_n the largest <= 31 dividing 56 */
    at_config *c = fallback_of("conv2d_NCHWc.x86", "1,64,56,56,64,3,3,1,1");
    entity(c, 0, "tile_ic", 16, 4);
    entity(c, 1, "tile_oc", 16, 4);
    entity(c, 2, "tile_ow", 2, 28);
    assert_int_equal(at_config_at(c, 3)->val.kind, AT_VAL_BOOL);
    assert_false(at_config_at(c, 3)->val.b);
    at_config_free(c);
    /* 3 input channels: ic_bn 3 */
    c = fallback_of("conv2d_NCHWc.x86", "1,3,224,224,64,7,7,2,3");
    entity(c, 0, "tile_ic", 1, 3);
    entity(c, 2, "tile_ow", 4, 28);
    at_config_free(c);
    /* 1x1: the largest ow factor, then oh factor, with a product < 32 */
    c = fallback_of("conv2d_NCHWc.x86", "1,64,56,56,256,1,1,1,0");
    entity(c, 2, "tile_ow", 2, 28);
    assert_int_equal(at_config_at(c, 3)->val.i, 1);
    at_config_free(c);
    c = fallback_of("conv2d_NCHWc.x86", "1,256,14,14,512,1,1,1,0");
    entity(c, 2, "tile_ow", 1, 14);
    assert_int_equal(at_config_at(c, 3)->val.i, 2);
    at_config_free(c);
    /* 6 x 6: tile_oh 3, outside the knob's [1, 2], as TVM's OtherOptionEntity(3) */
    c = fallback_of("conv2d_NCHWc.x86", "1,8,6,6,8,1,1,1,0");
    entity(c, 2, "tile_ow", 1, 6);
    assert_int_equal(at_config_at(c, 3)->val.i, 3);
    at_config_free(c);
    /* depthwise: 4-lane blocks, tile_ow [4, 28] */
    c = fallback_of("depthwise_conv2d_NCHWc.x86", "1,32,112,112,1,3,3,1,1");
    entity(c, 0, "tile_ic", 8, 4);
    entity(c, 1, "tile_oc", 8, 4);
    entity(c, 2, "tile_ow", 4, 28);
    assert_false(at_config_at(c, 3)->val.b);
    at_config_free(c);
}

static at_status interp(const at_ir_program *p, void *const *bufs, size_t n, void *ctx)
{
    (void)n, (void)ctx;
    return at_ir_interp(p, bufs);
}

static void seeded_configs_should_match_the_reference_on_the_interpreter(void **state)
{
    (void)state;
    size_t ran = x86_check_all(8, 20261123, interp, NULL);
    if (ran < 10 * 8) fail_msg("only %zu configs ran", ran);
}

/* TVM pads into a copy; here the convolutions read the padding in place: border chunks and
 * skipped rows. Every config of a case whose padding (2) spans more than one chunk when tile_ow
 * is small, both programs, against the reference. */
static void every_split_of_a_padded_case_should_match_the_reference(void **state)
{
    (void)state;
    static const char *const cases[2][2] = {{"conv2d_NCHWc.x86", "1,2,5,9,2,3,3,1,2"},
                                            {"depthwise_conv2d_NCHWc.x86", "1,4,6,9,1,3,3,2,2"}};
    for (size_t i = 0; i < 2; i++) {
        at_task *t = task(cases[i][0], cases[i][1]);
        int64_t len = at_space_len(at_task_space(t));
        assert_true(len >= 32);
        for (int64_t k = 0; k < len; k++) {
            at_config *c;
            assert_ok(at_task_config(t, k, &c));
            assert_true(arm_cpu_check_config(t, c, 7 + (uint64_t)k, interp, NULL));
            assert_true(x86_check_packed(t, c, 7 + (uint64_t)k, interp, NULL));
            at_arena *ar;
            assert_ok(at_arena_new(0, &ar));
            const at_ir_program *p;
            assert_ok(at_task_instantiate_packed(t, c, NULL, ar, &p));
            for (size_t b = 0; b < p->n_bufs; b++) assert_string_not_equal(p->bufs[b]->name, "data_pad");
            at_arena_free(ar);
            at_config_free(c);
        }
        at_task_free(t);
    }
}

static at_status ir_text(const at_ir_program *p, void *ctx, at_strbuf *sb)
{
    (void)ctx;
    at_ir_print(p, sb);
    return at_strbuf_status(sb);
}

/* conv2d_NCHWc.x86 prefetches the next oc block's weights (not in TVM's schedule): with two or
 * more blocks and rows whose taps all lie inside, never with one block */
/* Whether the network program of config idx prefetches the next block's weights. */
static bool prefetches(at_task *t, int64_t idx, int64_t want_oc_bn)
{
    at_config *c;
    assert_ok(at_task_config(t, idx, &c));
    int64_t ic_bn, oc_bn;
    assert_ok(at_tmpl_packed_blocks(at_task_template(t), c, &ic_bn, &oc_bn));
    assert_int_equal(oc_bn, want_oc_bn);
    char *text = x86_packed_text(t, c, ir_text, NULL);
    bool pf = strstr(text, "prefetch kernel_vec[") != NULL;
    at_free(text);
    at_config_free(c);
    return pf;
}

static void the_next_blocks_weights_should_be_prefetched(void **state)
{
    (void)state;
    /* 3x3: [-1, 4] / [-1, 8] with tile_ic [-1, 1], tile_ow [-1, 1]: two oc blocks, then one */
    at_task *t = task("conv2d_NCHWc.x86", "1,8,8,8,8,3,3,1,1");
    assert_true(prefetches(t, 8, 4));
    assert_false(prefetches(t, 12, 8));
    at_task_free(t);
    /* 1x1 (prefetch_next_chunk_1x1): ic_bn 16, oc_bn 16, tile_ow 14, tile_oh 2 (7 row chunks of
     * 16 x 2 x 14 x 16 multiply-adds per ic chunk) prefetches; ic_bn 2 (896) or tile_oh 1 (14 row
     * chunks) does not */
    t = task("conv2d_NCHWc.x86", "1,64,14,14,64,1,1,1,0");
    assert_true(prefetches(t, 571, 16));
    assert_false(prefetches(t, 568, 16));
    assert_false(prefetches(t, 277, 16));
    at_task_free(t);
}

/* TVM times the task's compute into its NCHW[oc_bn]c tensor (arguments [output, data, kernel]):
 * the timed kernel writes that tensor, never the NCHW output, and the one finishing kernel, after
 * it, unpacks it there. Both kinds of schedule of both templates; configs 8 and 12 have oc_bn 4
 * and 8, so the unpacking is not an identity. */
static void the_timed_kernel_should_write_the_blocked_tensor_tvm_times(void **state)
{
    (void)state;
    const char *const cases[3][2] = {{"conv2d_NCHWc.x86", "1,8,8,8,8,3,3,1,1"},
                                     {"conv2d_NCHWc.x86", "1,8,6,6,8,1,1,1,0"},
                                     {"depthwise_conv2d_NCHWc.x86", "1,8,8,8,1,3,3,1,1"}};
    for (size_t i = 0; i < 3; i++) {
        at_task *t = task(cases[i][0], cases[i][1]);
        for (int64_t idx = 8; idx <= 12; idx += 4) {
            at_config *c;
            assert_ok(at_task_config(t, idx, &c));
            int64_t ic_bn, oc_bn;
            assert_ok(at_tmpl_packed_blocks(at_task_template(t), c, &ic_bn, &oc_bn));
            assert_true(oc_bn > 1);
            at_arena *ar;
            assert_ok(at_arena_new(0, &ar));
            const at_ir_program *p;
            assert_ok(at_task_instantiate(t, c, ar, &p));
            const at_ir_buffer *out = p->bufs[2];
            assert_string_equal(out->name, "output");
            size_t n_timed = 0, n_finish = 0;
            for (size_t k = 0; k < p->n_kernels; k++) {
                const at_ir_kernel *kn = &p->kernels[k];
                if (at_ir_kernel_timed(kn)) {
                    n_timed++;
                    assert_false(at_ir_stmt_stores_to(kn->body, out));
                } else if (kn->finish) {
                    n_finish++;
                    assert_int_equal(k, p->n_kernels - 1);
                    assert_true(at_ir_stmt_stores_to(kn->body, out));
                }
            }
            assert_int_equal(n_timed, 1);
            assert_int_equal(n_finish, 1);
            /* the whole program still computes the NCHW convolution */
            assert_true(arm_cpu_check_config(t, c, 77 + (uint64_t)idx, interp, NULL));
            at_arena_free(ar);
            at_config_free(c);
        }
        at_task_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workloads_should_read_and_write_as_tvm_logs_them),
        cmocka_unit_test(bad_workloads_should_be_refused_by_name),
        cmocka_unit_test(spaces_should_have_tvms_sizes),
        cmocka_unit_test(tophub_records_should_name_configs_of_the_space),
        cmocka_unit_test(fallbacks_should_be_tvms_default_configs),
        cmocka_unit_test(seeded_configs_should_match_the_reference_on_the_interpreter),
        cmocka_unit_test(every_split_of_a_padded_case_should_match_the_reference),
        cmocka_unit_test(the_next_blocks_weights_should_be_prefetched),
        cmocka_unit_test(the_timed_kernel_should_write_the_blocked_tensor_tvm_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
