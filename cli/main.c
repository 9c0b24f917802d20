/* autotvm: the command-line entry point. One table maps subcommand names to their functions
 * and drives dispatch and the top-level --help. Template plugins (--plugin anywhere on the line,
 * AUTOTVM_PLUGIN_PATH) are loaded here, before any command runs: every process a command forks
 * (measurement builders, RPC sessions) then inherits their templates. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/log.h"
#include "templates/plugin.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"pick-best", at_cmd_pick_best, "keep the best record per workload (TVM's pick_best)"},
    {"records", at_cmd_records, "show, check or split a tuning log"},
    {"tophub", at_cmd_tophub, "fetch, list, locate or clear TopHub pre-tuned packs"},
    {"tracker", at_cmd_tracker, "run an RPC tracker (TVM's protocol)"},
    {"query-tracker", at_cmd_query_tracker, "show a tracker's servers and queues"},
    {"rpc-server", at_cmd_rpc_server, "serve measurement sessions, registered with a tracker"},
    {"devices", at_cmd_devices, "list OpenCL platforms and devices with their limits"},
    {"measure", at_cmd_measure, "build and run configs of a task on an OpenCL device"},
    {"space", at_cmd_space, "list a task's knobs and candidates, decode a config index"},
    {"show", at_cmd_show, "print the IR, OpenCL C or LLVM IR one config of a task generates"},
    {"tasks", at_cmd_tasks, "list the tuning tasks of a network (TVM's extract_from_program)"},
    {"tune-task", at_cmd_tune_task, "tune one task with a tuner, logging every result"},
    {"tune", at_cmd_tune, "tune every task of a network, then evaluate it (TVM's tune_tasks)"},
    {"report", at_cmd_report, "an HTML page of a tuning log: progress charts, errors, allocation, layers"},
    {"evaluate", at_cmd_evaluate, "run a network with tuned/TopHub/fallback configs and time it"},
    {"vta", at_cmd_vta, "show a VTA hardware config: derived constants, ISA layout, cycle model"},
    {"version", at_cmd_version, "this build's version, the TVM log version, the libraries' versions"},
};

static void print_usage(FILE *f)
{
    fprintf(f, "usage: autotvm <command> [options]   (autotvm <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nevery command: --plugin PATH.so loads a template plugin (repeatable; also the colon-separated\n"
               "AUTOTVM_PLUGIN_PATH of plugin files and directories of them); autotvm --version\n");
}

/* Loads AUTOTVM_PLUGIN_PATH, then every --plugin P / --plugin=P (removed from argv, which keeps
 * its order otherwise; options after a "--" are left alone). Returns 0, 1 (a plugin refused), or
 * 2 (--plugin without a value). */
static int load_plugins(int *argc, char **argv)
{
    const char *env = getenv("AUTOTVM_PLUGIN_PATH");
    if (env && *env && at_plugin_load_path_list(env) != AT_OK) {
        fprintf(stderr, "autotvm: error: AUTOTVM_PLUGIN_PATH: %s\n", at_last_error());
        return 1;
    }
    int out = 1;
    bool rest = false;
    for (int i = 1; i < *argc; i++) {
        const char *path = NULL;
        if (rest || strncmp(argv[i], "--plugin", 8) != 0 || (argv[i][8] != '\0' && argv[i][8] != '=')) {
            if (!strcmp(argv[i], "--")) rest = true;
            argv[out++] = argv[i];
            continue;
        }
        if (argv[i][8] == '=') {
            path = argv[i] + 9;
        } else if (i + 1 < *argc) {
            path = argv[++i];
        }
        if (!path || !*path) {
            fprintf(stderr, "autotvm: error: --plugin needs a shared object's path\n");
            return 2;
        }
        if (at_plugin_load(path) != AT_OK) {
            fprintf(stderr, "autotvm: error: %s\n", at_last_error());
            return 1;
        }
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

static void cli_log_sink(at_log_level level, const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "autotvm: %s: %s\n", at_log_level_str(level), msg);
}

int main(int argc, char **argv)
{
    at_log_set_sink(cli_log_sink, NULL);
    int rc = load_plugins(&argc, argv);
    if (rc) return rc;
    if (argc >= 2 && !strcmp(argv[1], "--version")) return at_cmd_version(1, argv + 1);
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "autotvm: error: unknown command '%s'\n", argv[1]);
    print_usage(stderr);
    return 2;
}
