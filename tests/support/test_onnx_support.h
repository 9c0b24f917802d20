/* Helpers of the ONNX import tests (include after test_support.h). Header only, as static
 * functions, like test_net_support.h: at_test_support links core/ alone, and these need networks/
 * and the generated protobuf-c code, which only the tests that include this header link.
 * - the official node tests Debian ships (libonnx-testdata: node/<test>/model.onnx with
 *   test_data_set_0/input_*.pb and output_0.pb) that the importer supports, and a runner that
 *   imports one (the first input as the network input, the others bound as constants) and checks
 *   the reference executor and a compiled backend against the expected output;
 * - a model builder over protobuf-c's structs for whole models written in the tests. */
#ifndef AT_TESTS_ONNX_SUPPORT_H
#define AT_TESTS_ONNX_SUPPORT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "networks/net.h"
#include "onnx.pb-c.h"
#include "tests/support/test_support.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node/"

/* The node tests the importer supports; every one must pass. */
static const char *const at_test_onnx_passing[] __attribute__((unused)) = {
    "test_relu", "test_sigmoid", "test_sigmoid_example", "test_hardsigmoid", "test_hardsigmoid_default",
    "test_hardsigmoid_example", "test_hardswish", "test_leakyrelu", "test_leakyrelu_default", "test_leakyrelu_example",
    "test_clip", "test_clip_default_inbounds", "test_clip_default_max", "test_clip_default_min", "test_clip_example",
    "test_clip_inbounds", "test_clip_outbounds", "test_clip_splitbounds",
    "test_conv_with_autopad_same", "test_conv_with_strides_and_asymmetric_padding", "test_conv_with_strides_no_padding",
    "test_conv_with_strides_padding",
    "test_maxpool_2d_default", "test_maxpool_2d_pads", "test_maxpool_2d_precomputed_pads",
    "test_maxpool_2d_precomputed_same_upper", "test_maxpool_2d_precomputed_strides", "test_maxpool_2d_same_lower",
    "test_maxpool_2d_same_upper", "test_maxpool_2d_strides",
    
    "test_batchnorm_epsilon", "test_batchnorm_example",
    "test_flatten_axis0", "test_flatten_axis1", "test_flatten_axis2", "test_flatten_axis3", "test_flatten_default_axis",
    "test_flatten_negative_axis1", "test_flatten_negative_axis2", "test_flatten_negative_axis3", "test_flatten_negative_axis4",
    "test_gemm_alpha", "test_gemm_beta", "test_gemm_default_no_bias",
    "test_gemm_default_scalar_bias", "test_gemm_default_single_elem_vector_bias", "test_gemm_default_vector_bias",
    "test_gemm_default_zero_bias", "test_gemm_transposeB", "test_matmul_2d",
    "test_reshape_extended_dims", "test_reshape_negative_dim", "test_reshape_negative_extended_dims",
    "test_reshape_one_dim", "test_reshape_reduced_dims", "test_reshape_reordered_all_dims",
    "test_reshape_reordered_last_dims", "test_reshape_zero_and_negative_dim", "test_reshape_zero_dim",
    "test_squeeze", "test_squeeze_negative_axes", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2", 
    
    "test_softmax_default_axis", "test_softmax_axis_2", "test_softmax_example", "test_softmax_large_number",
    "test_softmax_negative_axis", "test_identity", "test_dropout_default", "test_dropout_default_old",
    "test_dropout_random_old",
    /* broadcasting element-wise ops (the second operand bound as a constant: a constant node) */
    "test_add", "test_add_bcast", "test_sub", "test_sub_bcast", "test_sub_example", "test_mul", "test_mul_bcast",
    "test_mul_example", "test_div", "test_div_bcast", "test_div_example",
    "test_averagepool_2d_ceil", "test_averagepool_2d_default", "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad", "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper",
    "test_averagepool_2d_strides", "test_maxpool_2d_ceil",
    "test_constant_pad",
    "test_reduce_mean_default_axes_keepdims_example", "test_reduce_mean_default_axes_keepdims_random",
    "test_reduce_mean_do_not_keepdims_example", "test_reduce_mean_do_not_keepdims_random",
    "test_reduce_mean_keepdims_example", "test_reduce_mean_keepdims_random",
    "test_reduce_mean_negative_axes_keepdims_example", "test_reduce_mean_negative_axes_keepdims_random",
    "test_transpose_default", "test_transpose_all_permutations_0", "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2", "test_transpose_all_permutations_3", "test_transpose_all_permutations_4",
    "test_transpose_all_permutations_5",
    "test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0", "test_concat_3d_axis_1",
    "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1", "test_concat_3d_axis_negative_2",
    "test_concat_3d_axis_negative_3",
    "test_gemm_transposeA", "test_gemm_all_attributes", "test_gemm_default_matrix_bias",
    /* ConvTranspose, 2-D (the 1-D and 3-D node tests are refused) */
    "test_convtranspose", "test_convtranspose_autopad_same", "test_convtranspose_dilations",
    "test_convtranspose_kernel_shape", "test_convtranspose_output_shape", "test_convtranspose_pad",
    "test_convtranspose_pads", "test_convtranspose_with_kernel",
    /* Resize / Upsample: nearest and linear, 2-D NCHW (cubic and tf_crop_and_resize refused) */
    "test_resize_downsample_scales_linear", "test_resize_downsample_scales_linear_align_corners",
    "test_resize_downsample_scales_nearest", "test_resize_downsample_sizes_linear_pytorch_half_pixel",
    "test_resize_downsample_sizes_nearest", "test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn",
    "test_resize_upsample_scales_linear", "test_resize_upsample_scales_linear_align_corners",
    "test_resize_upsample_scales_nearest", "test_resize_upsample_sizes_nearest",
    "test_resize_upsample_sizes_nearest_ceil_half_pixel", "test_resize_upsample_sizes_nearest_floor_align_corners",
    "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric", "test_upsample_nearest",
    "test_slice", "test_slice_default_axes", "test_slice_default_steps", "test_slice_end_out_of_bounds",
    "test_slice_neg", "test_slice_negative_axes",
};

