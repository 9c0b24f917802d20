/* Log files: the loader reads the whole file into memory and parses it line by line, so a bad
 * line costs one warning and nothing else; writers go through write(2) directly (no stdio
 * buffer that a crash could cut in half). */
#include "records/log.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/strbuf.h"

enum { MAX_LINE_WARNINGS = 50 };

/* What a path names when it is neither a regular file nor a pipe, for messages. */
static const char *file_kind(mode_t m)
{
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    return "a special file";
}

void at_rec_log_free(at_rec_log *log)
{
    if (!log) return;
    for (size_t i = 0; i < log->n; i++) at_rec_fini(&log->recs[i]);
    at_free(log->recs);
    at_free(log->name);
    at_free(log);
}

static at_status push_rec(at_rec_log *log, size_t *cap, at_rec *r)
{
    if (log->n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        at_rec *p = at_realloc(log->recs, c * sizeof *p);
        if (!p) return AT_OOM();
        log->recs = p;
        *cap = c;
    }
    log->recs[log->n++] = *r;
    return AT_OK;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\f' && s[i] != '\v') return 0;
    return 1;
}

static void warn_line(at_rec_log *log, size_t *n_warned, size_t line, const char *reason)
{
    if ((*n_warned)++ < MAX_LINE_WARNINGS) at_log(AT_LOG_WARN, "%s:%zu: %s; line skipped", log->name, line, reason);
}

/* Parses one line (without its "\n"); a bad line is counted and reported, not returned. */
static at_status load_line(at_rec_log *log, size_t *cap, size_t *n_warned, const char *s, size_t n)
{
    size_t no = log->stats.lines;
    if (n > 0 && s[0] == '#') {
        log->stats.comments++;
        return AT_OK;
    }
    if (is_blank(s, n)) {
        log->stats.blank++;
        warn_line(log, n_warned, no, "blank line");
        return AT_OK;
    }
    at_rec r;
    at_status st = at_rec_parse_line(s, n, &r);
    if (st == AT_EUNSUPPORTED) {
        log->stats.old_version++;
        return AT_OK;
    }
    if (st == AT_EPARSE) {
        log->stats.malformed++;
        warn_line(log, n_warned, no, at_last_error());
        return AT_OK;
    }
    AT_TRY(st);
    size_t text_len = n > 0 && s[n - 1] == '\r' ? n - 1 : n;
    r.line = no;
    r.text = at_strndup(s, text_len);
    if (!r.text || (st = push_rec(log, cap, &r)) != AT_OK) {
        at_rec_fini(&r);
        return AT_OOM();
    }
    log->stats.records++;
    return AT_OK;
}

at_status at_rec_log_load_buffer(const char *name, const char *data, size_t len, at_rec_log **out)
{
    *out = NULL;
    at_rec_log *log = at_calloc(1, sizeof *log);
    if (!log) return AT_OOM();
    if (!(log->name = at_strdup(name ? name : "<buffer>"))) {
        at_free(log);
        return AT_OOM();
    }
    size_t cap = 0, n_warned = 0, pos = 0;
    at_status st = AT_OK;
    while (pos < len && st == AT_OK) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - data) : len;
        log->stats.lines++;
        st = load_line(log, &cap, &n_warned, data + pos, end - pos);
        pos = end + 1;
    }
    if (st != AT_OK) {
        at_rec_log_free(log);
        return st;
    }
    if (n_warned > MAX_LINE_WARNINGS)
        at_log(AT_LOG_WARN, "%s: %zu more blank or malformed lines skipped", log->name, n_warned - MAX_LINE_WARNINGS);
    if (log->stats.old_version)
        at_log(AT_LOG_WARN, "%s: AutoTVM log version 0.1 is no longer supported; %zu rows skipped", log->name,
               log->stats.old_version);
    *out = log;
    return AT_OK;
}

/* Reads a whole file into an at_malloc'ed buffer. A regular file is read to its end; a pipe or
 * socket (`<(cat log)`) up to AT_REC_MAX_STREAM_BYTES; anything else (a character device such as
 * /dev/urandom, a directory) is refused before a byte is read, since it may never end. */
