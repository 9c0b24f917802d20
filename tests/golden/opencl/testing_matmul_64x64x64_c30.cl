__kernel __attribute__((reqd_work_group_size(16, 4, 1)))
void default_function_kernel(__global float* restrict A, __global float* restrict B, __global float* restrict C) {
  float C_local[1];
  C_local[0] = 0.0f;
  for (int k = 0; k < 64; ++k) {
    C_local[0] = (C_local[0] + (A[((convert_int(get_group_id(1)) * 256) + (convert_int(get_local_id(1)) * 64) + k)] * B[((convert_int(get_group_id(0)) * 16) + convert_int(get_local_id(0)) + (k * 64))]));
  }
  C[((convert_int(get_group_id(1)) * 256) + (convert_int(get_group_id(0)) * 16) + (convert_int(get_local_id(1)) * 64) + convert_int(get_local_id(0)))] = C_local[0];
}
