# TVM's CUDA/GPU templates depthwise_conv2d_nchw.cuda, dense_small_batch.gpu and
# dense_large_batch.gpu: sampled configs on the IR interpreter and pinned record indexes (unit),
# the same samples on PoCL (e2e).
at_add_test(test_gpu_dwdense LABELS unit DEPS templates records test_op_data)
if(TARGET at_measure)
  at_add_test(test_gpu_dwdense_pocl LABELS e2e device DEPS measure records TIMEOUT 300
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_gpu_dwdense.c)
  target_compile_definitions(test_gpu_dwdense_pocl PRIVATE GPU_DWDENSE_OCL=1)
  at_test_in_process_opencl(test_gpu_dwdense_pocl)
endif()
