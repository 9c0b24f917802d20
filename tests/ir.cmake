# ir/: builder, printer (tests/golden/ir), verifier, interpreter.
at_add_test(test_ir LABELS unit DEPS ir)
# ir/unroll.c: TVM's UnrollLoop under the GPU templates' auto_unroll pragmas.
at_add_test(test_ir_unroll LABELS unit DEPS ir)
