// depthwise_conv2d_nchw.mali [["TENSOR", [1, 32, 112, 112], "float32"], ["TENSOR", [32, 1, 3, 3], "float32"], [1, 1], [1, 1, 1, 1], [1, 1], "float32"] config 418680
// kernel pad_kernel: global 114 114 32, local 1 1 8
// kernel depthwise_conv2d_kernel: global 7 112 32, local 7 4 8
__kernel __attribute__((reqd_work_group_size(1, 1, 8)))
void pad_kernel(__global float* restrict data, __global float* restrict PaddedInput) {
  int c_o = convert_int(get_group_id(2));
  int h_o = convert_int(get_group_id(1));
  int w_o = convert_int(get_group_id(0));
  int c_i = convert_int(get_local_id(2));
  PaddedInput[((c_o * 103968) + (h_o * 114) + w_o + (c_i * 12996))] = (((((h_o >= 1) && (h_o < 113)) && (w_o >= 1)) && (w_o < 113)) ? data[((c_o * 100352) + (h_o * 112) + w_o + (c_i * 12544) - 113)] : 0.0f);
}

__kernel __attribute__((reqd_work_group_size(7, 4, 8)))
void depthwise_conv2d_kernel(__global float* restrict kernel_, __global float* restrict output, __global float* restrict PaddedInput) {
  float DepthwiseConv2d_local[16];
  int n_bc = convert_int(get_group_id(2));
  int bh = convert_int(get_group_id(1));
  int tc = convert_int(get_local_id(2));
  int th = convert_int(get_local_id(1));
  int tw = convert_int(get_local_id(0));
  {
    DepthwiseConv2d_local[0] = 0.0f;
  }
  {
    DepthwiseConv2d_local[1] = 0.0f;
  }
  {
    DepthwiseConv2d_local[2] = 0.0f;
  }
  {
    DepthwiseConv2d_local[3] = 0.0f;
  }
  {
    DepthwiseConv2d_local[4] = 0.0f;
  }
  {
    DepthwiseConv2d_local[5] = 0.0f;
  }
  {
    DepthwiseConv2d_local[6] = 0.0f;
  }
  {
    DepthwiseConv2d_local[7] = 0.0f;
  }
  {
    DepthwiseConv2d_local[8] = 0.0f;
  }
  {
    DepthwiseConv2d_local[9] = 0.0f;
  }
  {
    DepthwiseConv2d_local[10] = 0.0f;
  }
  {
    DepthwiseConv2d_local[11] = 0.0f;
  }
  {
    DepthwiseConv2d_local[12] = 0.0f;
  }
  {
    DepthwiseConv2d_local[13] = 0.0f;
  }
  {
    DepthwiseConv2d_local[14] = 0.0f;
  }
  {
    DepthwiseConv2d_local[15] = 0.0f;
  }
  {
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16))] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 1)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 2)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 3)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 4)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 5)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 6)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 7)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 8)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 9)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 10)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 11)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 12)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 13)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 14)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 15)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9))]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 1)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 2)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 3)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 4)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 5)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 6)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 7)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 8)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 9)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 10)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 11)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 12)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 13)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 14)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 15)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 16)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 1)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 2)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 3)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 4)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 5)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 6)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 7)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 8)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 9)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 10)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 11)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 12)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 13)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 14)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 15)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 16)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 17)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 2)]));
      }
    }
  }
  {
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 114)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 115)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 116)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 117)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 118)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 119)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 120)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 121)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 122)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 123)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 124)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 125)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 126)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 127)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 128)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 129)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 3)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 115)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 116)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 117)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 118)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 119)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 120)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 121)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 122)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 123)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 124)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 125)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 126)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 127)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 128)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 129)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 130)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 4)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 116)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 117)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 118)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 119)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 120)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 121)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 122)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 123)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 124)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 125)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 126)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 127)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 128)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 129)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 130)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 131)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 5)]));
      }
    }
  }
  {
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 228)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 229)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 230)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 231)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 232)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 233)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 234)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 235)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 236)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 237)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 238)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 239)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 240)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 241)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 242)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 243)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 6)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 229)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 230)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 231)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 232)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 233)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 234)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 235)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 236)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 237)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 238)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 239)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 240)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 241)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 242)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 243)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 244)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 7)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 230)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 231)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 232)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 233)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 234)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 235)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 236)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 237)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 238)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 239)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 240)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 241)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 242)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 243)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 244)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((n_bc >> 2) * 415872) + ((n_bc & 3) * 103968) + (bh * 456) + (tc * 12996) + (th * 114) + (tw * 16) + 245)] * kernel_[(((n_bc & 3) * 72) + (tc * 9) + (((((n_bc & 3) * 8) + tc) % 1) * 9) + 8)]));
      }
    }
  }
  for (int wi = 0; wi < 16; ++wi) {
    output[(((n_bc >> 2) * 401408) + ((n_bc & 3) * 100352) + (bh * 448) + (tc * 12544) + (th * 112) + (tw * 16) + wi)] = DepthwiseConv2d_local[wi];
  }
}
