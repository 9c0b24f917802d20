# conv2d_nchw.cuda (templates/conv2d_nchw_cuda.c): space, records, FLOPs, fallback and sampled
# configs on the IR interpreter (unit); the same and resnet-18's 3x3 layer on PoCL (e2e).
at_add_test(test_conv2d_cuda LABELS unit DEPS templates records test_op_data)
if(TARGET at_measure)
  at_add_test(test_conv2d_cuda_ocl LABELS e2e device DEPS measure records TIMEOUT 300)
  at_test_in_process_opencl(test_conv2d_cuda_ocl)
endif()
# `autotvm show` of TopHub's config for resnet-18's 64x56x56 3x3 layer: TVM's launch sizes, the
# kernel slice fetched with one affine index (the whole 3x3 windows merged, as TVM's simplifier
# merges them), and the unrolled accumulation reading local memory at a base plus constants.
if(TARGET autotvm)
  add_test(NAME cli_show_conv2d_cuda COMMAND autotvm show conv2d_nchw.cuda --args 1,64,56,56,64,3,3,1,1 --config 72845770)
  set_tests_properties(cli_show_conv2d_cuda PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION
    "kernel default_function_kernel: global \\(28, 8, 32\\) local \\(4, 2, 16\\).*__local float pad_temp_shared\\[640\\];.*kernel_shared\\[\\(\\(tz \\* 72\\) \\+ \\(ty \\* 36\\) \\+ \\(tx \\* 9\\) \\+ 1\\)\\] = kernel_\\[\\(\\(bz \\* 18432\\) \\+ \\(tz \\* 1152\\) \\+ \\(ty \\* 576\\) \\+ \\(tx \\* 9\\) \\+ \\(rc_outer \\* 36\\) \\+ 1\\)\\];.*conv_local\\[4\\] = \\(conv_local\\[4\\] \\+ \\(pad_temp_shared\\[\\(\\(ty \\* 10\\) \\+ \\(tx \\* 2\\) \\+ \\(rc_inner \\* 160\\) \\+ 20\\)\\] \\* kernel_shared\\[\\(\\(tz \\* 72\\) \\+ \\(rc_inner \\* 9\\)\\)\\]\\)\\);")
endif()
