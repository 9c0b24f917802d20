/* Tuning logs: lenient loading of whole files or buffers (a bad line is a warning, never an
 * abort), an appending writer that never leaves half a line, and atomic whole-file writes. */
#ifndef AT_RECORDS_LOG_H
#define AT_RECORDS_LOG_H

#include <stddef.h>

#include "core/status.h"
#include "records/record.h"

/* What a load saw, line by line. lines = comments + blank + old_version + malformed + records. */
typedef struct at_rec_log_stats {
    size_t lines;       /* lines in the input (a last line without "\n" counts) */
    size_t records;     /* records kept */
    size_t comments;    /* lines starting with '#' */
    size_t blank;       /* empty or whitespace-only lines (skipped with a warning) */
    size_t old_version; /* log-format v0.1 rows (skipped; one warning per source) */
    size_t malformed;   /* lines that did not parse (skipped with a warning each) */
} at_rec_log_stats;

/* Records of one source, in file order. Plain data owned by the log: read it, don't modify. */
typedef struct at_rec_log {
    char            *name; /* the path, or the name given for a buffer; used in warnings */
    at_rec          *recs; /* n records; recs[i].line and recs[i].text say where each came from */
    size_t           n;
    at_rec_log_stats stats;
} at_rec_log;

/* Most bytes read from a pipe or socket (a log given as `<(cat log)`); regular files have no cap. */
#define AT_REC_MAX_STREAM_BYTES ((size_t)256 << 20)

/* Loads every record of a log file. Lines starting with '#' are skipped silently; v0.1 rows are
 * skipped with one at_log warning naming the file; a blank or malformed line is skipped with an
 * at_log warning "path:line: reason" (after 50 such warnings, the rest are counted in one final
 * warning). The file is read once: a regular file to its end, a pipe or socket up to
 * AT_REC_MAX_STREAM_BYTES; a device or directory is refused unread (/dev/urandom never ends).
 * *out owned by the caller (at_rec_log_free). Returns AT_OK (even if nothing was readable: check
 * stats), AT_ENOTFOUND (no such file), AT_EIO (cannot open or read it, not a regular file or
 * pipe, a pipe over the cap; detail names the file) or AT_ENOMEM. */
at_status at_rec_log_load_file(const char *path, at_rec_log **out);

/* Same for data[0..len) already in memory; name is used in warnings ("<buffer>" if NULL).
 * Returns AT_OK or AT_ENOMEM. */
at_status at_rec_log_load_buffer(const char *name, const char *data, size_t len, at_rec_log **out);

/* Frees the log and its records; NULL does nothing. */
void at_rec_log_free(at_rec_log *log);

/* An open tuning log that records are appended to (O_APPEND): each line goes out in one write()
 * straight to the kernel, so a crash of this process never leaves half a line; a write that fails
 * after part of a line went out (a disk that filled mid-line) cuts that part off again. */
typedef struct at_rec_appender at_rec_appender;

/* Opens (creating it 0644 if needed) path for appending. When the file does not end with "\n"
 * (its last line was cut off by a crash or a full disk) a "\n" is appended first, under a write
 * lock, with an at_log warning, so the next record starts on its own line and only the fragment
 * is unreadable. *out owned by the caller (at_rec_appender_close). Returns AT_OK, AT_EIO (detail
 * names the file) or AT_ENOMEM. */
at_status at_rec_appender_open(const char *path, at_rec_appender **out);

/* Appends r's line (at_rec_write + "\n"). Returns AT_OK, AT_EIO or AT_ENOMEM. */
at_status at_rec_appender_write(at_rec_appender *a, const at_rec *r);

/* Appends text[0..len) plus "\n" (text must not contain "\n": AT_EINVAL). AT_OK, AT_EIO,
 * AT_ENOMEM or AT_EINVAL. */
at_status at_rec_appender_write_text(at_rec_appender *a, const char *text, size_t len);

/* Forces what was written to disk (fsync). AT_OK or AT_EIO. */
at_status at_rec_appender_sync(at_rec_appender *a);

/* fsyncs, closes and frees; NULL does nothing (AT_OK). Returns AT_OK or AT_EIO (the appender is
 * freed either way). */
at_status at_rec_appender_close(at_rec_appender *a);

/* Replaces path with data[0..len) atomically: a temp file in the same directory is written,
 * fsynced and renamed over path (keeping path's permission bits when it existed, else 0644), so
 * readers see the old or the new file, never a half one. Returns AT_OK, AT_EIO (detail names
 * the file) or AT_ENOMEM. */
at_status at_rec_write_file_atomic(const char *path, const char *data, size_t len);

#endif