static at_status read_file(const char *path, char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return AT_FAIL(e == ENOENT ? AT_ENOTFOUND : AT_EIO, "cannot open '%s': %s", path, strerror(e));
    }
    struct stat stt;
    if (fstat(fd, &stt) != 0) {
        int e = errno;
        close(fd);
        return AT_FAIL(AT_EIO, "cannot stat '%s': %s", path, strerror(e));
    }
    bool stream = S_ISFIFO(stt.st_mode) || S_ISSOCK(stt.st_mode);
    if (S_ISDIR(stt.st_mode)) {
        close(fd);
        return AT_FAIL(AT_EIO, "cannot read '%s': is a directory", path);
    }
    if (!S_ISREG(stt.st_mode) && !stream) {
        close(fd);
        return AT_FAIL(AT_EIO, "cannot read '%s': %s, not a regular file or a pipe", path, file_kind(stt.st_mode));
    }
    /* O_NONBLOCK only kept open() from waiting on a FIFO without a writer; reads may block */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t cap = !stream && stt.st_size > 0 ? (size_t)stt.st_size + 1 : 4096, len = 0;
    char *buf = at_malloc(cap);
    if (!buf) {
        close(fd);
        return AT_OOM();
    }
    for (;;) {
        if (stream && len > AT_REC_MAX_STREAM_BYTES) {
            at_free(buf);
            close(fd);
            return AT_FAIL(AT_EIO, "cannot read '%s': a pipe longer than %zu MiB (give a regular file)", path,
                           AT_REC_MAX_STREAM_BYTES >> 20);
        }
        if (len == cap) {
            /* a pipe grows its buffer to one byte past the cap at most */
            size_t nc = stream && cap * 2 > AT_REC_MAX_STREAM_BYTES + 1 ? AT_REC_MAX_STREAM_BYTES + 1 : cap * 2;
            char *nb = at_realloc(buf, nc);
            if (!nb) {
                at_free(buf);
                close(fd);
                return AT_OOM();
            }
            buf = nb;
            cap = nc;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            at_free(buf);
            close(fd);
            return AT_FAIL(AT_EIO, "cannot read '%s': %s", path, strerror(e));
        }
        if (got == 0) break;
        len += (size_t)got;
    }
    close(fd);
    *out = buf;
    *out_len = len;
    return AT_OK;
}

at_status at_rec_log_load_file(const char *path, at_rec_log **out)
{
    *out = NULL;
    char *data;
    size_t len;
    AT_TRY(read_file(path, &data, &len));
    at_status st = at_rec_log_load_buffer(path, data, len, out);
    at_free(data);
    return st;
}

struct at_rec_appender {
    int       fd;
    char     *path;
    at_strbuf line; /* reused for every record */
};

/* One write(2) for the whole line; a short write (disk full, signal) is continued, and only
 * then can another process's line interleave. When a write fails after part of the line went out
 * (a disk that filled mid-line: the kernel writes what fits, then says ENOSPC), that part is cut
 * off again, so the log never keeps half a line: with O_APPEND the offset after our last write is
 * the end of our fragment, and the file is truncated to the fragment's start only while it still
 * ends there (no other appender wrote after it; on a full disk none can). */
static at_status write_all(int fd, const char *path, const char *p, size_t n)
{
    size_t done = 0;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            int e = errno;
            const char *fate = "";
            if (done > 0) {
                off_t end = lseek(fd, 0, SEEK_CUR);
                struct stat st;
                bool ours = end >= (off_t)done && fstat(fd, &st) == 0 && st.st_size == end;
                fate = ours && ftruncate(fd, end - (off_t)done) == 0 ? " (the part of the line written was removed)"
                                                                     : " (a cut-off line is left)";
            }
            return AT_FAIL(AT_EIO, "cannot write '%s': %s%s", path, strerror(e), fate);
        }
        p += w;
        n -= (size_t)w;
        done += (size_t)w;
    }
    return AT_OK;
}

/* A log whose last line was cut off (a crash, a full disk) must not get the next record glued to
 * the fragment: the first record would be lost with it. Under a write lock (another appender may
 * be doing the same), a "\n" is appended when the file does not end with one. */
static at_status start_on_fresh_line(int fd, const char *path)
{
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    while (fcntl(fd, F_SETLKW, &lk) != 0) {
        if (errno == EINTR) continue;
        return AT_FAIL(AT_EIO, "cannot lock '%s' for appending: %s", path, strerror(errno));
    }
    at_status st = AT_OK;
    struct stat stt;
    char last = '\n';
    if (fstat(fd, &stt) != 0) {
        st = AT_FAIL(AT_EIO, "cannot stat '%s': %s", path, strerror(errno));
    } else if (S_ISREG(stt.st_mode) && stt.st_size > 0) {
        ssize_t got;
        while ((got = pread(fd, &last, 1, stt.st_size - 1)) < 0 && errno == EINTR) {
        }
        if (got != 1) st = AT_FAIL(AT_EIO, "cannot read the end of '%s': %s", path, got < 0 ? strerror(errno) : "short read");
    }
    if (st == AT_OK && last != '\n') {
        at_log(AT_LOG_WARN, "%s: the last line has no newline (cut off?); appending on a fresh line", path);
        st = write_all(fd, path, "\n", 1);
    }
    lk.l_type = F_UNLCK;
    (void)fcntl(fd, F_SETLK, &lk);
    return st;
}

