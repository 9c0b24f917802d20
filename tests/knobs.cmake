# knobs/ config spaces (the config itself is tested by test_config in core.cmake).
at_add_test(test_knobs_space LABELS unit DEPS knobs)
at_add_test(test_knobs_index LABELS unit DEPS knobs)
at_add_test(test_knobs_tophub LABELS unit DEPS knobs)
at_add_test(test_knobs_fallback LABELS unit DEPS knobs)
