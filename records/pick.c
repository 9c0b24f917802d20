/* pick-best and split over whole logs. Winners are found by record identity in the best tables
 * (never by re-encoding), so each is written as the very line that won; split groups by sorting
 * (key, position) pairs, which keeps first-appearance order without a hash set. */
#include "records/pick.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "records/best.h"

/* Appends a record's line: its original text when it was read from a log. */
static void put_line(at_strbuf *sb, const at_rec *r)
{
    if (r->text)
        at_strbuf_puts(sb, r->text);
    else
        at_rec_write(r, sb);
    at_strbuf_putc(sb, '\n');
}

static bool listed_before(const at_rec_log *const *srcs, size_t s)
{
    for (size_t t = 0; t < s; t++)
        if (srcs[t] == srcs[s]) return true;
    return false;
}

at_status at_rec_pick_best_logs(const at_rec_log *const *srcs, size_t n_srcs, char **out_text, size_t *n_written,
                                size_t *n_model_keys, size_t *n_target_keys)
{
    *out_text = NULL;
    *n_written = 0;
    at_rec_best *best;
    AT_TRY(at_rec_best_new(&best));
    at_status st = AT_OK;
    for (size_t s = 0; st == AT_OK && s < n_srcs; s++) st = at_rec_best_add_log(best, srcs[s]);
    at_strbuf sb;
    at_strbuf_init(&sb);
    size_t written = 0;
    for (size_t s = 0; st == AT_OK && s < n_srcs; s++) {
        if (listed_before(srcs, s)) continue; /* its winners are written already */
        for (size_t i = 0; i < srcs[s]->n; i++) {
            const at_rec *r = &srcs[s]->recs[i];
            if (!at_rec_best_is_winner(best, r)) continue;
            put_line(&sb, r);
            written++;
        }
    }
    if (n_model_keys) *n_model_keys = at_rec_best_n_model_keys(best);
    if (n_target_keys) *n_target_keys = at_rec_best_n_target_keys(best);
    at_rec_best_free(best);
    if (st != AT_OK) {
        at_strbuf_fini(&sb);
        return st;
    }
    char *text = at_strbuf_take(&sb);
    if (!text) return AT_OOM();
    *out_text = text;
    *n_written = written;
    return AT_OK;
}

/* OUT must not be IN (by device and inode: a hard link, a symlink or "./IN" is the same file)
 * and must be a regular file when it exists. *exists says whether it does. */
