/* Fetching a pack into the cache: lock, download to an O_EXCL temp file beside the target,
 * validate, fsync, rename. The cache file is replaced only by a complete, valid pack, in one
 * atomic rename, so readers and concurrent fetchers never see a partial file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/prefix.h"
#include "core/strbuf.h"
#include "tophub/internal.h"
#include "tophub/tophub.h"

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has_prefix_nocase(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static at_tophub_dl_opts dl_opts(const at_tophub_opts *o)
{
    at_tophub_dl_opts d = {
        .ca_file = o && o->ca_file && o->ca_file[0] ? o->ca_file : NULL,
        .connect_timeout_ms = o && o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 1000,
        .timeout_ms = o && o->timeout_ms > 0 ? o->timeout_ms : 120000,
        .low_speed_time_s = o && o->low_speed_time_s > 0 ? o->low_speed_time_s : 10,
    };
    return d;
}

/* Takes the pack's lock file in dir (blocking: the holder's transfer is bounded by its timeouts).
 * Returns the locked descriptor in *fd_out; closing it releases the lock. */
static at_status lock_pack(const char *dir, const char *pack, int *fd_out)
{
    *fd_out = -1;
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_strbuf_printf(&sb, "%s/.%s.lock", dir, pack);
    at_status st = at_strbuf_status(&sb);
    if (st != AT_OK) {
        at_strbuf_fini(&sb);
        return st;
    }
    int fd = open(sb.data, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        st = AT_FAIL(AT_EIO, "tophub: cannot create the lock file %s: %s", sb.data, strerror(errno));
        at_strbuf_fini(&sb);
        return st;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        st = AT_FAIL(AT_EIO, "tophub: cannot lock %s: %s", sb.data, strerror(errno));
        close(fd);
        at_strbuf_fini(&sb);
        return st;
    }
    at_strbuf_fini(&sb);
    *fd_out = fd;
    return AT_OK;
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd); /* durability only: the rename itself already happened atomically */
    close(fd);
}

/* Downloads url into a fresh temp file in dir, validates it and renames it to path.
 * *bytes_out and *n_records_out describe the new file. The detail is the bare reason. */
static at_status download_validated(const char *url, const char *dir, const char *pack, const char *path,
                                    const at_tophub_dl_opts *dl, size_t *bytes_out, size_t *n_records_out)
{
    at_strbuf tmp;
    at_strbuf_init(&tmp);
    at_strbuf_printf(&tmp, "%s/.%s.log.XXXXXX", dir, pack);
    if (at_strbuf_status(&tmp) != AT_OK) {
        at_strbuf_fini(&tmp);
        return AT_OOM();
    }
    int fd = mkstemp(tmp.data); /* O_EXCL: a name no other fetcher holds */
    if (fd < 0) {
        at_status st = AT_FAIL(AT_EIO, "cannot create a temp file in %s: %s", dir, strerror(errno));
        at_strbuf_fini(&tmp);
        return st;
    }
    char *body = NULL;
    size_t bytes = 0, len = 0, n_rec = 0, n_bad = 0;
    at_status st = at_tophub_download(url, fd, dl, &bytes);
    if (st != AT_OK) goto fail;
    st = at_tophub_read_file(tmp.data, &body, &len);
    if (st != AT_OK) goto fail;
    if (len != bytes) {
        st = AT_FAIL(AT_EIO, "temp file %s holds %zu bytes, expected %zu", tmp.data, len, bytes);
        goto fail;
    }
    char backend[80];
    at_tophub_pack_backend(pack, backend, sizeof backend);
    st = at_tophub_count_records(body, len, true, backend, &n_rec, &n_bad);
    if (st != AT_OK) {
        if (st != AT_ENOMEM) AT_FAIL_WRAP(st, "not a valid pack (%zu bytes)", len);
        goto fail;
    }
    /* mkstemp made it 0600; a cache file is as readable as TVM's */
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
        st = AT_FAIL(AT_EIO, "cannot sync %s: %s", tmp.data, strerror(errno));
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = AT_FAIL(AT_EIO, "cannot close %s: %s", tmp.data, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp.data, path) != 0) {
        st = AT_FAIL(AT_EIO, "cannot rename %s to %s: %s", tmp.data, path, strerror(errno));
        goto fail;
    }
    fsync_dir(dir);
    at_free(body);
    at_strbuf_fini(&tmp);
    *bytes_out = len;
    *n_records_out = n_rec;
    return AT_OK;
fail:
    if (fd >= 0) close(fd);
    unlink(tmp.data);
    at_free(body);
    at_strbuf_fini(&tmp);
    return st;
}

static at_status check_location(const char *loc)
{
    if (has_prefix_nocase(loc, "http://") || has_prefix_nocase(loc, "https://") || has_prefix_nocase(loc, "file://"))
        return AT_OK;
    return AT_FAIL(AT_EINVAL,
                   "tophub: location '%s' is not an http://, https:// or file:// URL (set %s, or NONE to turn "
                   "TopHub off)",
                   loc, AT_TOPHUB_LOCATION_ENV);
}

