/* Order statistics of timing samples. */
#ifndef AT_CORE_STATS_H
#define AT_CORE_STATS_H

#include <stddef.h>

/* qsort comparator for doubles, ascending. */
int at_cmp_double(const void *a, const void *b);
/* The median of v[0..n) (n > 0), sorting v in place. */
double at_median(double *v, size_t n);

#endif
