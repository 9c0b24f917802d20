/* Launch geometry of the Mali templates pinned to TVM's (issue 22): for TVM's measured configs of
 * the spatial pack and a TopHub config of every other template, each kernel's global and local
 * work sizes must be what TVM v0.18 launches for the same config, so a schedule regression shows
 * without timing anything. The figures are facts read from TVM: the spatial-pack rows from TVM's
 * generated OpenCL in ../shared/spec/reference_kernels/ (which get_group_id / get_local_id each
 * kernel uses and the strides they carry); the others from the schedules in topi/mali
 * (tile_and_bind3d, the template's bind calls), computed for the config's entity as each row says.
 * Preparation kernels (weight packing, Winograd's U) are ours to time apart: TVM feeds them as
 * inputs while tuning, so the rows list them only to pin that they are flagged. */
#include "tests/support/test_support.h"

#include <string.h>

#include "backends/opencl/opencl.h"
#include "core/arena.h"
#include "templates/template.h"

typedef struct kernel_geom {
    const char *name;
    size_t      gws[3], lws[3];
    bool        prepare;
} kernel_geom;

typedef struct geom_case {
    const char *tmpl, *args;
    int64_t     config;
    size_t      n_kernels;
    kernel_geom k[4];
} geom_case;

#define R18_C2 "[[\"TENSOR\", [1, 64, 56, 56], \"float32\"], [\"TENSOR\", [64, 64, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]"

static const geom_case cases[] = {
    /* tile_co [-1,8,8] tile_oh [-1,1,8] tile_ow [-1,7,2] (TVM's best of 64, tvm_2479477.cl):
     * data_vec tile_and_bind3d(h, w, ci, 1) -> groups (ci 64, w 28, h 7), one work-item each;
     * conv tile_and_bind3d(c, h, w, TC 8, TH 1, TW 7) -> local (7, 1, 8), groups (28/7, 7, 8/8);
     * output_unpack tile_and_bind3d(co, oh, ow, 8, 1, 7) -> local (7, 1, 8), global (56, 56, 64) */
    {"conv2d_nchw_spatial_pack.mali", R18_C2, 2479477, 4,
     {{"kernel_vec_kernel", {4608, 1, 1}, {256, 1, 1}, true},
      {"data_vec_kernel", {64, 28, 7}, {1, 1, 1}, false},
      {"conv_kernel", {28, 7, 8}, {7, 1, 8}, false},
      {"output_unpack_kernel", {56, 56, 64}, {7, 1, 8}, false}}},
    /* tile_co [-1,1,16] tile_oh [-1,4,7] tile_ow [-1,7,1] (tvm_3203502.cl): conv local (7, 4, 1),
     * groups (56/7, 8/4, 4); data_vec groups (64, 56, 8) */
    {"conv2d_nchw_spatial_pack.mali", R18_C2, 3203502, 4,
     {{"kernel_vec_kernel", {2304, 1, 1}, {256, 1, 1}, true},
      {"data_vec_kernel", {64, 56, 8}, {1, 1, 1}, false},
      {"conv_kernel", {56, 8, 4}, {7, 4, 1}, false},
      {"output_unpack_kernel", {56, 56, 64}, {7, 4, 1}, false}}},
    /* tile_co [-1,1,4] tile_oh [-1,8,7] tile_ow [-1,28,2] (tvm_2380321.cl): conv local (28, 8, 1),
     * one group along x and y, 16 along z */
    {"conv2d_nchw_spatial_pack.mali", R18_C2, 2380321, 4,
     {{"kernel_vec_kernel", {9216, 1, 1}, {256, 1, 1}, true},
      {"data_vec_kernel", {64, 28, 8}, {1, 1, 1}, false},
      {"conv_kernel", {28, 8, 16}, {28, 8, 1}, false},
      {"output_unpack_kernel", {56, 56, 64}, {28, 8, 1}, false}}},
    /* TopHub: tile_c [8,4,1] tile_y [112,1,1] tile_x [2,7,8] (depthwise_conv2d.py): PaddedInput
     * tile_and_bind3d(c, h, w, tile_c[1], 1, 1) over 32x114x114 -> local (1, 1, 4); the output binds
     * (n.bc, tc) z, (bh, th) y, (bw, tw) x -> local (7, 1, 4), groups (2, 112, 8) */
    {"depthwise_conv2d_nchw.mali",
     "[[\"TENSOR\", [1, 32, 112, 112], \"float32\"], [\"TENSOR\", [32, 1, 3, 3], \"float32\"], [1, 1], [1, 1, 1, 1], [1, 1], \"float32\"]",
     667172, 2,
     {{"pad_kernel", {114, 114, 32}, {1, 1, 4}, false},
      {"depthwise_conv2d_kernel", {14, 112, 32}, {7, 1, 4}, false}}},
    /* TopHub: tile_y [1,1,1] tile_x [200,5,1] (dense.py): (by, ty) y, (bx, tx) x -> local (5, 1),
     * groups (200, 1) */
    {"dense.mali", "[[\"TENSOR\", [1, 512], \"float32\"], [\"TENSOR\", [1000, 512], \"float32\"], null, \"float32\"]", 403, 1,
     {{"dense_kernel", {1000, 1, 1}, {5, 1, 1}, false}}},
    /* TopHub: bna 4 bnb 4 tile_t1 [-1,64] tile_t2 [-1,4] yt 8 (conv2d.py _schedule_winograd, m = 4):
     * U tile_and_bind(co/bna, ci, 1, 256) -> local (256, 1); V fuse(p, ci) split by 64 over
     * P/bnb = 49 tile blocks x 64 channels; M tile_and_bind3d(eps.nu 36, co/bna 16, p/bnb 49, 1,
     * yt 8, 1) -> local (1, 8, 1); output fuse(n, co, h/m, w/m) = 12544 split by tile_t2 4 */
    {"conv2d_nchw_winograd.mali", R18_C2, 16437, 4,
     {{"U_kernel", {256, 16, 1}, {256, 1, 1}, true},
      {"V_kernel", {3136, 1, 1}, {64, 1, 1}, false},
      {"M_kernel", {49, 16, 36}, {1, 8, 1}, false},
      {"output_kernel", {12544, 1, 1}, {4, 1, 1}, false}}},
};