static inline uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *p = at_malloc((size_t)(n > 0 ? n : 1));
    if (p && fread(p, 1, (size_t)n, fp) != (size_t)n) {
        at_free(p);
        p = NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return p;
}

/* The float values of a TensorProto file (raw_data or float_data); *n their count. */
static inline float *tensor_floats(const char *path, int64_t *n)
{
    size_t len;
    uint8_t *b = slurp(path, &len);
    assert_non_null(b);
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, b);
    assert_non_null(t);
    assert_int_equal(t->data_type, 1);
    *n = 1;
    for (size_t d = 0; d < t->n_dims; d++) *n *= t->dims[d];
    float *f = at_malloc((size_t)(*n ? *n : 1) * sizeof *f);
    assert_non_null(f);
    if (t->has_raw_data) memcpy(f, t->raw_data.data, (size_t)*n * sizeof *f);
    else memcpy(f, t->float_data, (size_t)*n * sizeof *f);
    onnx__tensor_proto__free_unpacked(t, NULL);
    at_free(b);
    return f;
}

static inline void expect_close(const char *test, const char *who, const float *got, const float *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double tol = 1e-5 + 1e-4 * fabs(want[i]);
        if (!(fabs((double)got[i] - want[i]) <= tol))
            fail_msg("%s (%s): element %lld is %.9g, expected %.9g", test, who, (long long)i, got[i], want[i]);
    }
}

/* Imports node test `test`, checks the reference executor's output, then the tuned executor's on
 * backend be (ctx: its context) with target's templates at their fallback configs (who names it
 * in failures). AT_ONNX_SURVEY=1 prints import failures instead of failing. */
