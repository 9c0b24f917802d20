# pool2d_max_nchw and pool2d_max_nchw.mali: workload JSON, errors, FLOPs, reference, sampled
# configs against the reference (unit).
at_add_test(test_pool2d LABELS unit DEPS templates)
