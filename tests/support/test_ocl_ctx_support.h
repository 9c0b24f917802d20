/* The OpenCL context of the tests that run programs on the test device (PoCL unless
 * AT_TEST_DEVICE names another): include after test_support.h. Header only, as static inline
 * functions: at_test_support links core/ alone, and these need backends/opencl. */
#ifndef AT_TESTS_OCL_CTX_SUPPORT_H
#define AT_TESTS_OCL_CTX_SUPPORT_H

#include <stdlib.h>

#include "backends/opencl/runtime.h"
#include "core/alloc.h"
#include "tests/support/test_support.h"

/* Initialises the runtime with the tests' PoCL kernel cache and opens a context on the device
 * AT_TEST_DEVICE selects (the first when unset); fails the test when there is none. */
static inline at_ocl_ctx *at_test_ocl_ctx_open(void)
{
    assert_ok(at_ocl_runtime_init(at_test_pocl_cache_dir()));
    at_ocl_device_info *devs;
    size_t n, index;
    assert_ok(at_ocl_devices(&devs, &n));
    assert_true(n >= 1);
    assert_ok(at_ocl_device_select(devs, n, getenv("AT_TEST_DEVICE"), &index));
    at_free(devs);
    at_ocl_ctx *ctx;
    assert_ok(at_ocl_ctx_new(index, &ctx));
    return ctx;
}

#endif
