/* Helpers shared by the tophub/ files; no other module includes this. */
#ifndef AT_TOPHUB_INTERNAL_H
#define AT_TOPHUB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "core/strbuf.h"

/* Transfer limits, already defaulted. */
typedef struct at_tophub_dl_opts {
    const char *ca_file; /* NULL: libcurl's bundle */
    long connect_timeout_ms;
    long timeout_ms;
    long low_speed_time_s;
} at_tophub_dl_opts;

/* Largest pack body accepted (the biggest real pack, arm_cpu_v0.08, is 754094 bytes). */
#define AT_TOPHUB_MAX_BYTES (64L * 1024 * 1024)

/* Downloads url (http, https or file; redirects only to http/https) and writes the body to fd.
 * The one file that sees libcurl's conventions. *bytes_out gets the body size.
 * Returns AT_OK; AT_ENOTFOUND (HTTP 404/410, missing file); AT_ETIMEOUT; AT_EINVAL (malformed
 * URL); AT_EIO (anything else, a redirect to another protocol included); AT_ENOMEM. The detail
 * is the reason alone ("HTTP 404 (no such file on the mirror)", "cannot connect: ..."): the
 * caller names the pack and URL. */
at_status at_tophub_download(const char *url, int fd, const at_tophub_dl_opts *o, size_t *bytes_out);

/* Reads a whole file (at most AT_TOPHUB_MAX_BYTES) into an at_malloc'ed NUL-terminated buffer.
 * Returns AT_OK, AT_ENOTFOUND (no such file), AT_EIO or AT_ENOMEM. */
at_status at_tophub_read_file(const char *path, char **buf_out, size_t *len_out);

/* Counts the record lines of a pack text. strict: the first line that is neither a '#' comment
 * nor a parsable record fails with AT_EPARSE ("line N: <reason>"), as does a text with no record
 * and, when backend is given, a text none of whose records has a target selecting backend (its
 * device, keys or kind, aliased: a mali pack is not vta's; a pack may hold records of other
 * targets, as vta_v0.10 holds arm_cpu ones); otherwise bad lines are only counted. Returns AT_OK,
 * AT_EPARSE or AT_ENOMEM. */
at_status at_tophub_count_records(const char *text, size_t len, bool strict, const char *backend, size_t *n_records,
                                  size_t *n_bad);

/* The backend a pack name is for: pack without its "_v<N>.<M>" suffix ("mali_v0.06" -> "mali"),
 * written into buf (cap bytes). */
void at_tophub_pack_backend(const char *pack, char *buf, size_t cap);

/* Removes the temp files ".<pack>.log.XXXXXX" an interrupted fetch of pack left in dir (the caller
 * holds the pack's lock, so no fetch is writing one). *n_removed gets the count. AT_OK or AT_EIO. */
at_status at_tophub_remove_stale_temps(const char *dir, const char *pack, size_t *n_removed);

/* mkdir -p with mode 0755. Returns AT_OK or AT_EIO. */
at_status at_tophub_mkdirs(const char *dir);

#endif
