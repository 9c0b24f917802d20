/* TopHub client: TVM v0.18's table of pre-tuned packs, which pack a target selects, the local
 * cache (~/.tvm/tophub/<backend>_<version>.log) and downloads from a mirror with libcurl.
 *
 * A download goes to a private temp file in the cache directory, is validated (every line that is
 * not a '#' comment parses as a record, and there is at least one) and only then renamed over the
 * cache file, so a failed, cut-short or corrupt download leaves the previous file untouched and
 * two processes fetching at once never produce a torn file. */
#ifndef AT_TOPHUB_TOPHUB_H
#define AT_TOPHUB_TOPHUB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "records/best.h"
#include "records/log.h"

/* Where TVM v0.18 downloads packs from (tophub.py AUTOTVM_TOPHUB_DEFAULT_LOC). */
#define AT_TOPHUB_DEFAULT_LOCATION "https://raw.githubusercontent.com/tlc-pack/tophub/main/tophub"
/* The location value that turns TopHub off: no download, no pack applied (TVM's "NONE"). */
#define AT_TOPHUB_NONE_LOCATION "NONE"
/* Environment variable naming the mirror, as TVM reads it. */
#define AT_TOPHUB_LOCATION_ENV "TOPHUB_LOCATION"
/* Environment variable overriding the cache directory (ours; TVM has none). */
#define AT_TOPHUB_DIR_ENV "AT_TOPHUB_DIR"
/* Number of rows of the version table. */
#define AT_TOPHUB_PACKAGE_COUNT 10

/* One row of TVM v0.18's PACKAGE_VERSION table. All strings are static. */
typedef struct at_tophub_package {
    const char *backend; /* "mali" */
    const char *version; /* "v0.06" */
    const char *pack;    /* "mali_v0.06": the cache file and URL name is <pack>.log */
} at_tophub_package;

/* The i-th row (i < AT_TOPHUB_PACKAGE_COUNT, AT_ASSERTed), in TVM's order: arm_cpu, llvm, cuda,
 * rocm, opencl, mali, intel_graphics, vta, amd_apu, adreno. Static. */
const at_tophub_package *at_tophub_package_at(size_t i);

/* TVM's _alias(): vtacpu -> vta, webgpu/vulkan -> opencl, nvptx -> cuda; any other name is
 * returned as given. */
const char *at_tophub_alias(const char *name);

/* The row of a backend name (after at_tophub_alias), or NULL when the table has none. */
const at_tophub_package *at_tophub_find(const char *name);

/* The row whose pack name ("mali_v0.06") equals pack, or NULL. */
const at_tophub_package *at_tophub_find_pack(const char *pack);

/* True when pack is safe as a cache file stem: 1..64 characters of [A-Za-z0-9_.-], not starting
 * with '.', and without "..". Every path and URL this module builds goes through this check, so
 * no name can reach outside the cache directory. */
bool at_tophub_pack_name_is_valid(const char *pack);

/* The packs a target string may use, in TVM's priority order (tophub.context): the alias of its
 * -device attribute, then its keys in order, then its kind, each aliased and kept only when the
 * table has it; repeats are dropped. out must hold AT_TOPHUB_PACKAGE_COUNT entries; *n_out may be 0.
 * Returns AT_OK, or the target parser's AT_EPARSE/AT_ENOMEM for a malformed target string. */
at_status at_tophub_candidates(const char *target, const at_tophub_package **out, size_t *n_out);

/* True when s names a pack file stem: at_tophub_pack_name_is_valid and ending in "_v<digits>.<digits>"
 * ("mali_v0.06", also versions the table does not list, such as "mali_v0.05"). */
bool at_tophub_is_pack_name(const char *s);

/* Options; zero means default. */
typedef struct at_tophub_opts {
    const char *cache_dir;   /* NULL: $AT_TOPHUB_DIR if set and non-empty, else $HOME/.tvm/tophub */
    const char *location;    /* NULL: $TOPHUB_LOCATION if set, else AT_TOPHUB_DEFAULT_LOCATION.
                                An http://, https:// or file:// URL, or "NONE" (off) */
    const char *ca_file;     /* NULL: libcurl's CA bundle (https peers are always verified) */
    long connect_timeout_ms; /* 0: 1000 (name lookup and TCP/TLS connect) */
    long timeout_ms;         /* 0: 120000 for the whole transfer */
    long low_speed_time_s;   /* 0: 10: give up when under 100 bytes/s for this long */
} at_tophub_opts;

/* The version of the libcurl loaded ("7.88.1"), which downloads packs. */
const char *at_tophub_curl_version(void);

/* The mirror location opts selects (borrowed from opts, the environment or a static string). */
const char *at_tophub_location(const at_tophub_opts *opts);

/* True when the location is "NONE". */
bool at_tophub_is_off(const at_tophub_opts *opts);

/* The cache directory opts selects (not created). *out owned by the caller (at_free).
 * Returns AT_OK, AT_EINVAL when no directory is given and HOME is unset, or AT_ENOMEM. */
at_status at_tophub_cache_dir(const at_tophub_opts *opts, char **out);

/* "<cache dir>/<pack>.log" (whether or not it exists). *out owned by the caller (at_free).
 * Returns AT_OK, AT_EINVAL (pack name fails at_tophub_pack_name_is_valid, or no cache dir), or
 * AT_ENOMEM. */
