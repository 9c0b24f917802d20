/* The TopHub cache directory: where it is, reading packs from it, clearing it. Paths are only
 * ever built from names that pass at_tophub_pack_name_is_valid, so nothing escapes the directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "tophub/internal.h"
#include "tophub/tophub.h"

const char *at_tophub_location(const at_tophub_opts *opts)
{
    if (opts && opts->location) return opts->location;
    const char *env = getenv(AT_TOPHUB_LOCATION_ENV);
    return env ? env : AT_TOPHUB_DEFAULT_LOCATION;
}

bool at_tophub_is_off(const at_tophub_opts *opts)
{
    return !strcmp(at_tophub_location(opts), AT_TOPHUB_NONE_LOCATION);
}

at_status at_tophub_cache_dir(const at_tophub_opts *opts, char **out)
{
    AT_ASSERT(out);
    *out = NULL;
    at_strbuf sb;
    at_strbuf_init(&sb);
    const char *env = getenv(AT_TOPHUB_DIR_ENV);
    const char *home = getenv("HOME");
    if (opts && opts->cache_dir && opts->cache_dir[0]) {
        at_strbuf_puts(&sb, opts->cache_dir);
    } else if (env && env[0]) {
        at_strbuf_puts(&sb, env);
    } else if (home && home[0]) {
        at_strbuf_puts(&sb, home);
        if (home[strlen(home) - 1] != '/') at_strbuf_putc(&sb, '/');
        at_strbuf_puts(&sb, ".tvm/tophub");
    } else {
        return AT_FAIL(AT_EINVAL, "tophub: no cache directory: HOME is not set (use --tophub-dir or %s)",
                       AT_TOPHUB_DIR_ENV);
    }
    /* "dir/" and "dir" name the same place; keep paths built from it free of "//" */
    while (sb.len > 1 && sb.data[sb.len - 1] == '/') sb.data[--sb.len] = '\0';
    char *s = at_strbuf_take(&sb);
    if (!s) return AT_OOM();
    *out = s;
    return AT_OK;
}

at_status at_tophub_pack_path(const at_tophub_opts *opts, const char *pack, char **out)
{
    AT_ASSERT(out);
    *out = NULL;
    if (!at_tophub_pack_name_is_valid(pack))
        return AT_FAIL(AT_EINVAL,
                       "tophub: invalid pack name '%s' (expected 1-64 of [A-Za-z0-9_.-], no leading '.', no '..')",
                       pack ? pack : "(null)");
    char *dir = NULL;
    AT_TRY(at_tophub_cache_dir(opts, &dir));
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_printf(&sb, "%s/%s.log", dir, pack);
    at_free(dir);
    char *s = at_strbuf_take(&sb);
    if (!s) return AT_OOM();
    *out = s;
    return AT_OK;
}

at_status at_tophub_mkdirs(const char *dir)
{
    char *p = at_strdup(dir);
    if (!p) return AT_OOM();
    at_status st = AT_OK;
    size_t n = strlen(p);
    /* create each prefix ending at a '/', then the whole path */
    for (size_t i = 1; i <= n && st == AT_OK; i++) {
        if (i < n && p[i] != '/') continue;
        char saved = p[i];
        p[i] = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            st = AT_FAIL(AT_EIO, "tophub: cannot create the cache directory %s: %s", p, strerror(errno));
        p[i] = saved;
    }
    struct stat sbuf;
    if (st == AT_OK && (stat(dir, &sbuf) != 0 || !S_ISDIR(sbuf.st_mode)))
        st = AT_FAIL(AT_EIO, "tophub: the cache directory %s is not a directory", dir);
    at_free(p);
    return st;
}

