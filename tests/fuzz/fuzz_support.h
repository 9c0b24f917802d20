/* What every fuzz target shares: a log sink that drops the warnings bad input is expected to
 * cause, and CHECK, which turns a broken invariant into an abort libFuzzer reports with its input. */
#ifndef AT_TESTS_FUZZ_SUPPORT_H
#define AT_TESTS_FUZZ_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>

#include "core/log.h"

static inline void at_fuzz_quiet(at_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)msg;
    (void)user;
}

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (!(c)) {                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);        \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#endif
