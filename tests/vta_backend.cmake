# backends/vta + conv2d_packed.vta + the VTA simulator runner.
# test_vta_backend: ~2 s under ASan (it simulates a whole small space), so e2e rather than unit.
# test_vta_backend_tophub: all 54 pynq_1x16 TopHub records on full shapes, ~220 s under ASan
# (~10x less in a release build): label "slow", outside CI's 'unit|e2e'.
at_add_test(test_vta_backend LABELS e2e DEPS measure records backends_vta templates vta)
at_add_test(test_vta_backend_tophub LABELS slow DEPS measure records backends_vta templates vta)
