/* The small ONNX model of the grouped-convolution tests (test_group_conv, test_group_conv_ocl),
 * written with test_onnx_support.h's builders. */
#ifndef AT_TESTS_SUPPORT_TEST_GROUP_CONV_SUPPORT_H
#define AT_TESTS_SUPPORT_TEST_GROUP_CONV_SUPPORT_H

#include "tests/support/test_onnx_support.h"

/* A tensor attribute of n int64 values (rank 1): a Constant node's value. */
static inline void attr_tensor_i64(const char *name, size_t n, int64_t *v)
{
    static Onnx__TensorProto t;
    static int64_t dim;
    onnx__tensor_proto__init(&t);
    dim = (int64_t)n;
    t.n_dims = 1;
    t.dims = &dim;
    t.has_data_type = 1;
    t.data_type = 7;
    t.n_int64_data = n;
    t.int64_data = v;
    Onnx__AttributeProto *a = &attrs[n_attrs];
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    a->t = &t;
    attr_ptrs[n_attrs++] = a;
}

/* x [1, 4, 6, 6] -> Conv (group 2, 8 channels, bias) -> Relu -> channel shuffle of 2 groups, as
 * torch.onnx writes it (the final Reshape's shape a Constant node after the Transpose) -> Conv
 * (group 4, stride 2) -> Relu. */
static inline uint8_t *grouped_model(size_t *len)
{
    reset();
    static int64_t w1d[4] = {8, 2, 3, 3}, b1d[1] = {8}, w2d[4] = {8, 2, 3, 3}, k3[2] = {3, 3}, p1[4] = {1, 1, 1, 1}, s2[2] = {2, 2};
    static int64_t s5[5] = {1, 2, 4, 6, 6}, s4[4] = {1, -1, 6, 6}, perm[5] = {0, 2, 1, 3, 4};
    init_f("w1", 4, w1d, 1);
    init_f("b1", 1, b1d, 2);
    init_f("w2", 4, w2d, 3);
    init_i64("s5", 5, s5);
    attr_ints("kernel_shape", 2, k3);
    attr_ints("pads", 4, p1);
    attr_int("group", 2);
    node("Conv", "conv1", "x,w1,b1", "c1", 3);
    node("Relu", "relu1", "c1", "r1", 0);
    node("Reshape", "split", "r1,s5", "rs", 0);
    attr_ints("perm", 5, perm);
    node("Transpose", "swap", "rs", "tr", 1);
    attr_tensor_i64("value", 4, s4);
    node("Constant", "shape4", "", "s4", 1);
    node("Reshape", "merge", "tr,s4", "sh", 0);
    attr_ints("kernel_shape", 2, k3);
    attr_ints("pads", 4, p1);
    attr_ints("strides", 2, s2);
    attr_int("group", 4);
    node("Conv", "conv2", "sh,w2", "c2", 4);
    node("Relu", "relu2", "c2", "y", 0);
    const int64_t dims[4] = {1, 4, 6, 6};
    return pack(dims, false, 13, len);
}

#endif
