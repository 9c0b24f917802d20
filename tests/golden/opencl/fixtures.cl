// ==== vector_axpy
// kernel axpy: work_dim 1, gws 64 x 1 x 1, lws 8 x 1 x 1, local 0 bytes, args alpha x y out
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void axpy(__global float* restrict alpha, __global float* restrict x, __global float* restrict y, __global float* restrict out) {
  int bx = convert_int(get_group_id(0));
  int tx = convert_int(get_local_id(0));
  {
    vstore4(((((float4)(alpha[0])) * vload4(0, x + ((bx * 32) + (tx * 4)))) + vload4(0, y + ((bx * 32) + (tx * 4)))), 0, out + ((bx * 32) + (tx * 4)));
  }
}

// ==== vector_mixed
// kernel mixed: work_dim 1, gws 8 x 1 x 1, lws 4 x 1 x 1, local 0 bytes, args x k out iout out2
__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void mixed(__global float* restrict x, __global int* restrict k, __global float* restrict out, __global int* restrict iout, __global float* restrict out2) {
  int bx = convert_int(get_group_id(0));
  int tx = convert_int(get_local_id(0));
  {
    float8 t = (((float8)(x[((bx * 64) + (tx * 16))], x[((bx * 64) + (tx * 16) + 2)], x[((bx * 64) + (tx * 16) + 4)], x[((bx * 64) + (tx * 16) + 6)], x[((bx * 64) + (tx * 16) + 8)], x[((bx * 64) + (tx * 16) + 10)], x[((bx * 64) + (tx * 16) + 12)], x[((bx * 64) + (tx * 16) + 14)])) * ((float8)(2.0f)));
    float sc = (x[((bx * 32) + (tx * 8))] + 1.0f);
    out[((bx * 64) + (tx * 16) + 1)] = ((t.s0 > 1.0f) ? t.s0 : sc);
    out[((bx * 64) + (tx * 16) + 3)] = ((t.s1 > 1.0f) ? t.s1 : sc);
    out[((bx * 64) + (tx * 16) + 5)] = ((t.s2 > 1.0f) ? t.s2 : sc);
    out[((bx * 64) + (tx * 16) + 7)] = ((t.s3 > 1.0f) ? t.s3 : sc);
    out[((bx * 64) + (tx * 16) + 9)] = ((t.s4 > 1.0f) ? t.s4 : sc);
    out[((bx * 64) + (tx * 16) + 11)] = ((t.s5 > 1.0f) ? t.s5 : sc);
    out[((bx * 64) + (tx * 16) + 13)] = ((t.s6 > 1.0f) ? t.s6 : sc);
    out[((bx * 64) + (tx * 16) + 15)] = ((t.s7 > 1.0f) ? t.s7 : sc);
    out[((bx * 64) + (tx * 16))] = t.s0;
    out[((bx * 64) + (tx * 16) + 2)] = t.s1;
    out[((bx * 64) + (tx * 16) + 4)] = t.s2;
    out[((bx * 64) + (tx * 16) + 6)] = t.s3;
    out[((bx * 64) + (tx * 16) + 8)] = t.s4;
    out[((bx * 64) + (tx * 16) + 10)] = t.s5;
    out[((bx * 64) + (tx * 16) + 12)] = t.s6;
    out[((bx * 64) + (tx * 16) + 14)] = t.s7;
    vstore8((fmax(fmin(t, ((float8)(1.5f))), convert_float8(vload8(0, k + ((bx * 32) + (tx * 8))))) + fabs((t - ((float8)(sc))))), 0, out2 + ((bx * 32) + (tx * 8)));
    vstore8((((vload8(0, k + ((bx * 32) + (tx * 8))) * ((int8)(3))) + ((int8)(0, 1, 2, 3, 4, 5, 6, 7))) % ((int8)(5))), 0, iout + ((bx * 32) + (tx * 8)));
  }
}

// ==== vector_fallback
// kernel fallback: work_dim 1, gws 8 x 1 x 1, lws 8 x 1 x 1, local 0 bytes, args x out out5 last
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void fallback(__global float* restrict x, __global float* restrict out, __global float* restrict out5, __global float* restrict last) {
  int tx = convert_int(get_local_id(0));
  {
    out[(tx * 8)] = x[(tx * 8)];
  }
  {
    out[((tx * 8) + 1)] = x[((tx * 8) + 1)];
  }
  {
    out[((tx * 8) + 2)] = x[((tx * 8) + 2)];
  }
  {
    out[((tx * 8) + 3)] = x[((tx * 8) + 3)];
  }
  {
    out[((tx * 8) + 4)] = (-x[((tx * 8) + 4)]);
  }
  {
    out[((tx * 8) + 5)] = (-x[((tx * 8) + 5)]);
  }
  {
    out[((tx * 8) + 6)] = (-x[((tx * 8) + 6)]);
  }
  {
    out[((tx * 8) + 7)] = (-x[((tx * 8) + 7)]);
  }
  {
    out5[(tx * 5)] = (x[(tx * 5)] * 3.0f);
  }
  {
    out5[((tx * 5) + 1)] = (x[((tx * 5) + 1)] * 3.0f);
  }
  {
    out5[((tx * 5) + 2)] = (x[((tx * 5) + 2)] * 3.0f);
  }
  {
    out5[((tx * 5) + 3)] = (x[((tx * 5) + 3)] * 3.0f);
  }
  {
    out5[((tx * 5) + 4)] = (x[((tx * 5) + 4)] * 3.0f);
  }
  {
    last[tx] = x[(tx * 4)];
  }
  {
    last[tx] = x[((tx * 4) + 1)];
  }
  {
    last[tx] = x[((tx * 4) + 2)];
  }
  {
    last[tx] = x[((tx * 4) + 3)];
  }
}

