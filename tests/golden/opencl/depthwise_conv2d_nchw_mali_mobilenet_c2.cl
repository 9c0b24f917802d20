// depthwise_conv2d_nchw.mali [["TENSOR", [1, 32, 112, 112], "float32"], ["TENSOR", [32, 1, 3, 3], "float32"], [1, 1], [1, 1, 1, 1], [1, 1], "float32"] config 418680
// kernel pad_kernel: global 114 114 32, local 1 1 8
// kernel depthwise_conv2d_kernel: global 7 112 32, local 7 4 8
__kernel __attribute__((reqd_work_group_size(1, 1, 8)))
void pad_kernel(__global float* restrict data, __global float* restrict PaddedInput) {
  PaddedInput[((convert_int(get_group_id(2)) * 103968) + (convert_int(get_group_id(1)) * 114) + convert_int(get_group_id(0)) + (convert_int(get_local_id(2)) * 12996))] = (((((convert_int(get_group_id(1)) >= 1) && (convert_int(get_group_id(1)) < 113)) && (convert_int(get_group_id(0)) >= 1)) && (convert_int(get_group_id(0)) < 113)) ? data[((convert_int(get_group_id(2)) * 100352) + (convert_int(get_group_id(1)) * 112) + convert_int(get_group_id(0)) + (convert_int(get_local_id(2)) * 12544) - 113)] : 0.0f);
}

__kernel __attribute__((reqd_work_group_size(7, 4, 8)))
void depthwise_conv2d_kernel(__global float* restrict kernel_, __global float* restrict output, __global float* restrict PaddedInput) {
  float DepthwiseConv2d_local[16];
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
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16))] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 1)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 2)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 3)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 4)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 5)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 6)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 7)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 8)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 9)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 10)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 11)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 12)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 13)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 14)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 15)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9))]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 1)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 2)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 3)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 4)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 5)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 6)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 7)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 8)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 9)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 10)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 11)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 12)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 13)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 14)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 15)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 16)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 1)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 2)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 3)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 4)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 5)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 6)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 7)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 8)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 9)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 10)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 11)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 12)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 13)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 14)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 15)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 16)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 17)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 2)]));
      }
    }
  }
  {
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 114)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 115)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 116)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 117)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 118)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 119)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 120)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 121)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 122)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 123)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 124)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 125)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 126)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 127)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 128)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 129)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 3)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 115)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 116)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 117)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 118)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 119)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 120)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 121)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 122)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 123)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 124)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 125)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 126)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 127)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 128)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 129)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 130)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 4)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 116)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 117)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 118)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 119)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 120)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 121)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 122)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 123)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 124)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 125)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 126)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 127)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 128)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 129)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 130)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 131)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 5)]));
      }
    }
  }
  {
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 228)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 229)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 230)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 231)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 232)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 233)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 234)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 235)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 236)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 237)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 238)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 239)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 240)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 241)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 242)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 243)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 6)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 229)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 230)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 231)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 232)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 233)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 234)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 235)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 236)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 237)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 238)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 239)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 240)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 241)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 242)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 243)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 244)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 7)]));
      }
    }
    {
      {
        DepthwiseConv2d_local[0] = (DepthwiseConv2d_local[0] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 230)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[1] = (DepthwiseConv2d_local[1] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 231)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[2] = (DepthwiseConv2d_local[2] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 232)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[3] = (DepthwiseConv2d_local[3] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 233)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[4] = (DepthwiseConv2d_local[4] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 234)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[5] = (DepthwiseConv2d_local[5] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 235)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[6] = (DepthwiseConv2d_local[6] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 236)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[7] = (DepthwiseConv2d_local[7] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 237)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[8] = (DepthwiseConv2d_local[8] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 238)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[9] = (DepthwiseConv2d_local[9] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 239)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[10] = (DepthwiseConv2d_local[10] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 240)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[11] = (DepthwiseConv2d_local[11] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 241)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[12] = (DepthwiseConv2d_local[12] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 242)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[13] = (DepthwiseConv2d_local[13] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 243)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[14] = (DepthwiseConv2d_local[14] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 244)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
      {
        DepthwiseConv2d_local[15] = (DepthwiseConv2d_local[15] + (PaddedInput[(((convert_int(get_group_id(2)) >> 2) * 415872) + ((convert_int(get_group_id(2)) & 3) * 103968) + (convert_int(get_group_id(1)) * 456) + (convert_int(get_local_id(2)) * 12996) + (convert_int(get_local_id(1)) * 114) + (convert_int(get_local_id(0)) * 16) + 245)] * kernel_[(((convert_int(get_group_id(2)) & 3) * 72) + (convert_int(get_local_id(2)) * 9) + (((((convert_int(get_group_id(2)) & 3) * 8) + convert_int(get_local_id(2))) % 1) * 9) + 8)]));
      }
    }
  }
  for (int wi = 0; wi < 16; ++wi) {
    output[(((convert_int(get_group_id(2)) >> 2) * 401408) + ((convert_int(get_group_id(2)) & 3) * 100352) + (convert_int(get_group_id(1)) * 448) + (convert_int(get_local_id(2)) * 12544) + (convert_int(get_local_id(1)) * 112) + (convert_int(get_local_id(0)) * 16) + wi)] = DepthwiseConv2d_local[wi];
  }
}
