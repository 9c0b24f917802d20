# ir/: builder, printer (tests/golden/ir), verifier, interpreter.
at_add_test(test_ir LABELS unit DEPS ir)