static at_status check_out_path(const char *in_path, const char *out_path, bool *exists)
{
    struct stat in_st, out_st;
    *exists = false;
    if (stat(out_path, &out_st) != 0) return AT_OK; /* created by the atomic write (or it fails there) */
    *exists = true;
    if (!S_ISREG(out_st.st_mode))
        return AT_FAIL(AT_EINVAL, "output '%s' is not a regular file; refusing to replace it", out_path);
    if (stat(in_path, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
        return AT_FAIL(AT_EINVAL,
                       "input '%s' and output '%s' are the same file; writing the best records over "
                       "it would drop the rest (give another OUT)",
                       in_path, out_path);
    return AT_OK;
}

/* An existing OUT whose own pick-best keeps fewer records than it holds is a tuning log, not a
 * best-records file: replacing it would drop measurements. */
static at_status check_not_history(const at_rec_log *old, const char *out_path)
{
    const at_rec_log *one[1] = {old};
    char *text = NULL;
    size_t kept = 0;
    AT_TRY(at_rec_pick_best_logs(one, 1, &text, &kept, NULL, NULL));
    at_free(text);
    if (kept == old->n) return AT_OK;
    return AT_FAIL(AT_EINVAL,
                   "output '%s' holds %zu records of which only %zu are best per workload (a tuning log?); "
                   "refusing to replace it (--force to allow)",
                   out_path, old->n, kept);
}

at_status at_rec_pick_best_opts(const char *in_path, const char *out_path, const at_rec_pick_opts *opts,
                                at_rec_pick_stats *stats)
{
    bool force = opts && opts->force, out_exists;
    AT_TRY(check_out_path(in_path, out_path, &out_exists));
    at_rec_log *in = NULL, *old = NULL;
    AT_TRY(at_rec_log_load_file(in_path, &in));
    at_status st = AT_OK;
    if (out_exists) st = at_rec_log_load_file(out_path, &old);
    if (st == AT_OK && old && !force) st = check_not_history(old, out_path);
    const at_rec_log *srcs[2] = {in, old};
    char *text = NULL;
    size_t written = 0, n_model = 0, n_key = 0;
    if (st == AT_OK) st = at_rec_pick_best_logs(srcs, old ? 2 : 1, &text, &written, &n_model, &n_key);
    if (st == AT_OK) st = at_rec_write_file_atomic(out_path, text, strlen(text));
    if (st == AT_OK && stats) {
        memset(stats, 0, sizeof *stats);
        stats->in = in->stats;
        if (old) stats->old_out = old->stats;
        stats->written = written;
        stats->n_model_keys = n_model;
        stats->n_target_keys = n_key;
    }
    at_free(text);
    at_rec_log_free(in);
    at_rec_log_free(old);
    return st;
}

at_status at_rec_pick_best(const char *in_path, const char *out_path, at_rec_pick_stats *stats)
{
    return at_rec_pick_best_opts(in_path, out_path, NULL, stats);
}

typedef struct keyed {
    char  *key;
    size_t pos;  /* record index in the log */
    int    keep; /* split: 1 unless a duplicate */
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

typedef struct group {
    size_t first; /* smallest record index of the group */
    size_t start, n; /* its run in the sorted workload array */
} group;

static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static char *workload_key(const at_rec *r)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_target_write_canonical(&r->target, &sb);
    at_strbuf_putc(&sb, '\n');
    at_strbuf_puts(&sb, r->task_name);
    at_strbuf_putc(&sb, '\n');
    at_strbuf_puts(&sb, r->args_json);
    at_strbuf_putc(&sb, '\n');
    at_strbuf_puts(&sb, r->kwargs_json);
    return at_strbuf_take(&sb);
}

static char *config_key(const at_rec *r)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_config_write_json(r->config, &sb);
    return at_strbuf_take(&sb);
}

static void free_keyed(keyed *k, size_t n)
{
    if (!k) return;
    for (size_t i = 0; i < n; i++) at_free(k[i].key);
    at_free(k);
}

/* Marks later duplicates (same config) inside one group's run wl[0..n). */
static at_status mark_duplicates(const at_rec_log *log, keyed *wl, size_t n, size_t *dups)
{
    keyed *ck = at_calloc(n ? n : 1, sizeof *ck);
    if (!ck) return AT_OOM();
    for (size_t i = 0; i < n; i++) {
        ck[i].pos = i; /* index into wl */
        if (!(ck[i].key = config_key(&log->recs[wl[i].pos]))) {
            free_keyed(ck, n);
            return AT_OOM();
        }
    }
    qsort(ck, n, sizeof *ck, cmp_keyed); /* wl is in record order, so pos order = record order */
    for (size_t i = 1; i < n; i++) {
        if (!strcmp(ck[i].key, ck[i - 1].key)) {
            wl[ck[i].pos].keep = 0;
            (*dups)++;
        }
    }
    free_keyed(ck, n);
    return AT_OK;
}

static at_status split_log(const at_rec_log *log, const char *in_path, at_rec_split_stats *st_out)
{
    size_t n = log->n, n_groups = 0;
    keyed *wl = at_calloc(n ? n : 1, sizeof *wl);
    group *groups = at_calloc(n ? n : 1, sizeof *groups);
    at_status st = wl && groups ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < n; i++) {
        wl[i].pos = i;
        wl[i].keep = 1;
        if (!(wl[i].key = workload_key(&log->recs[i]))) st = AT_OOM();
    }
    if (st == AT_OK) {
        qsort(wl, n, sizeof *wl, cmp_keyed);
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || strcmp(wl[i].key, wl[i - 1].key)) groups[n_groups++] = (group){.first = wl[i].pos, .start = i};
            groups[n_groups - 1].n++;
        }
        qsort(groups, n_groups, sizeof *groups, cmp_group);
    }
    at_strbuf text, name;
    at_strbuf_init(&text);
    at_strbuf_init(&name);
    for (size_t g = 0; st == AT_OK && g < n_groups; g++) {
        keyed *run = wl + groups[g].start;
        st = mark_duplicates(log, run, groups[g].n, &st_out->duplicates);
        if (st != AT_OK) break;
        at_strbuf_clear(&text);
        at_strbuf_clear(&name);
        for (size_t i = 0; i < groups[g].n; i++) {
            if (!run[i].keep) continue;
            put_line(&text, &log->recs[run[i].pos]);
            st_out->written++;
        }
        at_strbuf_printf(&name, "%s.%03zu.wkl", in_path, g);
        st = at_strbuf_status(&text);
        if (st == AT_OK) st = at_strbuf_status(&name);
        if (st == AT_OK) st = at_rec_write_file_atomic(name.data, text.data ? text.data : "", text.len);
        if (st == AT_OK) st_out->files++;
    }
    at_strbuf_fini(&text);
    at_strbuf_fini(&name);
    free_keyed(wl, n);
    at_free(groups);
    return st;
}

at_status at_rec_split(const char *in_path, at_rec_split_stats *stats)
{
    at_rec_log *log;
    AT_TRY(at_rec_log_load_file(in_path, &log));
    at_rec_split_stats s = {.in = log->stats};
    at_status st = split_log(log, in_path, &s);
    at_rec_log_free(log);
    if (st == AT_OK && stats) *stats = s;
    return st;
}
