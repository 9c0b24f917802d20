/* Integer helpers the schedules share. */
#ifndef AT_CORE_INTMATH_H
#define AT_CORE_INTMATH_H

#include <stdint.h>

/* The greatest common divisor of a and b (gcd(a, 0) = a). */
int64_t at_gcd(int64_t a, int64_t b);

#endif
