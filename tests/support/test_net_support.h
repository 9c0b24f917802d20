/* Helpers shared by the tests that run networks on a backend (tune/'s OpenCL and LLVM ones):
 * include after test_support.h. Header only, as static inline functions: at_test_support links
 * core/ alone, and these need networks/, which only the tests that include this header link. */
#ifndef AT_TESTS_NET_SUPPORT_H
#define AT_TESTS_NET_SUPPORT_H

#include <stdint.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "networks/exec.h"
#include "networks/net.h"
#include "tests/support/test_support.h"

/* Runs executor e of net twice and checks every node against the reference executor (atol 1e-5,
 * rtol 1e-4), failing the test on any difference: the first run packs the weights (on a zero
 * input); the second, timed (must take > 0 ms), leaves the packing kernels out and must still
 * compute everything from a new input (seed 5, uniform in [-1, 1)). Returns what the check saw. */
static inline at_net_check at_test_net_run_and_check(const at_net *net, at_net_exec *e)
{
    int64_t n_in = at_net_node_numel(at_net_node_at(net, 0));
    float *x = at_malloc((size_t)n_in * sizeof *x);
    at_rng r;
    at_rng_seed(&r, 5);
    for (int64_t i = 0; i < n_in; i++) x[i] = (float)(2 * at_rng_uniform(&r) - 1);
    float *x0 = at_calloc((size_t)n_in, sizeof *x0);
    assert_ok(at_net_exec_set_input(e, x0));
    assert_ok(at_net_exec_run(e, NULL));
    at_free(x0);
    assert_ok(at_net_exec_set_input(e, x));
    double ms = -1;
    assert_ok(at_net_exec_run(e, &ms));
    assert_true(ms > 0);
    at_net_check c;
    assert_ok(at_net_exec_check(e, x, 1e-5, 1e-4, true, &c));
    if (c.n_bad) {
        print_error("%zu elements differ; worst %s[%lld]: %.9g vs %.9g\n", c.n_bad, at_net_node_at(net, c.node)->name,
                    (long long)c.index, c.got, c.want);
        fail();
    }
    at_free(x);
    return c;
}

#endif
