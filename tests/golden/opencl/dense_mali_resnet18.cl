// dense.mali [["TENSOR", [1, 512], "float32"], ["TENSOR", [1000, 512], "float32"], null, "float32"] config 403
// kernel dense_kernel: global 1000 1 1, local 5 1 1
__kernel __attribute__((reqd_work_group_size(5, 1, 1)))
void dense_kernel(__global float* restrict data, __global float* restrict weight, __global float* restrict output) {
  float dense_local[1];
  int bx = convert_int(get_group_id(0));
  int tx = convert_int(get_local_id(0));
  dense_local[0] = 0.0f;
  for (int k_outer = 0; k_outer < 32; ++k_outer) {
    {
      dense_local[0] = (dense_local[0] + (data[(k_outer * 16)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16))]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 1)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 1)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 2)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 2)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 3)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 3)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 4)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 4)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 5)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 5)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 6)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 6)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 7)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 7)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 8)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 8)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 9)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 9)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 10)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 10)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 11)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 11)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 12)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 12)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 13)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 13)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 14)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 14)]));
    }
    {
      dense_local[0] = (dense_local[0] + (data[((k_outer * 16) + 15)] * weight[((bx * 2560) + (tx * 512) + (k_outer * 16) + 15)]));
    }
  }
  output[((bx * 5) + tx)] = dense_local[0];
}
