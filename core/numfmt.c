/* Shortest round-trip formatting: try 1..17 significant digits with %.*e and keep the first
 * that strtod maps back to the same double, then lay the digits out the way CPython's
 * float_repr_style 'short' does. Conversions run under a private "C" locale (uselocale),
 * so a program that set LC_NUMERIC to a comma locale still writes TVM's bytes. */
#include "core/numfmt.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t enter_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

static void leave_c_locale(locale_t old)
{
    if (old) uselocale(old);
}

int at_parse_double(const char *s, double *out)
{
    locale_t old = enter_c_locale();
    char *end = NULL;
    double v = strtod(s, &end);
    leave_c_locale(old);
    if (end == s || *end != '\0') return -1;
    *out = v;
    return 0;
}

size_t at_fmt_double(double v, char buf[AT_FMT_DOUBLE_MAX])
{
    if (isnan(v)) return (size_t)snprintf(buf, AT_FMT_DOUBLE_MAX, "NaN");
    if (isinf(v)) return (size_t)snprintf(buf, AT_FMT_DOUBLE_MAX, v < 0 ? "-Infinity" : "Infinity");
    if (v == 0) return (size_t)snprintf(buf, AT_FMT_DOUBLE_MAX, signbit(v) ? "-0.0" : "0.0");

    char tmp[40];
    locale_t old = enter_c_locale();
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (strtod(tmp, NULL) == v) break;
    }
    leave_c_locale(old);

    /* tmp is "[-]d[.ddd]e[+-]xx": collect sign, digits and exponent */
    char digits[24];
    size_t nd = 0;
    const char *p = tmp;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;

    size_t o = 0;
    if (neg) buf[o++] = '-';
    if (exp10 < -4 || exp10 >= 16) {
        buf[o++] = digits[0];
        if (nd > 1) {
            buf[o++] = '.';
            for (size_t i = 1; i < nd; i++) buf[o++] = digits[i];
        }
        o += (size_t)snprintf(buf + o, AT_FMT_DOUBLE_MAX - o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
        return o;
    }
    if (exp10 < 0) {
        buf[o++] = '0';
        buf[o++] = '.';
        for (int i = 0; i < -exp10 - 1; i++) buf[o++] = '0';
        for (size_t i = 0; i < nd; i++) buf[o++] = digits[i];
    } else {
        size_t int_digits = (size_t)exp10 + 1;
        for (size_t i = 0; i < int_digits; i++) buf[o++] = i < nd ? digits[i] : '0';
        buf[o++] = '.';
        if (nd > int_digits)
            for (size_t i = int_digits; i < nd; i++) buf[o++] = digits[i];
        else
            buf[o++] = '0';
    }
    buf[o] = '\0';
    return o;
}
