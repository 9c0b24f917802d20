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
