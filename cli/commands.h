/* The subcommands of the autotvm binary. Each returns the process exit code: 0 done,
 * 1 failed (message already printed), 2 usage error. argv[0] is the subcommand name. */
#ifndef AT_CLI_COMMANDS_H
#define AT_CLI_COMMANDS_H

#include <stdint.h>

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
/* `space TEMPLATE --args A [--index N]` (cmd_space.c). */
int at_cmd_space(int argc, char **argv);
/* `show TEMPLATE --args A --config N [--ir|--opencl|--llvm-ir]` (cmd_show.c). */
int at_cmd_show(int argc, char **argv);
/* `tasks NETWORK`: the tuning tasks of a relay.testing network (cmd_tasks.c). */
int at_cmd_tasks(int argc, char **argv);
int at_cmd_tune_task(int argc, char **argv);
int at_cmd_vta(int argc, char **argv);
/* `version` (also `--version`): this build's and its libraries' versions (cmd_version.c). */
int at_cmd_version(int argc, char **argv);
/* `tune NETWORK` (cmd_tune.c) and `evaluate NETWORK` (cmd_evaluate.c); tune ends with the
 * evaluation at_cli_evaluate prints (cmd_evaluate.c), and both read --image-shape C,H,W with
 * at_cli_parse_image_shape. */
int at_cmd_tune(int argc, char **argv);
int at_cmd_evaluate(int argc, char **argv);
/* `report LOG --html FILE`: the tuning report page (cmd_report.c, report/report.h). */
int at_cmd_report(int argc, char **argv);
struct at_tune_eval_opts;
/* peak_gflops > 0: the --profile table shows each layer's share of that device peak. */
int at_cli_evaluate(struct at_tune_eval_opts *o, double peak_gflops);
/* The same for --target vta (the packed resnet on the VTA simulator, per-layer breakdown). */
struct at_tune_vta_eval_opts;
int at_cli_evaluate_vta(struct at_tune_vta_eval_opts *o);
int at_cli_parse_image_shape(const char *cmd, const char *text, int64_t out[3]);

#endif