at_status at_rec_appender_open(const char *path, at_rec_appender **out)
{
    *out = NULL;
    at_rec_appender *a = at_calloc(1, sizeof *a);
    if (!a) return AT_OOM();
    if (!(a->path = at_strdup(path))) {
        at_free(a);
        return AT_OOM();
    }
    /* read access too: the last byte is checked (a write-only file is appended to unchecked) */
    a->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    bool readable = a->fd >= 0;
    if (!readable && errno == EACCES) a->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (a->fd < 0) {
        int e = errno;
        at_free(a->path);
        at_free(a);
        return AT_FAIL(AT_EIO, "cannot open '%s' for appending: %s", path, strerror(e));
    }
    at_status st = readable ? start_on_fresh_line(a->fd, path) : AT_OK;
    if (st != AT_OK) {
        close(a->fd);
        at_free(a->path);
        at_free(a);
        return st;
    }
    at_strbuf_init(&a->line);
    *out = a;
    return AT_OK;
}

at_status at_rec_appender_write(at_rec_appender *a, const at_rec *r)
{
    at_strbuf_clear(&a->line);
    at_rec_write(r, &a->line);
    at_strbuf_putc(&a->line, '\n');
    AT_TRY(at_strbuf_status(&a->line));
    return write_all(a->fd, a->path, a->line.data, a->line.len);
}

at_status at_rec_appender_write_text(at_rec_appender *a, const char *text, size_t len)
{
    if (memchr(text, '\n', len)) return AT_FAIL(AT_EINVAL, "a log line cannot contain a newline");
    at_strbuf_clear(&a->line);
    at_strbuf_append(&a->line, text, len);
    at_strbuf_putc(&a->line, '\n');
    AT_TRY(at_strbuf_status(&a->line));
    return write_all(a->fd, a->path, a->line.data, a->line.len);
}

at_status at_rec_appender_sync(at_rec_appender *a)
{
    if (fsync(a->fd) != 0) return AT_FAIL(AT_EIO, "cannot sync '%s': %s", a->path, strerror(errno));
    return AT_OK;
}

at_status at_rec_appender_close(at_rec_appender *a)
{
    if (!a) return AT_OK;
    at_status st = at_rec_appender_sync(a);
    if (close(a->fd) != 0 && st == AT_OK) st = AT_FAIL(AT_EIO, "cannot close '%s': %s", a->path, strerror(errno));
    at_strbuf_fini(&a->line);
    at_free(a->path);
    at_free(a);
    return st;
}

/* Directory part of path ("." when none), for the temp file and the directory fsync. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return at_strdup(".");
    if (slash == path) return at_strdup("/");
    return at_strndup(path, (size_t)(slash - path));
}

at_status at_rec_write_file_atomic(const char *path, const char *data, size_t len)
{
    at_strbuf tmp;
    at_strbuf_init(&tmp);
    at_strbuf_printf(&tmp, "%s.tmp.XXXXXX", path);
    char *dir = dir_of(path);
    if (tmp.failed || !dir) {
        at_strbuf_fini(&tmp);
        at_free(dir);
        return AT_OOM();
    }
    at_status st = AT_OK;
    int fd = mkstemp(tmp.data);
    if (fd < 0) {
        st = AT_FAIL(AT_EIO, "cannot create a temporary file next to '%s': %s", path, strerror(errno));
        goto done;
    }
    struct stat old;
    mode_t mode = stat(path, &old) == 0 ? (old.st_mode & 07777) : 0644;
    if (fchmod(fd, mode) != 0) st = AT_FAIL(AT_EIO, "cannot set the mode of '%s': %s", tmp.data, strerror(errno));
    if (st == AT_OK) st = write_all(fd, tmp.data, data, len);
    if (st == AT_OK && fsync(fd) != 0) st = AT_FAIL(AT_EIO, "cannot sync '%s': %s", tmp.data, strerror(errno));
    if (close(fd) != 0 && st == AT_OK) st = AT_FAIL(AT_EIO, "cannot close '%s': %s", tmp.data, strerror(errno));
    if (st == AT_OK && rename(tmp.data, path) != 0)
        st = AT_FAIL(AT_EIO, "cannot rename '%s' to '%s': %s", tmp.data, path, strerror(errno));
    if (st != AT_OK) {
        unlink(tmp.data);
        goto done;
    }
    /* make the rename itself durable */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
done:
    at_strbuf_fini(&tmp);
    at_free(dir);
    return st;
}
