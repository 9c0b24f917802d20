/* argv parsing for subcommands: options are tables, so every command parses the same way. */
#include "cli/args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/target.h"

int at_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "autotvm %s: error: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'autotvm %s --help'.\n", cmd);
    va_end(ap);
    return 2;
}

int at_cli_fail(at_status s)
{
    const char *detail = at_last_error();
    fprintf(stderr, "autotvm: error: %s\n", detail && *detail ? detail : at_status_str(s));
    return 1;
}

int at_cli_parse_long(const char *cmd, const char *opt, const char *text, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0)
        return at_cli_usage_error(cmd, "--%s expects a non-negative integer, got '%s'", opt, text);
    *out = v;
    return 0;
}

int at_cli_parse(int argc, char **argv, const at_cli_opt *opts, size_t n_opts, const char **pos, size_t max_pos,
                 size_t *n_pos, const char *cmd)
{
    *n_pos = 0;
    int only_positionals = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_positionals && (!strcmp(a, "--help") || !strcmp(a, "-h"))) return AT_CLI_HELP;
        if (!only_positionals && !strcmp(a, "--")) {
            only_positionals = 1;
            continue;
        }
        if (only_positionals || a[0] != '-' || a[1] == '\0') {
            if (*n_pos >= max_pos) return at_cli_usage_error(cmd, "unexpected argument '%s'", a);
            pos[(*n_pos)++] = a;
            continue;
        }
        if (a[1] != '-') return at_cli_usage_error(cmd, "unknown option '%s'", a);
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const at_cli_opt *o = NULL;
        for (size_t k = 0; k < n_opts; k++)
            if (strlen(opts[k].name) == name_len && !strncmp(opts[k].name, name, name_len)) o = &opts[k];
        if (!o) return at_cli_usage_error(cmd, "unknown option '--%.*s'", (int)name_len, name);
        if (o->flag) {
            if (eq) return at_cli_usage_error(cmd, "option '--%s' takes no value", o->name);
            *o->flag = 1;
            continue;
        }
        if (eq) {
            *o->value = eq + 1;
        } else {
            if (i + 1 >= argc) return at_cli_usage_error(cmd, "option '--%s' needs a value", o->name);
            *o->value = argv[++i];
        }
    }
    return AT_CLI_OK;
}

int at_cli_task_target(const char *cmd, const char *text, int *is_llvm, const char **target_str, char *buf, size_t cap,
                       const char **cpu)
{
    static const struct {
        const char *name, *target;
        int         llvm;
    } names[] = {
        {"opencl", "opencl", 0}, {"mali", "opencl -device=mali", 0}, {"arm_cpu", "llvm -device=arm_cpu", 1}, {"llvm", "llvm", 1},
    };
    *cpu = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(text, names[i].name)) {
            *is_llvm = names[i].llvm;
            *target_str = names[i].target;
            return 0;
        }
    at_target tg;
    if (at_target_parse(text, &tg) != AT_OK)
        return at_cli_usage_error(cmd, "--target: %s (opencl, mali, arm_cpu, llvm or a TVM target string)", at_last_error());
    int rc = 0;
    if (!strcmp(tg.kind, "opencl") || !strcmp(tg.kind, "llvm")) {
        *is_llvm = !strcmp(tg.kind, "llvm");
        *target_str = text;
        const char *mcpu = at_target_attr_value(&tg, "mcpu");
        if (mcpu && *is_llvm) {
            snprintf(buf, cap, "%s", mcpu);
            *cpu = buf;
        }
    } else {
        rc = at_cli_usage_error(cmd, "--target '%s': kind %s is not measured here (opencl, mali, arm_cpu, llvm)", text, tg.kind);
    }
    at_target_fini(&tg);
    return rc;
}

int at_cli_parse_input_shape(const char *cmd, const char *text, char *name, size_t cap, int64_t dims[4], size_t *rank)
{
    name[0] = 0;
    *rank = 0;
    const char *eq = strchr(text, '=');
    if (!eq) return at_cli_usage_error(cmd, "--input-shape: expected NAME=D0,D1,... got '%s'", text);
    const char *p = eq + 1;
    while (*p) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 1 || v > (1LL << 24) || *rank == 4 || (*end && *end != ','))
            return at_cli_usage_error(cmd, "--input-shape: expected NAME=D0,D1,... (1 to 4 positive dims), got '%s'", text);
        dims[(*rank)++] = v;
        p = *end ? end + 1 : end;
    }
    if (*rank == 0) return at_cli_usage_error(cmd, "--input-shape: no dims in '%s'", text);
    if ((size_t)(eq - text) >= cap) return at_cli_usage_error(cmd, "--input-shape: input name too long");
    memcpy(name, text, (size_t)(eq - text));
    name[eq - text] = 0;
    return 0;
}
