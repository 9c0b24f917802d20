/* `records check`, space part, over a log already loaded (cli/cmd_records_check.c), so that
 * `records check` reads its input once: a pipe (`<(cat log)`) cannot be read twice. */
#ifndef AT_CLI_RECORDS_CHECK_H
#define AT_CLI_RECORDS_CHECK_H

#include "records/log.h"

/* Maps every record of log (borrowed) whose template this build knows onto its space and prints
 * one line per failure, then "N/M records valid". Returns 0 when every known record is valid, 1
 * when one is not or on failure (the error printed). */
int at_cli_records_check_log(const at_rec_log *log);

#endif
