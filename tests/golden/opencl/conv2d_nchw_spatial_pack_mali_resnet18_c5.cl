// conv2d_nchw_spatial_pack.mali [["TENSOR", [1, 64, 56, 56], "float32"], ["TENSOR", [128, 64, 3, 3], "float32"], [2, 2], [1, 1, 1, 1], [1, 1], "float32"] config 1255196
// kernel kernel_vec_kernel: global 18432 1 1, local 256 1 1
// kernel data_vec_kernel: global 64 7 28, local 1 1 1
// kernel conv_kernel: global 7 28 32, local 7 1 32
// kernel output_unpack_kernel: global 28 28 128, local 7 1 32
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void kernel_vec_kernel(__global float* restrict kernel_, __global float* restrict kernel_vec) {
  int bb = convert_int(get_group_id(0));
  int tt = convert_int(get_local_id(0));
  {
    vstore4(((float4)(kernel_[(((((bb * 256) + tt) / 576) * 2304) + (((((bb * 256) + tt) / 9) & 63) * 9) + (((((bb * 256) + tt) / 3) % 3) * 3) + (((bb * 256) + tt) % 3))], kernel_[(((((bb * 256) + tt) / 576) * 2304) + (((((bb * 256) + tt) / 9) & 63) * 9) + (((((bb * 256) + tt) / 3) % 3) * 3) + (((bb * 256) + tt) % 3) + 576)], kernel_[(((((bb * 256) + tt) / 576) * 2304) + (((((bb * 256) + tt) / 9) & 63) * 9) + (((((bb * 256) + tt) / 3) % 3) * 3) + (((bb * 256) + tt) % 3) + 1152)], kernel_[(((((bb * 256) + tt) / 576) * 2304) + (((((bb * 256) + tt) / 9) & 63) * 9) + (((((bb * 256) + tt) / 3) % 3) * 3) + (((bb * 256) + tt) % 3) + 1728)])), 0, kernel_vec + ((bb * 1024) + (tt * 4)));
  }
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void data_vec_kernel(__global float* restrict data, __global float* restrict data_vec) {
  int h = convert_int(get_group_id(2));
  int w = convert_int(get_group_id(1));
  int ci = convert_int(get_group_id(0));
  {
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40))] = ((((h * 2) >= 1) && ((w * 8) >= 1)) ? data[((h * 112) + (w * 8) + (ci * 3136) - 57)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 1)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 56)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 2)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 55)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 3)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 54)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 4)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 53)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 5)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 52)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 6)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 51)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 7)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 50)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 8)] = (((h * 2) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 49)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 9)] = ((((h * 2) >= 1) && (((w * 8) + 9) < 57)) ? data[((h * 112) + (w * 8) + (ci * 3136) - 48)] : 0.0f);
    }
  }
  {
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 10)] = (((w * 8) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) - 1)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 11)] = data[((h * 112) + (w * 8) + (ci * 3136))];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 12)] = data[((h * 112) + (w * 8) + (ci * 3136) + 1)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 13)] = data[((h * 112) + (w * 8) + (ci * 3136) + 2)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 14)] = data[((h * 112) + (w * 8) + (ci * 3136) + 3)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 15)] = data[((h * 112) + (w * 8) + (ci * 3136) + 4)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 16)] = data[((h * 112) + (w * 8) + (ci * 3136) + 5)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 17)] = data[((h * 112) + (w * 8) + (ci * 3136) + 6)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 18)] = data[((h * 112) + (w * 8) + (ci * 3136) + 7)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 19)] = ((((w * 8) + 9) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 8)] : 0.0f);
    }
  }
  {
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 20)] = (((w * 8) >= 1) ? data[((h * 112) + (w * 8) + (ci * 3136) + 55)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 21)] = data[((h * 112) + (w * 8) + (ci * 3136) + 56)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 22)] = data[((h * 112) + (w * 8) + (ci * 3136) + 57)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 23)] = data[((h * 112) + (w * 8) + (ci * 3136) + 58)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 24)] = data[((h * 112) + (w * 8) + (ci * 3136) + 59)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 25)] = data[((h * 112) + (w * 8) + (ci * 3136) + 60)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 26)] = data[((h * 112) + (w * 8) + (ci * 3136) + 61)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 27)] = data[((h * 112) + (w * 8) + (ci * 3136) + 62)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 28)] = data[((h * 112) + (w * 8) + (ci * 3136) + 63)];
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 29)] = ((((w * 8) + 9) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 64)] : 0.0f);
    }
  }
  {
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 30)] = (((((h * 2) + 3) < 57) && ((w * 8) >= 1)) ? data[((h * 112) + (w * 8) + (ci * 3136) + 111)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 31)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 112)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 32)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 113)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 33)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 114)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 34)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 115)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 35)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 116)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 36)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 117)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 37)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 118)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 38)] = ((((h * 2) + 3) < 57) ? data[((h * 112) + (w * 8) + (ci * 3136) + 119)] : 0.0f);
    }
    {
      data_vec[((h * 17920) + (w * 2560) + (ci * 40) + 39)] = (((((h * 2) + 3) < 57) && (((w * 8) + 9) < 57)) ? data[((h * 112) + (w * 8) + (ci * 3136) + 120)] : 0.0f);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(7, 1, 32)))
void conv_kernel(__global float* restrict kernel_vec, __global float* restrict data_vec, __global float* restrict conv) {
  int h_o = convert_int(get_group_id(1));
  int c_i = convert_int(get_local_id(2));
  int w_i_1 = convert_int(get_local_id(0));
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16)));
    }
  }
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4));
    }
  }
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8));
    }
  }
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12));
    }
  }
  for (int ci_1 = 0; ci_1 < 64; ++ci_1) {
    for (int kh = 0; kh < 3; ++kh) {
      {
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16))) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10))])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16)));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 2)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 4)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 6)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12));
          }
        }
      }
      {
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16))) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 1)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16)));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 3)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 5)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 7)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12));
          }
        }
      }
      {
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16))) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 2)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16)));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 4)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 4));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 6)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 8));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12)) + (((float4)(data_vec[((h_o * 17920) + (w_i_1 * 2560) + (ci_1 * 40) + (kh * 10) + 8)])) * vload4(0, kernel_vec + ((c_i * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((h_o * 112) + (c_i * 3136) + (w_i_1 * 16) + 12));
          }
        }
      }
    }
  }
}

__kernel __attribute__((reqd_work_group_size(7, 1, 32)))
void output_unpack_kernel(__global float* restrict output, __global float* restrict conv) {
  int co_o = convert_int(get_group_id(2));
  int oh_o = convert_int(get_group_id(1));
  int ow_o = convert_int(get_group_id(0));
  int co_i = convert_int(get_local_id(2));
  int ow_i = convert_int(get_local_id(0));
  output[((co_o * 25088) + (oh_o * 28) + (ow_o * 7) + (co_i * 784) + ow_i)] = conv[((oh_o * 112) + ((((co_o * 32) + co_i) >> 2) * 3136) + (((co_o * 32) + co_i) & 3) + ((oh_o % 1) * 16) + ((((ow_o * 7) + ow_i) >> 2) * 16) + ((((ow_o * 7) + ow_i) & 3) * 4))];
}
