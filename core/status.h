/* Status codes and the per-thread error detail: the only error channel of library code. */
#ifndef AT_CORE_STATUS_H
#define AT_CORE_STATUS_H

/* Codes only grow; retired ones keep their number. */
typedef enum at_status {
    AT_OK = 0,
    AT_ENOMEM,
    AT_EINVAL,
    AT_EPARSE,
    AT_EIO,
    AT_ENOTFOUND,
    AT_EDEVICE,
    AT_ETIMEOUT,
    AT_EUNSUPPORTED,
    AT_STATUS_COUNT
} at_status;

/* Static text for a code ("out of memory", ...); never NULL, "unknown status" for bad values. */
const char *at_status_str(at_status s);

/* This thread's detail of its last failure ("" if none): valid until this thread's next failure. */
const char *at_last_error(void);

/* Records a failure detail (printf format) for this thread and returns code. Use AT_FAIL. */
at_status at_fail_at(const char *file, int line, at_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Like at_fail_at, but keeps the current detail after the new text: "<fmt>: <old detail>".
 * Use AT_FAIL_WRAP to add the file and line of an input to a lower layer's message. */
at_status at_fail_wrap_at(const char *file, int line, at_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Forgets this thread's detail. */
void at_clear_error(void);

/* Prints "file:line: assertion failed: cond" to stderr and aborts: for broken invariants only. */
_Noreturn void at_panic(const char *file, int line, const char *cond);

#define AT_FAIL(code, ...) at_fail_at(__FILE__, __LINE__, (code), __VA_ARGS__)
#define AT_FAIL_WRAP(code, ...) at_fail_wrap_at(__FILE__, __LINE__, (code), __VA_ARGS__)
#define AT_OOM() AT_FAIL(AT_ENOMEM, "out of memory")
#define AT_TRY(expr)                      \
    do {                                  \
        at_status at__s = (expr);         \
        if (at__s != AT_OK) return at__s; \
    } while (0)
#define AT_ASSERT(c)                                        \
    do {                                                    \
        if (!(c)) at_panic(__FILE__, __LINE__, #c);         \
    } while (0)

#endif
