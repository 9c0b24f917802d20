/* autotvm tophub fetch|list|path|clear: the TopHub cache from the command line. The argument of
 * fetch is tried as a backend, then a pack name, then a target string, so one word covers all. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/alloc.h"
#include "tophub/tophub.h"

static const char usage[] =
    "usage: autotvm tophub fetch TARGET|BACKEND|PACK [options]\n"
    "       autotvm tophub list [options]\n"
    "       autotvm tophub path BACKEND|PACK [options]\n"
    "       autotvm tophub clear [options]\n"
    "\n"
    "TopHub: TVM's pre-tuned configuration packs, downloaded from a mirror into a local cache and\n"
    "used below your own tuning logs. Packs and versions are TVM v0.18's (see 'list').\n"
    "\n"
    "commands:\n"
    "  fetch X     make sure a pack is cached, downloading it if missing, and print\n"
    "              'tophub: <pack> (<n> records) -> <file>'. X is a backend (mali, vta, cuda, ...),\n"
    "              a pack name (mali_v0.06) or a target string ('opencl -device=mali'), which\n"
    "              picks its pack as TVM does (-device, then keys, then kind)\n"
    "  list        every backend of the table: version, cached or not, record count, file\n"
    "  path X      print the cache file of a backend's (or pack's) pack, cached or not\n"
    "  clear       remove the cached packs (and leftover temp and lock files)\n"
    "\n"
    "options:\n"
    "  --tophub-dir DIR          cache directory (default: $AT_TOPHUB_DIR, else ~/.tvm/tophub)\n"
    "  --location URL            mirror: an http://, https:// or file:// URL, or NONE for no\n"
    "                            downloads (default: $TOPHUB_LOCATION, else\n"
    "                            " AT_TOPHUB_DEFAULT_LOCATION ")\n"
    "  --force                   fetch: download even when cached (a failed download keeps the\n"
    "                            cached file)\n"
    "  --ca-file FILE            fetch: CA bundle for https (default: the system's); peers are\n"
    "                            always verified\n"
    "  --connect-timeout-ms N    fetch: limit on name lookup + connect (default 1000)\n"
    "  --timeout-ms N            fetch: limit on the whole transfer (default 120000)\n"
    "\n"
    "environment:\n"
    "  TOPHUB_LOCATION   the mirror, as in TVM (NONE: TopHub off)\n"
    "  AT_TOPHUB_DIR     the cache directory\n";

static void print_info(const char *pack, const at_tophub_info *info, const char *location)
{
    if (info->downloaded && info->shipped)
        printf("tophub: copied %s.log from the packs installed with autotvm (%zu bytes)\n", pack, info->bytes);
    else if (info->downloaded)
        printf("tophub: downloaded %s.log from %s (%zu bytes, %.2f s)\n", pack, location, info->bytes, info->seconds);
    printf("tophub: %s (%zu records) -> %s\n", pack, info->n_records, info->path);
}

/* Backend or pack name to a pack name; NULL when arg is neither. */
static const char *pack_of(const char *arg)
{
    const at_tophub_package *p = at_tophub_find(arg);
    if (p) return p->pack;
    if (at_tophub_is_pack_name(arg)) return arg;
    return NULL;
}

static int cmd_fetch(const char *arg, const at_tophub_opts *o, bool force)
{
    at_tophub_info info;
    const char *pack = pack_of(arg);
    if (pack) {
        at_status st = at_tophub_fetch(o, pack, force, &info);
        if (st != AT_OK) return at_cli_fail(st);
        print_info(pack, &info, at_tophub_location(o));
        at_tophub_info_fini(&info);
        return 0;
    }
    if (force) return at_cli_usage_error("tophub", "--force needs a backend or pack name, not a target string");
    const at_tophub_package *used = NULL;
    at_status st = at_tophub_fetch_target(o, arg, &used, &info);
    if (st == AT_EPARSE)
        return at_cli_usage_error("tophub", "'%s' is neither a TopHub backend, a pack name nor a target: %s", arg,
                                  at_last_error());
    if (st != AT_OK) return at_cli_fail(st);
    print_info(used->pack, &info, at_tophub_location(o));
    at_tophub_info_fini(&info);
    return 0;
}

