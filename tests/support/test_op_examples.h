/* The example arguments of the op-kind table (at_op_def.tiny / .typical, templates/ops.h) as
 * at_args, for the tests that walk templates: a kind without examples fails the test that asks,
 * naming the kind and where its examples go. Header-only: every includer links templates/. */
#ifndef AT_TESTS_SUPPORT_TEST_OP_EXAMPLES_H
#define AT_TESTS_SUPPORT_TEST_OP_EXAMPLES_H

#include "templates/ops.h"
#include "tests/support/test_support.h"

/* The kind's example texts: tiny (typical false) or typical; fails the test when there are none. */
static inline const char *const *test_op_example_texts(at_op_kind op, bool typical)
{
    const at_op_def *d = at_op_def_of(op);
    const char *const *list = typical ? d->typical : d->tiny;
    if (!list || !list[0])
        fail_msg("op kind %s has no %s example arguments: add them to its at_op_def (templates/ops_*.c)", d->name,
                 typical ? "typical" : "tiny");
    return list;
}

/* Parses up to max of the kind's examples into out; returns how many (at least 1). */
static inline size_t test_op_examples(at_op_kind op, bool typical, at_args *out, size_t max)
{
    const char *const *list = test_op_example_texts(op, typical);
    size_t n = 0;
    for (; list[n] && n < max; n++) {
        at_status st = at_op_args_parse(op, list[n], &out[n]);
        if (st != AT_OK) fail_msg("op kind %s: example '%s': %s", at_op_name(op), list[n], at_last_error());
    }
    return n;
}

#endif
