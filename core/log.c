/* Logging: one global sink and level, set by the program (cli/) or a test, read by everyone. */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

static at_log_sink current_sink;
static void *current_user;
static at_log_level current_level = AT_LOG_INFO;

static const char *const level_text[] = {
    [AT_LOG_DEBUG] = "debug", [AT_LOG_INFO] = "info", [AT_LOG_WARN] = "warning", [AT_LOG_ERROR] = "error",
};

const char *at_log_level_str(at_log_level level)
{
    if ((unsigned)level > AT_LOG_ERROR) return "log";
    return level_text[level];
}

void at_log_set_sink(at_log_sink sink, void *user)
{
    current_sink = sink;
    current_user = user;
}

void at_log_set_level(at_log_level level)
{
    current_level = level;
}

at_log_level at_log_get_level(void)
{
    return current_level;
}

void at_log(at_log_level level, const char *fmt, ...)
{
    if (level < current_level) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (current_sink) {
        current_sink(level, msg, current_user);
        return;
    }
    fprintf(stderr, "autotvm: %s: %s\n", at_log_level_str(level), msg);
}
