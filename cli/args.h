/* Small argv parser shared by the subcommands: "--name value", "--name=value", flags,
 * positionals; "--help"/"-h" anywhere asks for help. */
#ifndef AT_CLI_ARGS_H
#define AT_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct at_cli_opt {
    const char  *name;  /* without the leading "--" */
    const char **value; /* set for options taking a value; NULL for flags */
    int         *flag;  /* set to 1 for flags; NULL for options taking a value */
} at_cli_opt;

enum { AT_CLI_OK = 0, AT_CLI_HELP = -1 };

/* Parses argv[1..argc) (argv[0] is the subcommand). Positionals go to pos[0..max_pos), their
 * count to *n_pos. Returns AT_CLI_OK, AT_CLI_HELP (the caller prints its usage and exits 0),
 * or 2 after printing a usage error for cmd. */
int at_cli_parse(int argc, char **argv, const at_cli_opt *opts, size_t n_opts, const char **pos, size_t max_pos,
                 size_t *n_pos, const char *cmd);

/* Prints "autotvm <cmd>: error: <msg>" and "Try 'autotvm <cmd> --help'." to stderr; returns 2. */
int at_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "autotvm: error: <at_last_error() or the status text>" to stderr; returns 1. */
int at_cli_fail(at_status s);

/* Parses a non-negative decimal integer option; returns 2 (after a usage error) when invalid. */
int at_cli_parse_long(const char *cmd, const char *opt, const char *text, long *out);

/* --input-shape NAME=D0,D1,... (1 to 4 positive dims; NAME may be empty: the first input):
 * name[0..cap) gets NAME, dims and *rank the dims. Returns 0 or prints the usage error and
 * returns its exit code. */
int at_cli_parse_input_shape(const char *cmd, const char *text, char *name, size_t cap, int64_t dims[4], size_t *rank);

/* A task command's --target for OpenCL and CPU templates: "opencl" (log string "opencl"), "mali"
 * ("opencl -device=mali"), "arm_cpu" ("llvm -device=arm_cpu", TVM's tune_relay_arm target),
 * "llvm" ("llvm"), or a TVM target string of kind opencl or llvm (written to the log as given).
 * *is_llvm: the template family is LLVM (measured on the host CPU); *target_str: static or
 * text itself; *cpu: the -mcpu of a llvm target string written in buf (cap bytes), else NULL.
 * Returns 0, or 2 after a usage error for cmd. */
int at_cli_task_target(const char *cmd, const char *text, int *is_llvm, const char **target_str, char *buf, size_t cap,
                       const char **cpu);

#endif
