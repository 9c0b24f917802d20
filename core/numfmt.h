/* Numbers printed exactly as Python prints them (log byte compatibility), whatever the locale. */
#ifndef AT_CORE_NUMFMT_H
#define AT_CORE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Longest text at_fmt_double can produce, with its NUL. */
#define AT_FMT_DOUBLE_MAX 32

/* Python repr(float): shortest digits that round-trip; exponent form iff the decimal exponent
 * is < -4 or >= 16 ("1e-05", "5.69732536806342e-05", "1e+16"), else fixed with at least one
 * fractional digit ("1000000000.0", "-0.0"). NaN and infinities are written as json.dumps does
 * ("NaN", "Infinity", "-Infinity"). Returns the length written into buf (AT_FMT_DOUBLE_MAX). */
size_t at_fmt_double(double v, char buf[AT_FMT_DOUBLE_MAX]);

/* Parses a complete decimal floating-point text in the C locale; returns 0 on success. */
int at_parse_double(const char *s, double *out);

#endif
