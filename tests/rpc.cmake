# rpc/: codec and tracker state (unit); tracker, servers and clients as processes on loopback
# (e2e), through the library and through the built autotvm binary.
at_add_test(test_rpc_codec LABELS unit DEPS rpc)
at_add_test(test_rpc_loopback LABELS e2e DEPS rpc TIMEOUT 60)
at_add_test(test_rpc_cli LABELS e2e DEPS rpc test_rpc_support TIMEOUT 60)
if(TARGET autotvm)
  add_dependencies(test_rpc_cli autotvm)
endif()
# issue 19: idle peers and half messages against the rpc-server's handshakes and the tracker (e2e)
at_add_test(test_rpc_reliability LABELS e2e DEPS rpc TIMEOUT 120)