at_status at_tophub_read_file(const char *path, char **buf_out, size_t *len_out)
{
    *buf_out = NULL;
    *len_out = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return AT_FAIL(e == ENOENT ? AT_ENOTFOUND : AT_EIO, "cannot open %s: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return AT_FAIL(AT_EIO, "%s is not a regular file", path);
    }
    if (st.st_size > AT_TOPHUB_MAX_BYTES) {
        close(fd);
        return AT_FAIL(AT_EIO, "%s is larger than %ld bytes", path, AT_TOPHUB_MAX_BYTES);
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = at_malloc(cap);
    if (!buf) {
        close(fd);
        return AT_OOM();
    }
    for (;;) {
        if (len + 1 == cap) break; /* a file that grew while we read: keep what fits */
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            at_free(buf);
            return AT_FAIL(AT_EIO, "cannot read %s: %s", path, strerror(e));
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    *buf_out = buf;
    *len_out = len;
    return AT_OK;
}

void at_tophub_info_fini(at_tophub_info *info)
{
    if (!info) return;
    at_free(info->path);
    memset(info, 0, sizeof *info);
}

at_status at_tophub_cached(const at_tophub_opts *opts, const char *pack, at_tophub_info *out)
{
    AT_ASSERT(out);
    memset(out, 0, sizeof *out);
    char *path = NULL, *buf = NULL;
    size_t len = 0, n_rec = 0, n_bad = 0;
    AT_TRY(at_tophub_pack_path(opts, pack, &path));
    at_status st = at_tophub_read_file(path, &buf, &len);
    if (st == AT_ENOTFOUND) {
        st = AT_FAIL(AT_ENOTFOUND, "tophub: %s is not cached (%s)", pack, path);
        goto fail;
    }
    if (st != AT_OK) {
        AT_FAIL_WRAP(st, "tophub: %s", pack);
        goto fail;
    }
    st = at_tophub_count_records(buf, len, false, NULL, &n_rec, &n_bad);
    at_free(buf);
    if (st != AT_OK) goto fail;
    out->path = path;
    out->n_records = n_rec;
    out->n_bad = n_bad;
    out->bytes = len;
    return AT_OK;
fail:
    at_free(path);
    return st;
}

/* Files clear() owns: "<stem>_v<digits>.<digits>.log", and our ".<pack>.log.XXXXXX" temp files
 * and ".<pack>.lock" lock files. */
static bool is_pack_file(const char *name)
{
    size_t n = strlen(name);
    if (n < 5 || strcmp(name + n - 4, ".log") != 0) return false;
    char stem[80];
    if (n - 4 >= sizeof stem) return false;
    memcpy(stem, name, n - 4);
    stem[n - 4] = '\0';
    return at_tophub_is_pack_name(stem);
}

static bool is_our_hidden_file(const char *name)
{
    if (name[0] != '.') return false;
    size_t n = strlen(name);
    if (n > 6 && !strcmp(name + n - 5, ".lock")) {
        char stem[80];
        if (n - 6 >= sizeof stem) return false;
        memcpy(stem, name + 1, n - 6);
        stem[n - 6] = '\0';
        return at_tophub_pack_name_is_valid(stem);
    }
    const char *dot = strstr(name, ".log.");
    if (!dot || strlen(dot + 5) != 6) return false;
    char stem[80];
    size_t sn = (size_t)(dot - (name + 1));
    if (sn >= sizeof stem) return false;
    memcpy(stem, name + 1, sn);
    stem[sn] = '\0';
    return at_tophub_pack_name_is_valid(stem);
}

at_status at_tophub_clear(const at_tophub_opts *opts, size_t *n_removed)
{
    if (n_removed) *n_removed = 0;
    char *dir = NULL;
    AT_TRY(at_tophub_cache_dir(opts, &dir));
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        at_status st = e == ENOENT ? AT_OK : AT_FAIL(AT_EIO, "tophub: cannot open %s: %s", dir, strerror(e));
        at_free(dir);
        return st;
    }
    at_status st = AT_OK;
    size_t count = 0;
    at_strbuf path;
    at_strbuf_init(&path);
    struct dirent *e;
    while (st == AT_OK && (e = readdir(d)) != NULL) {
        if (!is_pack_file(e->d_name) && !is_our_hidden_file(e->d_name)) continue;
        at_strbuf_clear(&path);
        at_strbuf_printf(&path, "%s/%s", dir, e->d_name);
        st = at_strbuf_status(&path);
        if (st != AT_OK) break;
        struct stat sbuf;
        if (lstat(path.data, &sbuf) != 0 || !S_ISREG(sbuf.st_mode)) continue;
        if (unlink(path.data) != 0)
            st = AT_FAIL(AT_EIO, "tophub: cannot remove %s: %s", path.data, strerror(errno));
        else
            count++;
    }
    closedir(d);
    at_strbuf_fini(&path);
    at_free(dir);
    if (st == AT_OK && n_removed) *n_removed = count;
    return st;
}

at_status at_tophub_remove_stale_temps(const char *dir, const char *pack, size_t *n_removed)
{
    *n_removed = 0;
    DIR *d = opendir(dir);
    if (!d) return AT_OK; /* no directory, no temp file */
    size_t plen = strlen(pack), count = 0;
    at_status st = AT_OK;
    at_strbuf path;
    at_strbuf_init(&path);
    struct dirent *e;
    while (st == AT_OK && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        /* exactly "." pack ".log." and mkstemp's six characters */
        if (n[0] != '.' || strncmp(n + 1, pack, plen) != 0 || strncmp(n + 1 + plen, ".log.", 5) != 0 ||
            strlen(n + 1 + plen + 5) != 6)
            continue;
        at_strbuf_clear(&path);
        at_strbuf_printf(&path, "%s/%s", dir, n);
        if ((st = at_strbuf_status(&path)) != AT_OK) break;
        struct stat sbuf;
        if (lstat(path.data, &sbuf) != 0 || !S_ISREG(sbuf.st_mode)) continue;
        if (unlink(path.data) != 0 && errno != ENOENT)
            st = AT_FAIL(AT_EIO, "tophub: cannot remove the stale temp file %s: %s", path.data, strerror(errno));
        else
            count++;
    }
    closedir(d);
    at_strbuf_fini(&path);
    *n_removed = count;
    return st;
}