static inline void at_test_onnx_node_run(const char *test, at_net_target target, const at_net_backend_i *be, void *ctx,
                                         const char *who)
{
    char path[512];
    snprintf(path, sizeof path, NODE_DIR "%s/model.onnx", test);
    size_t len;
    uint8_t *model = slurp(path, &len);
    if (!model) fail_msg("%s: cannot read (is libonnx-testdata installed?)", path);
    /* inputs 1.. bound as constants */
    uint8_t *bound[8];
    size_t bound_len[8], nb = 0;
    for (; nb < 8; nb++) {
        snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/input_%zu.pb", test, nb + 1);
        if (!(bound[nb] = slurp(path, &bound_len[nb]))) break;
    }
    at_net_onnx_opts xo = {.bound = (const uint8_t *const *)bound, .bound_len = bound_len, .n_bound = nb};
    at_net *raw, *net;
    at_status st = at_net_onnx_parse(model, len, test, NULL, NULL, &xo, &raw);
    if (st != AT_OK && getenv("AT_ONNX_SURVEY")) {
        printf("FAIL %s: %s\n", test, at_last_error());
        for (size_t k = 0; k < nb; k++) at_free(bound[k]);
        at_free(model);
        return;
    }
    if (st != AT_OK) fail_msg("%s: %s", test, at_last_error());
    if (getenv("AT_ONNX_SURVEY")) printf("ok %s\n", test);
    assert_ok(at_net_fuse(raw, &net));
    int64_t n_in, n_out;
    snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/input_0.pb", test);
    float *x = tensor_floats(path, &n_in);
    snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/output_0.pb", test);
    float *want = tensor_floats(path, &n_out);
    assert_int_equal(n_in, at_net_node_numel(at_net_node_at(net, 0)));
    size_t out = at_net_output(net);
    assert_int_equal(n_out, at_net_node_numel(at_net_node_at(net, out)));
    at_net_values *ref;
    assert_ok(at_net_run_reference(net, x, false, &ref));
    expect_close(test, "reference", at_net_values_get(ref, out), want, n_out);
    at_net_values_free(ref);
    at_net_tasks *ts;
    at_net_plan *plan;
    at_net_exec *e;
    assert_ok(at_net_extract(net, target, AT_NET_OPS_ALL, &ts));
    assert_ok(at_net_plan_new(net, ts, at_net_dispatch_fallback, NULL, &plan));
    assert_ok(at_net_exec_new(net, plan, be, ctx, &e));
    float *got = at_malloc((size_t)n_out * sizeof *got);
    assert_non_null(got);
    assert_ok(at_net_exec_set_input(e, x));
    assert_ok(at_net_exec_run(e, NULL));
    assert_ok(at_net_exec_get(e, out, got));
    expect_close(test, who, got, want, n_out);
    at_free(got);
    at_net_exec_free(e);
    at_net_plan_free(plan);
    at_net_tasks_free(ts);
    at_free(x);
    at_free(want);
    for (size_t k = 0; k < nb; k++) at_free(bound[k]);
    at_free(model);
    at_net_free(net);
    at_net_free(raw);
}

/* protobuf-c's message structs hold char * even for strings only read when packing: the
 * test points them at literals. */
#pragma GCC diagnostic ignored "-Wcast-qual"

/* ---- a model builder over protobuf-c's structs (arrays live in static pools) ---- */

enum { MAXN = 64 };
#define AT_UNUSED __attribute__((unused))
static Onnx__NodeProto nodes[MAXN] AT_UNUSED, *node_ptrs[MAXN] AT_UNUSED;
static Onnx__AttributeProto attrs[MAXN * 4] AT_UNUSED, *attr_ptrs[MAXN * 4] AT_UNUSED;
static Onnx__TensorProto inits[MAXN] AT_UNUSED, *init_ptrs[MAXN] AT_UNUSED;
static char *ios[MAXN * 8] AT_UNUSED;
static size_t n_nodes AT_UNUSED, n_attrs AT_UNUSED, n_inits AT_UNUSED, n_ios AT_UNUSED;
static float weights[MAXN][512] AT_UNUSED;

static inline void reset(void)
{
    n_nodes = n_attrs = n_inits = n_ios = 0;
}

static inline Onnx__AttributeProto *attr_ints(const char *name, size_t n, int64_t *v)
{
    Onnx__AttributeProto *a = &attrs[n_attrs];
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    a->n_ints = n;
    a->ints = v;
    attr_ptrs[n_attrs] = a;
    n_attrs++;
    return a;
}

static inline Onnx__AttributeProto *attr_int(const char *name, int64_t v)
{
    Onnx__AttributeProto *a = &attrs[n_attrs];
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a->has_i = 1;
    a->i = v;
    attr_ptrs[n_attrs++] = a;
    return a;
}

static inline Onnx__AttributeProto *attr_str(const char *name, const char *v)
{
    Onnx__AttributeProto *a = &attrs[n_attrs];
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    a->has_s = 1;
    a->s.len = strlen(v);
    a->s.data = (uint8_t *)v;
    attr_ptrs[n_attrs++] = a;
    return a;
}

/* node(op, name, inputs "a,b,c" ("" none), output, with the last n_a attributes made). */
static char names[MAXN * 8][32] AT_UNUSED;
static inline void node(const char *op, const char *name, const char *inputs, const char *out, size_t n_a)
{
    Onnx__NodeProto *n = &nodes[n_nodes];
    onnx__node_proto__init(n);
    n->op_type = (char *)op;
    n->name = (char *)name;
    n->input = &ios[n_ios];
    for (const char *p = inputs; *p;) {
        size_t k = strcspn(p, ",");
        snprintf(names[n_ios], sizeof names[0], "%.*s", (int)k, p);
        ios[n_ios] = names[n_ios];
        n_ios++;
        n->n_input++;
        p += k + (p[k] == ',');
    }
    n->output = &ios[n_ios];
    ios[n_ios++] = (char *)out;
    n->n_output = 1;
    n->n_attribute = n_a;
    n->attribute = &attr_ptrs[n_attrs - n_a];
    node_ptrs[n_nodes++] = n;
}

