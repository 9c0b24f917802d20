# Grouped convolution and channel shuffle (issue 17): the op kind group_conv2d_nchw, its x86 and
# arm_cpu templates on the interpreter, imported models with grouped Conv and torch's channel
# shuffle on the reference executor, the interpreter and the LLVM backend (unit).
if(TARGET at_networks AND TARGET at_tune)
  at_add_test(test_group_conv LABELS unit DEPS tune networks templates TIMEOUT 120)
endif()
# The same model through `autotvm evaluate --target mali|opencl --check` on the OpenCL device.
if(TARGET at_networks AND TARGET at_tune AND AT_WITH_OPENCL)
  at_add_test(test_group_conv_ocl LABELS e2e device DEPS tune networks TIMEOUT 300)
  at_test_in_process_opencl(test_group_conv_ocl)
  add_dependencies(test_group_conv_ocl autotvm)
endif()
