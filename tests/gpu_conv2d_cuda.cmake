# conv2d_nchw.cuda (templates/conv2d_nchw_cuda.c): space, records, FLOPs, fallback and sampled
# configs on the IR interpreter (unit); the same and resnet-18's 3x3 layer on PoCL (e2e).
at_add_test(test_conv2d_cuda LABELS unit DEPS templates records)
if(TARGET at_measure)
  at_add_test(test_conv2d_cuda_ocl LABELS e2e device DEPS measure records TIMEOUT 300)
  at_test_in_process_opencl(test_conv2d_cuda_ocl)
endif()
