# ONNX import (networks/onnx.c): Debian's official node tests on the reference executor and the
# LLVM CPU backend, small whole models written with the generated protobuf-c code, .npy files
# and `autotvm evaluate MODEL.onnx --input/--save-output`.
if(TARGET at_networks AND TARGET at_tune AND EXISTS /usr/share/libonnx-testdata/data/node)
  at_add_test(test_onnx_nodes LABELS unit DEPS tune networks TIMEOUT 300)
endif()
if(TARGET at_networks AND TARGET at_tune)
  at_add_test(test_onnx_models LABELS unit DEPS tune networks TIMEOUT 120)
  add_dependencies(test_onnx_models autotvm)
endif()
# The same node tests and an `evaluate MODEL.onnx --target mali --check` on the OpenCL device.
if(TARGET at_networks AND TARGET at_tune AND AT_WITH_OPENCL AND EXISTS /usr/share/libonnx-testdata/data/node)
  at_add_test(test_onnx_ocl LABELS e2e device DEPS tune networks TIMEOUT 300)
  at_test_in_process_opencl(test_onnx_ocl)
  add_dependencies(test_onnx_ocl autotvm)
endif()
# Imported models on VTA: a small resnet18_v1-like model's tasks against the zoo's, `evaluate
# --target vta --check` on the simulator, refusals at the node.
if(TARGET at_networks AND TARGET at_tune AND TARGET autotvm)
  at_add_test(test_vta_onnx LABELS e2e DEPS tune networks TIMEOUT 300)
  add_dependencies(test_vta_onnx autotvm)
endif()