at_status at_tophub_pack_path(const at_tophub_opts *opts, const char *pack, char **out);

/* What a fetch or cache query found. Fill with at_tophub_fetch/at_tophub_cached; release with
 * at_tophub_info_fini. */
typedef struct at_tophub_info {
    char  *path;       /* the cache file; owned */
    size_t n_records;  /* record lines in it */
    size_t n_bad;      /* other non-comment lines (always 0 for a file this module downloaded) */
    size_t bytes;      /* its size */
    bool   downloaded; /* true: fetched from the mirror by this call; false: already cached */
    bool   shipped;    /* downloaded from the installed tree's <datadir>/autotvm/tophub, not a mirror */
    double seconds;    /* download time (0 for a cache hit) */
} at_tophub_info;

/* Frees info->path and zeroes the struct; NULL or a zeroed struct is fine. */
void at_tophub_info_fini(at_tophub_info *info);

/* Describes the cache file of pack, counting its records with the lenient reader.
 * Returns AT_OK, AT_ENOTFOUND (not cached), AT_EINVAL (bad pack name, no cache dir), AT_EIO
 * (unreadable) or AT_ENOMEM. On failure *out is zeroed. */
at_status at_tophub_cached(const at_tophub_opts *opts, const char *pack, at_tophub_info *out);

/* Makes sure pack is in the cache: a cached file is used as is (as TVM does) unless force is true;
 * otherwise <location>/<pack>.log is downloaded, validated and atomically renamed into place. A
 * per-pack lock file serialises fetches from several processes; one that waited finds the file
 * the other fetched and reports a cache hit. With force, a failed download keeps the old file.
 * Returns AT_OK; AT_EINVAL (bad pack name, location is not an http/https/file URL, no cache
 * dir); AT_EUNSUPPORTED (location "NONE" and not cached, or force); AT_ENOTFOUND (HTTP 404, no
 * such file); AT_ETIMEOUT (connect, total or low-speed limit); AT_EIO (refused, unreachable, cut
 * short, TLS failure, other HTTP error, cache not writable); AT_EPARSE (the body is not a valid
 * pack); AT_ENOMEM. Every failure detail is one line naming the pack, the URL and the reason. On
 * failure *out is zeroed. */
at_status at_tophub_fetch(const at_tophub_opts *opts, const char *pack, bool force, at_tophub_info *out);

/* TVM's check_backend loop for one target: tries its candidate packs (at_tophub_candidates) in
 * order with at_tophub_fetch and stops at the first one it gets. A candidate that fails is
 * reported with at_log(WARN) and the next is tried; once the mirror itself could not be reached
 * (refused, unreachable, timed out) later candidates are used only if already cached, so an
 * offline machine gives up after one connect timeout. *used_out (optional) gets the pack.
 * Returns AT_OK; AT_EPARSE (malformed target string); AT_ENOTFOUND (the table has no pack for
 * this target, or none could be had: the detail lists what was tried); AT_ENOMEM. On failure
 * *out is zeroed and *used_out is NULL. */
at_status at_tophub_fetch_target(const at_tophub_opts *opts, const char *target, const at_tophub_package **used_out,
                                 at_tophub_info *out);

/* Removes every cached pack (<name>_v<N>.<M>.log), leftover temp file and lock file from the cache
 * directory; other files stay. *n_removed (optional) gets the count of files removed.
 * Returns AT_OK (also when the directory does not exist), AT_EINVAL (no cache dir), AT_EIO. */
at_status at_tophub_clear(const at_tophub_opts *opts, size_t *n_removed);

/* TVM's tophub.context() for one target: tries the target's candidate packs in order (cached,
 * else downloaded; a pack that cannot be had is reported with at_log(WARN) and the next one is
 * tried; after a failure to reach the mirror at all no further download is attempted) and loads
 * the first one it gets into best (caller-owned, usually empty), which the caller then stacks below
 * its user logs (records/best.h). With location "NONE" nothing is loaded, as TVM returns an empty
 * context. *used_out (optional) gets the pack loaded or NULL; *n_loaded_out (optional) the number
 * of records loaded.
 * Returns AT_OK also when no pack could be loaded (the tuner goes on with fallback configs);
 * AT_EPARSE for a malformed target string; AT_ENOMEM. */
at_status at_tophub_context(const at_tophub_opts *opts, const char *target, at_rec_best *best,
                            const at_tophub_package **used_out, size_t *n_loaded_out);

/* TVM's load_reference_log(backend, model, workload_name), used by fallback templates (Mali): the
 * records of the backend's pack whose target model is `model` (or, when the pack has no record
 * of that model, of the model with the most records, first on ties) and whose template name is
 * workload_name, in file order, as a log named after the pack file. An unknown backend gives an
 * empty log. The pack is downloaded when missing unless the location is "NONE"; a failed download
 * is reported with at_log(WARN) and gives an empty log (TVM would raise). No process-wide cache is
 * kept (TVM's REFERENCE_LOG_CACHE): callers that query often keep the result. *out is owned by
 * the caller (at_rec_log_free).
 * Returns AT_OK, AT_EINVAL (no cache directory: HOME unset), AT_EIO (cached file unreadable) or
 * AT_ENOMEM. */
at_status at_tophub_load_reference_log(const at_tophub_opts *opts, const char *backend, const char *model,
                                       const char *workload_name, at_rec_log **out);

#endif
