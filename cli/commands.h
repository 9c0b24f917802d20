/* The subcommands of the autotvm binary. Each returns the process exit code: 0 done,
 * 1 failed (message already printed), 2 usage error. argv[0] is the subcommand name. */
#ifndef AT_CLI_COMMANDS_H
#define AT_CLI_COMMANDS_H

int at_cmd_pick_best(int argc, char **argv);
int at_cmd_records(int argc, char **argv);

#endif
