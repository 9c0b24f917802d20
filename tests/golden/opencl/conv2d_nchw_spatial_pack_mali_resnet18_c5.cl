// conv2d_nchw_spatial_pack.mali [["TENSOR", [1, 64, 56, 56], "float32"], ["TENSOR", [128, 64, 3, 3], "float32"], [2, 2], [1, 1, 1, 1], [1, 1], "float32"] config 1255196
// kernel kernel_vec_kernel: global 18432 1 1, local 256 1 1
// kernel data_vec_kernel: global 64 7 28, local 1 1 1
// kernel conv_kernel: global 7 28 32, local 7 1 32
// kernel output_unpack_kernel: global 28 28 128, local 7 1 32
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void kernel_vec_kernel(__global float* restrict kernel_, __global float* restrict kernel_vec) {
  {
    vstore4(((float4)(kernel_[(((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 576) * 2304) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 9) & 63) * 9) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 3) % 3) * 3) + (((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) % 3))], kernel_[(((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 576) * 2304) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 9) & 63) * 9) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 3) % 3) * 3) + (((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) % 3) + 576)], kernel_[(((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 576) * 2304) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 9) & 63) * 9) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 3) % 3) * 3) + (((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) % 3) + 1152)], kernel_[(((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 576) * 2304) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 9) & 63) * 9) + (((((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) / 3) % 3) * 3) + (((convert_int(get_group_id(0)) * 256) + convert_int(get_local_id(0))) % 3) + 1728)])), 0, kernel_vec + ((convert_int(get_group_id(0)) * 1024) + (convert_int(get_local_id(0)) * 4)));
  }
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void data_vec_kernel(__global float* restrict data, __global float* restrict data_vec) {
  {
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40))] = ((((convert_int(get_group_id(2)) * 2) >= 1) && ((convert_int(get_group_id(1)) * 8) >= 1)) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 57)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 1)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 56)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 2)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 55)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 3)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 54)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 4)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 53)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 5)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 52)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 6)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 51)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 7)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 50)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 8)] = (((convert_int(get_group_id(2)) * 2) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 49)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 9)] = ((((convert_int(get_group_id(2)) * 2) >= 1) && (((convert_int(get_group_id(1)) * 8) + 9) < 57)) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 48)] : 0.0f);
    }
  }
  {
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 10)] = (((convert_int(get_group_id(1)) * 8) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) - 1)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 11)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136))];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 12)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 1)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 13)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 2)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 14)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 3)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 15)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 4)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 16)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 5)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 17)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 6)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 18)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 7)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 19)] = ((((convert_int(get_group_id(1)) * 8) + 9) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 8)] : 0.0f);
    }
  }
  {
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 20)] = (((convert_int(get_group_id(1)) * 8) >= 1) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 55)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 21)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 56)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 22)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 57)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 23)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 58)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 24)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 59)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 25)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 60)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 26)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 61)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 27)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 62)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 28)] = data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 63)];
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 29)] = ((((convert_int(get_group_id(1)) * 8) + 9) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 64)] : 0.0f);
    }
  }
  {
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 30)] = (((((convert_int(get_group_id(2)) * 2) + 3) < 57) && ((convert_int(get_group_id(1)) * 8) >= 1)) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 111)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 31)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 112)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 32)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 113)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 33)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 114)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 34)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 115)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 35)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 116)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 36)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 117)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 37)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 118)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 38)] = ((((convert_int(get_group_id(2)) * 2) + 3) < 57) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 119)] : 0.0f);
    }
    {
      data_vec[((convert_int(get_group_id(2)) * 17920) + (convert_int(get_group_id(1)) * 2560) + (convert_int(get_group_id(0)) * 40) + 39)] = (((((convert_int(get_group_id(2)) * 2) + 3) < 57) && (((convert_int(get_group_id(1)) * 8) + 9) < 57)) ? data[((convert_int(get_group_id(2)) * 112) + (convert_int(get_group_id(1)) * 8) + (convert_int(get_group_id(0)) * 3136) + 120)] : 0.0f);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(7, 1, 32)))
void conv_kernel(__global float* restrict kernel_vec, __global float* restrict data_vec, __global float* restrict conv) {
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16)));
    }
  }
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4));
    }
  }
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8));
    }
  }
  {
    {
      vstore4(((float4)(0.0f)), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12));
    }
  }
  for (int ci_1 = 0; ci_1 < 64; ++ci_1) {
    for (int kh = 0; kh < 3; ++kh) {
      {
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16))) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10))])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16)));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 2)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 4)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 6)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12))))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12));
          }
        }
      }
      {
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16))) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 1)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16)));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 3)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 5)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 7)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 4)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12));
          }
        }
      }
      {
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16))) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 2)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16)));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 4)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 4));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 6)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 8));
          }
        }
        {
          {
            vstore4((vload4(0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12)) + (((float4)(data_vec[((convert_int(get_group_id(1)) * 17920) + (convert_int(get_local_id(0)) * 2560) + (ci_1 * 40) + (kh * 10) + 8)])) * vload4(0, kernel_vec + ((convert_int(get_local_id(2)) * 2304) + (ci_1 * 36) + (kh * 12) + 8)))), 0, conv + ((convert_int(get_group_id(1)) * 112) + (convert_int(get_local_id(2)) * 3136) + (convert_int(get_local_id(0)) * 16) + 12));
          }
        }
      }
    }
  }
}

__kernel __attribute__((reqd_work_group_size(7, 1, 32)))
void output_unpack_kernel(__global float* restrict output, __global float* restrict conv) {
  output[((convert_int(get_group_id(2)) * 25088) + (convert_int(get_group_id(1)) * 28) + (convert_int(get_group_id(0)) * 7) + (convert_int(get_local_id(2)) * 784) + convert_int(get_local_id(0)))] = conv[((convert_int(get_group_id(1)) * 112) + ((((convert_int(get_group_id(2)) * 32) + convert_int(get_local_id(2))) >> 2) * 3136) + (((convert_int(get_group_id(2)) * 32) + convert_int(get_local_id(2))) & 3) + ((convert_int(get_group_id(1)) % 1) * 16) + ((((convert_int(get_group_id(0)) * 7) + convert_int(get_local_id(0))) >> 2) * 16) + ((((convert_int(get_group_id(0)) * 7) + convert_int(get_local_id(0))) & 3) * 4))];
}
