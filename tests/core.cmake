at_add_test(test_core LABELS unit DEPS core)
at_add_test(test_config LABELS unit DEPS knobs)
