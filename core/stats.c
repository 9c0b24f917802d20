#include "core/stats.h"

#include <stdlib.h>

int at_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double at_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, at_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
