/* Leveled logging through a replaceable sink: library code never prints by itself. */
#ifndef AT_CORE_LOG_H
#define AT_CORE_LOG_H

typedef enum at_log_level { AT_LOG_DEBUG = 0, AT_LOG_INFO, AT_LOG_WARN, AT_LOG_ERROR } at_log_level;

/* A sink receives one complete message without a trailing newline. */
typedef void (*at_log_sink)(at_log_level level, const char *msg, void *user);

/* Replaces the sink (NULL restores the default: "autotvm: warning: msg" lines on stderr). */
void at_log_set_sink(at_log_sink sink, void *user);

/* Messages below level are dropped (default AT_LOG_INFO). */
void at_log_set_level(at_log_level level);
at_log_level at_log_get_level(void);

/* Formats and delivers one message. */
void at_log(at_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "debug", "info", "warning", "error". */
const char *at_log_level_str(at_log_level level);

#endif