static void launches_should_match_tvms_geometry(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const geom_case *g = &cases[c];
        at_task *t;
        at_config *cfg;
        at_arena *a;
        const at_ir_program *p;
        at_ocl_code code;
        assert_ok(at_task_create(g->tmpl, AT_TARGET_OPENCL, g->args, &t));
        assert_ok(at_task_config(t, g->config, &cfg));
        assert_ok(at_arena_new(0, &a));
        assert_ok(at_task_instantiate(t, cfg, a, &p));
        assert_ok(at_ocl_emit(p, &code));
        if (code.n_kernels != g->n_kernels) print_error("%s config %lld: %zu kernels\n", g->tmpl, (long long)g->config, code.n_kernels);
        assert_int_equal(code.n_kernels, g->n_kernels);
        for (size_t k = 0; k < g->n_kernels; k++) {
            const at_ocl_kernel_info *ki = &code.kernels[k];
            const kernel_geom *want = &g->k[k];
            for (int d = 0; d < 3; d++) {
                size_t gws = d < (int)ki->work_dim ? ki->gws[d] : 1, lws = d < (int)ki->work_dim ? ki->lws[d] : 1;
                if (gws != want->gws[d] || lws != want->lws[d])
                    print_error("%s config %lld kernel %s dim %d: global %zu local %zu, TVM's %zu %zu\n", g->tmpl,
                                (long long)g->config, ki->name, d, gws, lws, want->gws[d], want->lws[d]);
                assert_int_equal(gws, want->gws[d]);
                assert_int_equal(lws, want->lws[d]);
            }
            assert_string_equal(ki->name, want->name);
            assert_int_equal(ki->prepare, want->prepare);
        }
        at_ocl_code_fini(&code);
        at_arena_free(a);
        at_config_free(cfg);
        at_task_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(launches_should_match_tvms_geometry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