static int cmd_list(const at_tophub_opts *o)
{
    char *dir = NULL;
    at_status st = at_tophub_cache_dir(o, &dir);
    if (st != AT_OK) return at_cli_fail(st);
    printf("cache: %s\nmirror: %s\n\n", dir, at_tophub_location(o));
    at_free(dir);
    printf("%-16s %-8s %-7s %8s  %s\n", "backend", "version", "cached", "records", "file");
    for (size_t i = 0; i < AT_TOPHUB_PACKAGE_COUNT; i++) {
        const at_tophub_package *p = at_tophub_package_at(i);
        at_tophub_info info;
        st = at_tophub_cached(o, p->pack, &info);
        if (st == AT_OK) {
            printf("%-16s %-8s %-7s %8zu  %s\n", p->backend, p->version, "yes", info.n_records, info.path);
            at_tophub_info_fini(&info);
        } else if (st == AT_ENOTFOUND) {
            printf("%-16s %-8s %-7s %8s  -\n", p->backend, p->version, "no", "-");
        } else {
            return at_cli_fail(st);
        }
    }
    return 0;
}

static int cmd_path(const char *arg, const at_tophub_opts *o)
{
    const char *pack = pack_of(arg);
    if (!pack) return at_cli_usage_error("tophub", "'%s' is not a TopHub backend or pack name (see 'autotvm tophub list')", arg);
    char *path = NULL;
    at_status st = at_tophub_pack_path(o, pack, &path);
    if (st != AT_OK) return at_cli_fail(st);
    printf("%s\n", path);
    at_free(path);
    return 0;
}

static int cmd_clear(const at_tophub_opts *o)
{
    char *dir = NULL;
    size_t n = 0;
    at_status st = at_tophub_cache_dir(o, &dir);
    if (st == AT_OK) st = at_tophub_clear(o, &n);
    if (st != AT_OK) {
        at_free(dir);
        return at_cli_fail(st);
    }
    printf("tophub: removed %zu file%s from %s\n", n, n == 1 ? "" : "s", dir);
    at_free(dir);
    return 0;
}

int at_cmd_tophub(int argc, char **argv)
{
    const char *dir = NULL, *location = NULL, *ca_file = NULL, *connect_ms = NULL, *total_ms = NULL;
    int force = 0;
    const at_cli_opt opts[] = {
        {"tophub-dir", &dir, NULL},        {"location", &location, NULL},     {"force", NULL, &force},
        {"ca-file", &ca_file, NULL},       {"connect-timeout-ms", &connect_ms, NULL},
        {"timeout-ms", &total_ms, NULL},
    };
    const char *pos[2];
    size_t n_pos = 0;
    int rc = at_cli_parse(argc, argv, opts, sizeof opts / sizeof opts[0], pos, 2, &n_pos, "tophub");
    if (rc == AT_CLI_HELP) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc != AT_CLI_OK) return rc;
    if (n_pos == 0) return at_cli_usage_error("tophub", "missing command (fetch, list, path or clear)");

    at_tophub_opts o = {.cache_dir = dir, .location = location, .ca_file = ca_file};
    long v = 0;
    if (connect_ms) {
        if ((rc = at_cli_parse_long("tophub", "connect-timeout-ms", connect_ms, &v)) != 0) return rc;
        o.connect_timeout_ms = v;
    }
    if (total_ms) {
        if ((rc = at_cli_parse_long("tophub", "timeout-ms", total_ms, &v)) != 0) return rc;
        o.timeout_ms = v;
    }
    const char *cmd = pos[0];
    bool takes_arg = !strcmp(cmd, "fetch") || !strcmp(cmd, "path");
    if (!takes_arg && strcmp(cmd, "list") && strcmp(cmd, "clear"))
        return at_cli_usage_error("tophub", "unknown command '%s' (fetch, list, path or clear)", cmd);
    if (takes_arg && n_pos != 2) return at_cli_usage_error("tophub", "'%s' needs one TARGET, BACKEND or PACK", cmd);
    if (!takes_arg && n_pos != 1) return at_cli_usage_error("tophub", "'%s' takes no argument", cmd);
    if (force && strcmp(cmd, "fetch")) return at_cli_usage_error("tophub", "--force goes with fetch");

    if (!strcmp(cmd, "fetch")) return cmd_fetch(pos[1], &o, force);
    if (!strcmp(cmd, "path")) return cmd_path(pos[1], &o);
    if (!strcmp(cmd, "list")) return cmd_list(&o);
    return cmd_clear(&o);
}