at_status at_tophub_fetch(const at_tophub_opts *opts, const char *pack, bool force, at_tophub_info *out)
{
    AT_ASSERT(out);
    memset(out, 0, sizeof *out);
    char *path = NULL, *dir = NULL;
    AT_TRY(at_tophub_pack_path(opts, pack, &path));
    if (!force && file_exists(path)) {
        at_free(path);
        return at_tophub_cached(opts, pack, out);
    }
    at_status st = AT_OK;
    int lock_fd = -1;
    const char *loc = at_tophub_location(opts);
    /* an installed tree ships some packs (<datadir>/autotvm/tophub/): with no mirror chosen, a
     * shipped pack is copied from there rather than downloaded */
    char shipped[4096 + 16], shipped_loc[sizeof shipped + 8];
    char rel[128];
    bool from_shipped = false;
    snprintf(rel, sizeof rel, "tophub/%s.log", pack);
    if (!strcmp(loc, AT_TOPHUB_DEFAULT_LOCATION) && at_install_path(AT_INSTALL_DATADIR, rel, shipped, sizeof shipped)) {
        *strrchr(shipped, '/') = '\0';
        snprintf(shipped_loc, sizeof shipped_loc, "file://%s", shipped);
        loc = shipped_loc;
        from_shipped = true;
    }
    if (!strcmp(loc, AT_TOPHUB_NONE_LOCATION)) {
        st = AT_FAIL(AT_EUNSUPPORTED, "tophub: downloads are off (%s=NONE): %s %s", AT_TOPHUB_LOCATION_ENV, pack,
                     force ? "was not fetched" : "is not cached");
        goto done;
    }
    if ((st = check_location(loc)) != AT_OK) goto done;
    if ((st = at_tophub_cache_dir(opts, &dir)) != AT_OK) goto done;
    if ((st = at_tophub_mkdirs(dir)) != AT_OK) goto done;
    if ((st = lock_pack(dir, pack, &lock_fd)) != AT_OK) goto done;
    /* under the lock, a temp file of this pack is an interrupted fetch's: never left to pile up */
    size_t n_stale = 0;
    if ((st = at_tophub_remove_stale_temps(dir, pack, &n_stale)) != AT_OK) goto done;
    if (n_stale) at_log(AT_LOG_INFO, "tophub: removed %zu temp file%s of an interrupted fetch of %s", n_stale,
                        n_stale == 1 ? "" : "s", pack);
    if (!force && file_exists(path)) {
        /* another process fetched it while we waited for the lock */
        close(lock_fd);
        lock_fd = -1;
        st = at_tophub_cached(opts, pack, out);
        goto done;
    }

    at_strbuf url;
    at_strbuf_init(&url);
    size_t loc_len = strlen(loc);
    at_strbuf_printf(&url, "%s%s%s.log", loc, loc_len && loc[loc_len - 1] == '/' ? "" : "/", pack);
    if ((st = at_strbuf_status(&url)) != AT_OK) {
        at_strbuf_fini(&url);
        goto done;
    }

    bool had_old = file_exists(path);
    at_tophub_dl_opts dl = dl_opts(opts);
    size_t bytes = 0, n_rec = 0;
    double t0 = at_clock_mono_s();
    st = download_validated(url.data, dir, pack, path, &dl, &bytes, &n_rec);
    double dt = at_clock_mono_s() - t0;
    if (st != AT_OK) {
        if (st != AT_ENOMEM) {
            char reason[512];
            snprintf(reason, sizeof reason, "%s", at_last_error());
            AT_FAIL(st, "tophub: cannot fetch %s from %s: %s%s", pack, url.data, reason,
                    had_old ? "; the cached copy is kept" : "");
        }
        at_strbuf_fini(&url);
        goto done;
    }
    at_strbuf_fini(&url);
    out->path = path;
    path = NULL;
    out->n_records = n_rec;
    out->bytes = bytes;
    out->downloaded = true;
    out->shipped = from_shipped;
    out->seconds = dt;
done:
    if (lock_fd >= 0) close(lock_fd);
    at_free(dir);
    at_free(path);
    return st;
}

/* Appends ", name" (or "name" first) to a fixed buffer, silently truncating. */
static void append_name(char *buf, size_t cap, const char *name)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", name);
}

at_status at_tophub_fetch_target(const at_tophub_opts *opts, const char *target, const at_tophub_package **used_out,
                                 at_tophub_info *out)
{
    AT_ASSERT(target && out);
    memset(out, 0, sizeof *out);
    if (used_out) *used_out = NULL;
    const at_tophub_package *cands[AT_TOPHUB_PACKAGE_COUNT];
    size_t n = 0;
    AT_TRY(at_tophub_candidates(target, cands, &n));
    if (n == 0) return AT_FAIL(AT_ENOTFOUND, "tophub: no TopHub pack for target '%s'", target);
    bool mirror_down = false;
    char tried[256] = "", skipped[256] = "";
    for (size_t i = 0; i < n; i++) {
        const char *pack = cands[i]->pack;
        at_status st;
        if (mirror_down) {
            st = at_tophub_cached(opts, pack, out);
            if (st == AT_ENOTFOUND) {
                /* already warned about the mirror */
                append_name(skipped, sizeof skipped, pack);
                continue;
            }
        } else {
            st = at_tophub_fetch(opts, pack, false, out);
        }
        if (st == AT_OK) {
            if (used_out) *used_out = cands[i];
            return AT_OK;
        }
        if (st == AT_ENOMEM) return st;
        append_name(tried, sizeof tried, pack);
        at_log(AT_LOG_WARN, "%s", at_last_error());
        /* a missing or invalid file says nothing about the mirror; anything else does */
        if (st != AT_ENOTFOUND && st != AT_EPARSE) mirror_down = true;
    }
    if (skipped[0])
        return AT_FAIL(AT_ENOTFOUND,
                       "tophub: no TopHub pack could be had for target '%s' (tried %s; not cached, and the mirror "
                       "failed: %s)",
                       target, tried, skipped);
    return AT_FAIL(AT_ENOTFOUND, "tophub: no TopHub pack could be had for target '%s' (tried %s)", target, tried);
}
