/* Workloads and configs the Mali conformance tests share: the op kinds' tiny examples (padding,
 * strides, dilation, batch, ragged Winograd tiles, depthwise multipliers, dense bias), and TopHub
 * records mapped onto their workload, or onto a shrunk copy of it that keeps the record's config
 * valid (one work-group grid step per split: extents = the product of the config's inner split
 * sizes), so each work-item runs exactly the program the real workload runs. */
#ifndef AT_TESTS_MALI_CASES_H
#define AT_TESTS_MALI_CASES_H

#include <stdbool.h>
#include <stddef.h>

#include "knobs/config.h"
#include "templates/template.h"

/* The tiny example workloads of t's op kind (at_op_def.tiny): writes up to max args, returns how
 * many; fails the test when the kind has none. */
size_t mali_tiny_args(const at_template *t, at_args *out, size_t max);

/* One TopHub record of a sampled workload. */
typedef struct mali_case {
    const at_template *tmpl;
    at_args            real;   /* the record's workload */
    at_args            shrunk; /* a small workload the same config applies to */
    at_config         *config; /* the record's entities, split sizes with -1 first (owned) */
    size_t             line;   /* line in mali_v0.06.log */
    size_t             workload; /* 0, 1, ... per distinct workload, in case order */
} mali_case;

/* The float32 records of TopHub's mali pack for per_template workloads of each Mali template (or
 * all of them when it has fewer; taken evenly over the file), all records of each workload. *out owned by the caller
 * (mali_cases_free). Fails the test on error. */
void mali_tophub_cases(size_t per_template, mali_case **out, size_t *n);
void mali_cases_free(mali_case *cases, size_t n);

/* Index of config c (entities as mali_case.config holds them) in task t's space; fails the test
 * when it does not map. */
int64_t mali_config_index(const at_task *t, const at_config *c);

#endif