// ==== unroll_local
// kernel transpose: work_dim 2, gws 16 x 16 x 1, lws 8 x 8 x 1, local 256 bytes, args in out sum pair
__kernel __attribute__((reqd_work_group_size(8, 8, 1)))
void transpose(__global float* restrict in, __global float* restrict out, __global float* restrict sum, __global float* restrict pair) {
  __local float tile[64];
  float acc[4];
  int by = convert_int(get_group_id(1));
  int bx = convert_int(get_group_id(0));
  int ty = convert_int(get_local_id(1));
  int tx = convert_int(get_local_id(0));
  tile[((ty * 8) + tx)] = in[((by * 128) + (bx * 8) + (ty * 16) + tx)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[((by * 8) + (bx * 128) + (ty * 16) + tx)] = tile[(ty + (tx * 8))];
  {
    acc[0] = tile[((tx * 8) + (ty & 7))];
  }
  {
    acc[1] = tile[((tx * 8) + ((ty + 1) & 7))];
  }
  {
    acc[2] = tile[((tx * 8) + ((ty + 2) & 7))];
  }
  {
    acc[3] = tile[((tx * 8) + ((ty + 3) & 7))];
  }
  sum[((by * 128) + (bx * 8) + (ty * 16) + tx)] = 0.0f;
  #pragma unroll
  for (int q = 0; q < 4; ++q) {
    sum[((by * 128) + (bx * 8) + (ty * 16) + tx)] = (sum[((by * 128) + (bx * 8) + (ty * 16) + tx)] + acc[q]);
  }
  {
    pair[((by * 256) + (bx * 16) + (ty * 32) + (tx * 2))] = (in[((by * 128) + (bx * 8) + (ty * 16) + tx)] * 1.0f);
  }
  {
    pair[((by * 256) + (bx * 16) + (ty * 32) + (tx * 2) + 1)] = (in[((by * 128) + (bx * 8) + (ty * 16) + tx)] * 2.0f);
  }
}

// ==== two_kernels
// kernel pad: work_dim 1, gws 34 x 1 x 1, lws 17 x 1 x 1, local 0 bytes, args in pad
// kernel stencil: work_dim 1, gws 32 x 1 x 1, lws 8 x 1 x 1, local 0 bytes, args out dout pad
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel __attribute__((reqd_work_group_size(17, 1, 1)))
void pad(__global float* restrict in, __global float* restrict pad) {
  int g = convert_int(get_group_id(0));
  int t = convert_int(get_local_id(0));
  pad[((g * 17) + t)] = (((((g * 17) + t) >= 1) && (((g * 17) + t) <= 32)) ? in[((g * 17) + t - 1)] : 0.0f);
}

__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void stencil(__global float* restrict out, __global double* restrict dout, __global float* restrict pad) {
  int g_1 = convert_int(get_group_id(0));
  int t_1 = convert_int(get_local_id(0));
  out[((g_1 * 8) + t_1)] = ((pad[((g_1 * 8) + t_1)] + pad[((g_1 * 8) + t_1 + 1)]) + pad[((g_1 * 8) + t_1 + 2)]);
  long w = ((long)((g_1 * 8) + t_1));
  dout[w] = (((double)pad[((g_1 * 8) + t_1 + 1)]) * 0.10000000000000001);
}

// ==== ir_vectors
// kernel vectors: work_dim 1, gws 1 x 1 x 1, lws 1 x 1 x 1, local 0 bytes, args x y out iout
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void vectors(__global float* restrict x, __global int* restrict y, __global float* restrict out, __global int* restrict iout) {
  float4 vv = vload4(0, x + 0);
  vstore4(select(vload4(0, x + 4), vv, (vv > vload4(0, x + 4))), 0, out + 0);
  vstore4(((float4)((((convert_long4(vload4(0, y + 0)) > ((long4)(0L)))).s0 ? (vv).s0 : (vload4(0, x + 4)).s0), (((convert_long4(vload4(0, y + 0)) > ((long4)(0L)))).s1 ? (vv).s1 : (vload4(0, x + 4)).s1), (((convert_long4(vload4(0, y + 0)) > ((long4)(0L)))).s2 ? (vv).s2 : (vload4(0, x + 4)).s2), (((convert_long4(vload4(0, y + 0)) > ((long4)(0L)))).s3 ? (vv).s3 : (vload4(0, x + 4)).s3))), 0, out + 4);
  vstore4((((float4)(x[8], (x[9] * 2.0f), (vv).s3, 1.0f)) + ((float4)(x[0]))), 0, out + 8);
  vstore4(convert_int4((vv * ((float4)(10.0f)))), 0, iout + 0);
  vstore4(((vload4(0, y + 0) * ((int4)(3))) >> ((int4)(1))), 0, iout + 4);
  out[12] = (-(vload4(0, x + 4)).s0);
}

