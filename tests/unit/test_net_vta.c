/* networks/vta: the quantized, packed resnet18_v1 -- its 10 conv2d_packed.vta tasks in the VTA
 * tutorial's order with TVM's workload args, its layer structure and quantization, and the
 * reference executor against direct unpacked integer arithmetic. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "networks/vta.h"

/* spec/templates_vta.md §5.6, in extraction order: data, kernel, stride, pad; space and FLOPs. */
static const struct {
    const char *args;
    long long   space;
    double      flop;
} want_tasks[10] = {
    {"[[\"TENSOR\", [1, 16, 14, 14, 1, 16], \"int8\"], [\"TENSOR\", [32, 16, 1, 1, 16, 16], \"int8\"], [2, 2], [0, 0, 0, 0], [1, 1], \"NCHW1n16c\", \"int32\"]", 480, 12845056},
    {"[[\"TENSOR\", [1, 8, 28, 28, 1, 16], \"int8\"], [\"TENSOR\", [16, 8, 1, 1, 16, 16], \"int8\"], [2, 2], [0, 0, 0, 0], [1, 1], \"NCHW1n16c\", \"int32\"]", 1280, 12845056},
    {"[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int8\"], [\"TENSOR\", [8, 4, 1, 1, 16, 16], \"int8\"], [2, 2], [0, 0, 0, 0], [1, 1], \"NCHW1n16c\", \"int32\"]", 1728, 12845056},
    {"[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int8\"], [\"TENSOR\", [4, 4, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 2304, 231211008},
    {"[[\"TENSOR\", [1, 8, 28, 28, 1, 16], \"int8\"], [\"TENSOR\", [8, 8, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 2304, 231211008},
    {"[[\"TENSOR\", [1, 4, 56, 56, 1, 16], \"int8\"], [\"TENSOR\", [8, 4, 3, 3, 16, 16], \"int8\"], [2, 2], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 1728, 115605504},
    {"[[\"TENSOR\", [1, 16, 14, 14, 1, 16], \"int8\"], [\"TENSOR\", [16, 16, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 1600, 231211008},
    {"[[\"TENSOR\", [1, 8, 28, 28, 1, 16], \"int8\"], [\"TENSOR\", [16, 8, 3, 3, 16, 16], \"int8\"], [2, 2], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 1280, 115605504},
    {"[[\"TENSOR\", [1, 32, 7, 7, 1, 16], \"int8\"], [\"TENSOR\", [32, 32, 3, 3, 16, 16], \"int8\"], [1, 1], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 576, 231211008},
    {"[[\"TENSOR\", [1, 16, 14, 14, 1, 16], \"int8\"], [\"TENSOR\", [32, 16, 3, 3, 16, 16], \"int8\"], [2, 2], [1, 1, 1, 1], [1, 1], \"NCHW1n16c\", \"int32\"]", 480, 115605504},
};

static void tasks_should_be_the_tutorials_ten_in_order(void **state)
{
    (void)state;
    at_net_vta *net = NULL;
    assert_ok(at_net_vta_build("resnet-18", &(at_net_vta_opts){.no_weights = true}, &net));
    assert_false(at_net_vta_has_weights(net));
    size_t k = 0;
    for (size_t i = 0; i < at_net_vta_n_tasks(net); i++) {
        if (at_net_vta_task_is_alu(net, i)) continue;
        assert_true(k < 10);
        const at_task *t = at_net_vta_task(net, i);
        assert_string_equal(at_task_template(t)->name, "conv2d_packed.vta");
        assert_string_equal(at_net_vta_task_args_json(net, i), want_tasks[k].args);
        assert_int_equal(at_space_len(at_task_space(t)), want_tasks[k].space);
        assert_true(at_task_flop(t) == want_tasks[k].flop);
        k++;
    }
    assert_int_equal(k, 10);
    /* every conv layer has its task, and it has the layer's shape */
    for (size_t i = 0; i < at_net_vta_n_layers(net); i++) {
        const at_net_vta_layer *l = at_net_vta_layer_at(net, i);
        size_t ti = at_net_vta_layer_task(net, i);
        if (l->kind == AT_NET_VTA_ADD) continue;
        assert_true(ti < at_net_vta_n_tasks(net));
        assert_null(l->weight);
        const at_conv2d_packed_args *a = &at_task_args(at_net_vta_task(net, ti))->u.conv2d_packed;
        assert_int_equal(a->data[1], l->c_b);
        assert_int_equal(a->data[2], l->h);
        assert_int_equal(a->kernel[0], l->co_b);
        assert_int_equal(a->kernel[2], l->k);
        assert_int_equal(a->stride[0], l->stride);
    }
    /* the residual adds as add.vta tasks (when registered), lowered before the convs they call:
     * stage 4's first, interleaved with the projections */
    if (at_tmpl_find("add.vta", AT_TARGET_VTA)) {
        static const int64_t add_shape[4][3] = {{32, 7, 7}, {16, 14, 14}, {8, 28, 28}, {4, 56, 56}};
        static const long long add_space[4] = {24, 80, 144, 192}; /* tau(C/16) tau(H) tau(W) */
        assert_int_equal(at_net_vta_n_tasks(net), 14);
        for (int j = 0; j < 4; j++) {
            size_t i = (size_t)(2 * j);
            char want[200];
            snprintf(want, sizeof want,
                     "[[\"TENSOR\", [1, %lld, %lld, %lld, 1, 16], \"int32\"], [\"TENSOR\", [1, %lld, %lld, %lld, 1, 16], \"int32\"]]",
                     (long long)add_shape[j][0], (long long)add_shape[j][1], (long long)add_shape[j][2],
                     (long long)add_shape[j][0], (long long)add_shape[j][1], (long long)add_shape[j][2]);
            assert_true(at_net_vta_task_is_alu(net, i));
            assert_string_equal(at_task_template(at_net_vta_task(net, i))->name, "add.vta");
            assert_string_equal(at_net_vta_task_args_json(net, i), want);
            assert_int_equal(at_space_len(at_task_space(at_net_vta_task(net, i))), add_space[j]);
            assert_false(at_net_vta_task_is_alu(net, i + 1));
        }
    } else {
        assert_int_equal(at_net_vta_n_tasks(net), 10);
    }
    static float img[3 * 224 * 224], logits[1000];
    assert_int_equal(at_net_vta_run_reference(net, img, logits, NULL), AT_EINVAL);
    at_net_vta_free(net);
}

/* One network with weights for the tests below (a 32x32 image: the weights do not depend on it). */
static at_net_vta *net64;

static int build_net64(void **state)
{
    (void)state;
    return at_net_vta_build("resnet18_v1", &(at_net_vta_opts){.image_hw = 32, .num_classes = 10}, &net64) == AT_OK ? 0 : -1;
}

static int free_net64(void **state)
{
    (void)state;
    at_net_vta_free(net64);
    return 0;
}

static void network_should_be_gluon_resnet18_v1(void **state)
{
    (void)state;
    at_net_vta *net = net64;
    assert_true(at_net_vta_has_weights(net));
    size_t n_conv = 0, n_add = 0, n_proj = 0, n_relu_conv = 0;
    for (size_t i = 0; i < at_net_vta_n_layers(net); i++) {
        const at_net_vta_layer *l = at_net_vta_layer_at(net, i);
        assert_true(l->in[0] <= i && l->in[1] <= i); /* reads earlier values only */
        if (l->kind == AT_NET_VTA_ADD) {
            n_add++;
            assert_true(l->relu);
            continue;
        }
        n_conv++;
        n_proj += l->k == 1;
        n_relu_conv += l->relu;
        assert_true(l->shift >= 1 && l->shift <= 15);
        assert_int_equal(l->shift, 7 - l->w_exp);
        /* power-of-two scale: the largest weight uses the upper half of the int8 range */
        int64_t nw = l->co_b * l->c_b * l->k * l->k * 256, big = 0, lo = 0;
        for (int64_t j = 0; j < nw; j++) {
            lo = l->weight[j] < lo ? l->weight[j] : lo;
            big = abs(l->weight[j]) > big ? abs(l->weight[j]) : big;
        }
        assert_true(lo >= -127);
        assert_true(big >= 64);
    }
    assert_int_equal(n_conv, 19);     /* 16 3x3 + 3 projections */
    assert_int_equal(n_proj, 3);
    assert_int_equal(n_relu_conv, 8); /* the first conv of each unit */
    assert_int_equal(n_add, 8);
    assert_int_equal(at_net_vta_value_numel(net, 0), 64 * 8 * 8);
    assert_int_equal(at_net_vta_value_numel(net, at_net_vta_n_layers(net)), 512 * 1 * 1);
    assert_int_equal(at_net_vta_build("resnet-50", NULL, &net), AT_ENOTFOUND);
    assert_int_equal(at_net_vta_build("resnet-18", &(at_net_vta_opts){.image_hw = 100}, &net), AT_EINVAL);
    assert_true(at_net_vta_target_is("vta"));
    assert_true(at_net_vta_target_is("ext_dev -device=vta -keys=cpu -model=sim_1x16_i8w8a32_15_15_18_17"));
    assert_false(at_net_vta_target_is("opencl -device=mali"));
}

/* A small packed conv (2 -> 2 channel blocks, 5x5, 3x3 stride 2 pad 1) against the direct NCHW /
 * OIHW computation, then its epilogue on known accumulators. */
static void packed_conv_should_match_unpacked_integer_conv(void **state)
{
    (void)state;
    enum { CB = 2, COB = 2, H = 5, K = 3, S = 2, P = 1, OH = 3, C = CB * 16, CO = COB * 16 };
    static int8_t w[CO * C * K * K], x[C * H * H], wp[CO * C * K * K], xp[C * H * H], out[CO * OH * OH];
    static int32_t acc[CO * OH * OH], bias[CO];
    at_rng r;
    at_rng_seed(&r, 11);
    for (size_t i = 0; i < sizeof w; i++) w[i] = (int8_t)((int)at_rng_below(&r, 255) - 127);
    for (size_t i = 0; i < sizeof x; i++) x[i] = (int8_t)((int)at_rng_below(&r, 255) - 127);
    for (int o = 0; o < CO; o++)
        for (int i = 0; i < C; i++)
            for (int y = 0; y < K; y++)
                for (int z = 0; z < K; z++)
                    wp[((((o / 16) * CB + i / 16) * K + y) * K + z) * 256 + (o % 16) * 16 + i % 16] =
                        w[((o * C + i) * K + y) * K + z];
    for (int i = 0; i < C; i++)
        for (int y = 0; y < H; y++)
            for (int z = 0; z < H; z++) xp[(((i / 16) * H + y) * H + z) * 16 + i % 16] = x[(i * H + y) * H + z];
    for (int o = 0; o < CO; o++) bias[o] = o * 37 - 500;
    at_net_vta_layer l = {.kind = AT_NET_VTA_CONV, .c_b = CB, .h = H, .w = H, .co_b = COB, .oh = OH, .ow = OH,
                          .k = K, .stride = S, .pad = P, .weight = wp, .bias = bias, .shift = 9, .relu = true};
    at_net_vta_conv_acc(&l, xp, acc);
    const int8_t *in[2] = {xp, xp};
    assert_ok(at_net_vta_layer_ref(&l, in, out));
    size_t nonzero = 0, clipped = 0;
    for (int o = 0; o < CO; o++)
        for (int y = 0; y < OH; y++)
            for (int z = 0; z < OH; z++) {
                int32_t s = 0;
                for (int i = 0; i < C; i++)
                    for (int ky = 0; ky < K; ky++)
                        for (int kx = 0; kx < K; kx++) {
                            int iy = y * S - P + ky, ix = z * S - P + kx;
                            if (iy >= 0 && iy < H && ix >= 0 && ix < H)
                                s += x[(i * H + iy) * H + ix] * w[((o * C + i) * K + ky) * K + kx];
                        }
                size_t at = (((size_t)(o / 16) * OH + y) * OH + z) * 16 + o % 16;
                assert_int_equal(acc[at], s);
                int32_t v = s + bias[o];
                v = v < 0 ? 0 : v;
                v = (v + 256) >> 9; /* non-negative after relu: >> is a floor here */
                v = v > 127 ? 127 : v;
                assert_int_equal(out[at], v);
                nonzero += v != 0;
                clipped += v == 127;
            }
    assert_true(nonzero > 50);
    assert_true(clipped < (size_t)CO * OH * OH);
}

/* Rounding is upward, shifts are floors (negative values too), clip is [-127, 127]; adds align and
 * relu. */
static void epilogues_should_round_up_floor_and_clip(void **state)
{
    (void)state;
    int8_t a[16] = {0}, b[16] = {0}, out[16];
    at_net_vta_layer add = {.kind = AT_NET_VTA_ADD, .c_b = 1, .h = 1, .w = 1, .co_b = 1, .oh = 1, .ow = 1,
                            .lshift = {0, 1}, .shift = 1, .relu = false};
    const int8_t v0[] = {3, -3, 100, -100, 127, -128, 1, -1};
    const int8_t v1[] = {0, 0, 100, -100, 127, -128, 0, 0};
    for (int i = 0; i < 8; i++) a[i] = v0[i], b[i] = v1[i];
    const int8_t *in[2] = {a, b};
    assert_ok(at_net_vta_layer_ref(&add, in, out));
    /* (a + (b << 1) + 1) >> 1 */
    const int8_t want[] = {2, -1, 127, -127, 127, -127, 1, 0};
    for (int i = 0; i < 8; i++) assert_int_equal(out[i], want[i]);
    add.relu = true;
    assert_ok(at_net_vta_layer_ref(&add, in, out));
    assert_int_equal(out[1], 0);
    assert_int_equal(out[3], 0);
    assert_int_equal(out[0], 2);
}

/* The whole reference on a 32x32 image: deterministic, not degenerate (values neither all zero
 * nor all clipped), and sensitive to its input. */
static void reference_should_be_deterministic_and_informative(void **state)
{
    (void)state;
    at_net_vta *net = net64;
    float img[3 * 32 * 32], l1[10], l2[10], l3[10];
    at_net_vta_fill_image(net, 0, img);
    at_net_vta_values v = {0}, w = {0};
    assert_ok(at_net_vta_run_reference(net, img, l1, &v));
    assert_ok(at_net_vta_run_reference(net, img, l2, &w));
    assert_memory_equal(l1, l2, sizeof l1);
    assert_int_equal(v.n, at_net_vta_n_layers(net) + 1);
    for (size_t i = 0; i < v.n; i++) {
        int64_t n = at_net_vta_value_numel(net, i), zero = 0, sat = 0;
        assert_memory_equal(v.v[i], w.v[i], (size_t)n);
        for (int64_t j = 0; j < n; j++) zero += v.v[i][j] == 0, sat += v.v[i][j] == 127 || v.v[i][j] == -127;
        assert_true(zero < n);
        assert_true(sat < n / 2);
    }
    at_net_vta_fill_image(net, 1, img);
    assert_ok(at_net_vta_run_reference(net, img, l3, NULL));
    assert_memory_not_equal(l1, l3, sizeof l1);
    at_net_vta_values_fini(&v);
    at_net_vta_values_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tasks_should_be_the_tutorials_ten_in_order),
        cmocka_unit_test(network_should_be_gluon_resnet18_v1),
        cmocka_unit_test(packed_conv_should_match_unpacked_integer_conv),
        cmocka_unit_test(epilogues_should_round_up_floor_and_clip),
        cmocka_unit_test(reference_should_be_deterministic_and_informative),
    };
    return cmocka_run_group_tests(tests, build_net64, free_net64);
}