/* An initializer of float values drawn from seed (or int64 values when ints). */
static inline float *init_f(const char *name, size_t rank, const int64_t *dims, uint64_t seed)
{
    Onnx__TensorProto *t = &inits[n_inits];
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    t->n_dims = rank;
    t->dims = (int64_t *)dims;
    t->has_data_type = 1;
    t->data_type = 1;
    int64_t n = 1;
    for (size_t d = 0; d < rank; d++) n *= dims[d];
    at_rng r;
    at_rng_seed(&r, seed);
    for (int64_t i = 0; i < n; i++) weights[n_inits][i] = (float)(at_rng_uniform(&r) * 1.2 - 0.4);
    t->has_raw_data = 1; /* weights as raw_data, as torch.onnx writes them */
    t->raw_data.len = (size_t)n * sizeof(float);
    t->raw_data.data = (uint8_t *)weights[n_inits];
    init_ptrs[n_inits++] = t;
    return weights[n_inits - 1];
}

/* An int64 initializer of n values (rank 1), or a scalar (rank 0) when n is 0. */
static inline void init_i64(const char *name, size_t n, int64_t *v)
{
    Onnx__TensorProto *t = &inits[n_inits];
    onnx__tensor_proto__init(t);
    t->name = (char *)name;
    static int64_t dim[MAXN];
    dim[n_inits] = (int64_t)n;
    t->n_dims = n ? 1 : 0;
    t->dims = &dim[n_inits];
    t->has_data_type = 1;
    t->data_type = 7;
    t->n_int64_data = n ? n : 1; /* typed field, as other exporters write small tensors */
    t->int64_data = v;
    init_ptrs[n_inits++] = t;
}

/* Packs the model (input "x" of dims[4] with a symbolic batch when sym, output "y"). */
static inline uint8_t *pack(const int64_t dims[4], bool sym, int64_t opset, size_t *len)
{
    static Onnx__TensorShapeProto__Dimension dim[4], *dim_ptrs[4];
    static Onnx__TensorShapeProto shape;
    static Onnx__TypeProto__Tensor tt;
    static Onnx__TypeProto type;
    static Onnx__ValueInfoProto in, out, *in_ptr, *out_ptr;
    static Onnx__GraphProto g;
    static Onnx__OperatorSetIdProto ops, *ops_ptr;
    static Onnx__ModelProto m;
    onnx__tensor_shape_proto__init(&shape);
    for (int d = 0; d < 4; d++) {
        onnx__tensor_shape_proto__dimension__init(&dim[d]);
        if (d == 0 && sym) {
            dim[d].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dim[d].dim_param = (char *)"batch";
        } else {
            dim[d].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dim[d].dim_value = dims[d];
        }
        dim_ptrs[d] = &dim[d];
    }
    shape.n_dim = 4;
    shape.dim = dim_ptrs;
    onnx__type_proto__tensor__init(&tt);
    tt.has_elem_type = 1;
    tt.elem_type = 1;
    tt.shape = &shape;
    onnx__type_proto__init(&type);
    type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type.tensor_type = &tt;
    onnx__value_info_proto__init(&in);
    in.name = (char *)"x";
    in.type = &type;
    onnx__value_info_proto__init(&out);
    out.name = (char *)"y";
    in_ptr = &in;
    out_ptr = &out;
    onnx__graph_proto__init(&g);
    g.name = (char *)"g";
    g.n_node = n_nodes;
    g.node = node_ptrs;
    g.n_initializer = n_inits;
    g.initializer = init_ptrs;
    g.n_input = 1;
    g.input = &in_ptr;
    g.n_output = 1;
    g.output = &out_ptr;
    onnx__operator_set_id_proto__init(&ops);
    ops.domain = (char *)"";
    ops.has_version = 1;
    ops.version = opset;
    ops_ptr = &ops;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.n_opset_import = 1;
    m.opset_import = &ops_ptr;
    m.graph = &g;
    *len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = at_malloc(*len);
    assert_non_null(buf);
    onnx__model_proto__pack(&m, buf);
    return buf;
}

#endif
