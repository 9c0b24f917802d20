/* Status text and the per-thread error detail (_Thread_local: builders run on several threads). */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[1024];

static const char *const status_text[AT_STATUS_COUNT] = {
    [AT_OK] = "ok",
    [AT_ENOMEM] = "out of memory",
    [AT_EINVAL] = "invalid argument",
    [AT_EPARSE] = "parse error",
    [AT_EIO] = "input/output error",
    [AT_ENOTFOUND] = "not found",
    [AT_EDEVICE] = "device error",
    [AT_ETIMEOUT] = "timed out",
    [AT_EUNSUPPORTED] = "unsupported",
};

const char *at_status_str(at_status s)
{
    if ((unsigned)s >= AT_STATUS_COUNT) return "unknown status";
    return status_text[s];
}

const char *at_last_error(void)
{
    return last_error;
}

at_status at_fail_at(const char *file, int line, at_status code, const char *fmt, ...)
{
    (void)file;
    (void)line;
    va_list ap;
    va_start(ap, fmt);
    /* The detail must not allocate: it is also the out-of-memory path. */
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

at_status at_fail_wrap_at(const char *file, int line, at_status code, const char *fmt, ...)
{
    (void)file;
    (void)line;
    char old[sizeof last_error];
    memcpy(old, last_error, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    /* append ": old" by hand: truncation of a long detail is intended here */
    if (n >= 0 && old[0]) {
        size_t pos = (size_t)n < sizeof last_error ? (size_t)n : sizeof last_error - 1;
        const char *parts[2] = {": ", old};
        for (int k = 0; k < 2; k++)
            for (const char *p = parts[k]; *p && pos + 1 < sizeof last_error; p++) last_error[pos++] = *p;
        last_error[pos] = '\0';
    }
    return code;
}

void at_clear_error(void)
{
    last_error[0] = '\0';
}

_Noreturn void at_panic(const char *file, int line, const char *cond)
{
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, cond);
    fflush(stderr);
    abort();
}
