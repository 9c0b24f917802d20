/* The subcommands of the autotvm binary. Each returns the process exit code: 0 done,
 * 1 failed (message already printed), 2 usage error. argv[0] is the subcommand name. */
#ifndef AT_CLI_COMMANDS_H
#define AT_CLI_COMMANDS_H

int at_cmd_pick_best(int argc, char **argv);
int at_cmd_records(int argc, char **argv);
/* `records check LOG`: every known template's record mapped back onto its space (cmd_records_check.c). */
int at_cmd_records_check(int argc, char **argv);
int at_cmd_tophub(int argc, char **argv);
int at_cmd_tracker(int argc, char **argv);
int at_cmd_query_tracker(int argc, char **argv);
int at_cmd_rpc_server(int argc, char **argv);
int at_cmd_devices(int argc, char **argv);
int at_cmd_measure(int argc, char **argv);
/* `tasks NETWORK`: the tuning tasks of a relay.testing network (cmd_tasks.c). */
int at_cmd_tasks(int argc, char **argv);
int at_cmd_tune_task(int argc, char **argv);
int at_cmd_vta(int argc, char **argv);

#endif
