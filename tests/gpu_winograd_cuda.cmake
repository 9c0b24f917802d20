# conv2d_nchw_winograd.cuda (templates/conv2d_winograd_cuda.c): TVM's space, TVM-format records
# pinned to their indices and launch sizes, and sampled configs on the IR interpreter (unit); the
# same workloads and TopHub-shaped configs on PoCL with output checks (e2e).
at_add_test(test_winograd_cuda LABELS unit DEPS templates records test_op_data
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_winograd_cuda.c)
if(TARGET at_measure)
  at_add_test(test_winograd_cuda_pocl LABELS e2e device DEPS measure records TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_winograd_cuda.c)
  target_compile_definitions(test_winograd_cuda_pocl PRIVATE WINO_POCL=1)
  at_test_in_process_opencl(test_winograd_cuda_pocl)
endif()
