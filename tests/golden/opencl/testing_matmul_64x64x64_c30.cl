__kernel __attribute__((reqd_work_group_size(16, 4, 1)))
void default_function_kernel(__global float* restrict A, __global float* restrict B, __global float* restrict C) {
  float C_local[1];
  int by = convert_int(get_group_id(1));
  int bx = convert_int(get_group_id(0));
  int ty = convert_int(get_local_id(1));
  int tx = convert_int(get_local_id(0));
  C_local[0] = 0.0f;
  for (int k = 0; k < 64; ++k) {
    C_local[0] = (C_local[0] + (A[((by * 256) + (ty * 64) + k)] * B[((bx * 16) + tx + (k * 64))]));
  }
  C[((by * 256) + (bx * 16) + (ty * 64) + tx)] = C_local[0];
}
