# networks/vta + tune/network_vta: the quantized, packed resnet18_v1 for VTA (tasks, reference
# executor), its evaluation on the VTA simulator bit-exact against the reference, and the
# `autotvm tasks|tune|evaluate --target vta` command lines.
if(TARGET at_networks)
  at_add_test(test_net_vta LABELS unit DEPS networks)
endif()
# test_net_vta_exec: ~3 s release; under ASan ~35 s of CPU (the full-size TopHub run simulates and
# checks 1.8 G int8 MACs), more wall time on a loaded machine, hence the timeout.
if(TARGET at_tune)
  at_add_test(test_net_vta_exec LABELS e2e DEPS tune TIMEOUT 300)
endif()
if(TARGET at_tune AND TARGET autotvm)
  at_add_test(test_net_vta_cli LABELS e2e DEPS tune TIMEOUT 120)
  set_property(TEST test_net_vta_cli APPEND PROPERTY ENVIRONMENT "AT_AUTOTVM=$<TARGET_FILE:autotvm>")
  add_dependencies(test_net_vta_cli autotvm)
endif()
