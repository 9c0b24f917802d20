# templates/: registry, ops, tasks, testing/matmul golden IR, conformance (interpreter vs reference).
at_add_test(test_templates LABELS unit DEPS templates test_op_data)
