/* Feature cache (TVM's fea_cache): rows by config index, stored sparse (column, value) since the
 * fixed feature grids are mostly zeros, behind an open-addressing index -> row map. When the
 * store would pass its byte budget the cache is emptied at once (TVM empties its dict at
 * 100 000 entries): simple, and rows a refit needs are recomputed on demand. Rows are copied
 * out, so no pointer into the store escapes. */
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "tuners/internal.h"

typedef struct row_ref {
    size_t off, n; /* entries [off, off + n) of the store */
} row_ref;

struct at_tuner_featcache {
    const at_task *task;
    at_feature     feat;
    size_t         width;
    size_t         max_entries; /* the byte budget in (column, value) entries */
    uint32_t      *cols;
    float         *vals;
    size_t         n_entries, cap_entries;
    row_ref       *rows;
    size_t         n_rows, cap_rows;
    int64_t       *keys; /* -1 = empty */
    size_t        *slots; /* row of each key */
    size_t         cap;   /* power of two, at least twice n_rows */
};

static size_t slot_of(int64_t i, size_t cap)
{
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
    return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

at_status at_tuner_featcache_new(const at_task *task, at_feature f, size_t max_bytes, at_tuner_featcache **out)
{
    *out = NULL;
    at_tuner_featcache *c = at_calloc(1, sizeof *c);
    if (!c) return AT_OOM();
    c->task = task;
    c->feat = f;
    c->width = at_tuner_feat_len(f, task);
    AT_ASSERT(c->width > 0 && c->width < UINT32_MAX);
    c->max_entries = max_bytes / (sizeof(uint32_t) + sizeof(float));
    if (c->max_entries < 64 * c->width) c->max_entries = 64 * c->width;
    c->cap = 256;
    c->keys = at_malloc(c->cap * sizeof *c->keys);
    c->slots = at_malloc(c->cap * sizeof *c->slots);
    if (!c->keys || !c->slots) {
        at_tuner_featcache_free(c);
        return AT_OOM();
    }
    for (size_t i = 0; i < c->cap; i++) c->keys[i] = -1;
    *out = c;
    return AT_OK;
}

void at_tuner_featcache_free(at_tuner_featcache *c)
{
    if (!c) return;
    at_free(c->cols);
    at_free(c->vals);
    at_free(c->rows);
    at_free(c->keys);
    at_free(c->slots);
    at_free(c);
}

size_t at_tuner_featcache_width(const at_tuner_featcache *c)
{
    return c->width;
}

static const row_ref *lookup(const at_tuner_featcache *c, int64_t idx)
{
    for (size_t h = slot_of(idx, c->cap);; h = (h + 1) & (c->cap - 1)) {
        if (c->keys[h] == idx) return &c->rows[c->slots[h]];
        if (c->keys[h] < 0) return NULL;
    }
}

/* Doubles the index map, rehashing every key. AT_ENOMEM (map unchanged). */
static at_status grow_map(at_tuner_featcache *c)
{
    size_t cap = 2 * c->cap;
    int64_t *keys = at_malloc(cap * sizeof *keys);
    size_t *slots = at_malloc(cap * sizeof *slots);
    if (!keys || !slots) {
        at_free(keys);
        at_free(slots);
        return AT_OOM();
    }
    for (size_t i = 0; i < cap; i++) keys[i] = -1;
    for (size_t i = 0; i < c->cap; i++) {
        if (c->keys[i] < 0) continue;
        size_t h = slot_of(c->keys[i], cap);
        while (keys[h] >= 0) h = (h + 1) & (cap - 1);
        keys[h] = c->keys[i];
        slots[h] = c->slots[i];
    }
    at_free(c->keys);
    at_free(c->slots);
    c->keys = keys;
    c->slots = slots;
    c->cap = cap;
    return AT_OK;
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap * 2 : 1024;
    while (n < need) n *= 2;
    void *q = at_realloc(*p, n * elem);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/* Stores a computed row; empties the cache first when it is full. AT_ENOMEM (not stored). */
static at_status insert(at_tuner_featcache *c, int64_t idx, const float *row)
{
    size_t nnz = 0;
    for (size_t k = 0; k < c->width; k++) nnz += row[k] != 0.0f; /* NaN counts as a value */
    if (c->n_entries + nnz > c->max_entries) {
        for (size_t i = 0; i < c->cap; i++) c->keys[i] = -1;
        c->n_entries = 0;
        c->n_rows = 0;
    }
    if (c->n_entries + nnz > c->cap_entries) {
        size_t cap = c->cap_entries ? 2 * c->cap_entries : 1024;
        while (cap < c->n_entries + nnz) cap *= 2;
        uint32_t *cols = at_realloc(c->cols, cap * sizeof *cols);
        if (cols) c->cols = cols;
        float *vals = at_realloc(c->vals, cap * sizeof *vals);
        if (vals) c->vals = vals;
        if (!cols || !vals) return AT_OOM(); /* both keep at least the old capacity */
        c->cap_entries = cap;
    }
    if (!grow((void **)&c->rows, &c->cap_rows, c->n_rows + 1, sizeof *c->rows)) return AT_OOM();
    if (2 * (c->n_rows + 1) > c->cap) AT_TRY(grow_map(c));
    row_ref *r = &c->rows[c->n_rows];
    r->off = c->n_entries;
    r->n = nnz;
    for (size_t k = 0; k < c->width; k++) {
        if (row[k] == 0.0f) continue;
        c->cols[c->n_entries] = (uint32_t)k;
        c->vals[c->n_entries++] = row[k];
    }
    size_t h = slot_of(idx, c->cap);
    while (c->keys[h] >= 0) h = (h + 1) & (c->cap - 1);
    c->keys[h] = idx;
    c->slots[h] = c->n_rows++;
    return AT_OK;
}

/* Copies the stored row of hit into row. */
static void copy_out(const at_tuner_featcache *c, const row_ref *hit, float *row)
{
    memset(row, 0, c->width * sizeof *row);
    for (size_t e = hit->off; e < hit->off + hit->n; e++) row[c->cols[e]] = c->vals[e];
}

/* Misses are computed together (at_tuner_feat_extract_many, over the cores), each distinct
 * index once, then stored in the order they were asked for, so the cache's contents do not
 * depend on the threads. */
at_status at_tuner_featcache_rows(at_tuner_featcache *c, const int64_t *xs, size_t n, float *out)
{
    size_t n_miss = 0, n_dup = 0;
    size_t *miss = at_malloc((n + 1) * sizeof *miss), *dup = NULL;
    int64_t *miss_idx = at_malloc((n + 1) * sizeof *miss_idx);
    const at_task **tasks = at_malloc((n + 1) * sizeof *tasks);
    at_status *sts = at_malloc((n + 1) * sizeof *sts);
    at_tuner_idxset seen;
    at_tuner_idxset_init(&seen);
    at_status st = miss && miss_idx && tasks && sts ? AT_OK : AT_OOM();
    for (size_t i = 0; st == AT_OK && i < n; i++) {
        const row_ref *hit = lookup(c, xs[i]);
        if (hit) {
            copy_out(c, hit, out + i * c->width);
            continue;
        }
        bool added = false;
        st = at_tuner_idxset_add(&seen, xs[i], &added);
        if (st == AT_OK && !added) { /* asked twice in one call: copied from the first */
            if (!dup && !(dup = at_malloc(n * sizeof *dup))) st = AT_OOM();
            if (st == AT_OK) dup[n_dup++] = i;
            continue;
        }
        miss[n_miss] = i;
        miss_idx[n_miss] = xs[i];
        tasks[n_miss++] = c->task;
    }
    /* extracted into a packed scratch, then spread to the rows asked for */
    float *rows = st == AT_OK && n_miss ? at_malloc(n_miss * c->width * sizeof *rows) : NULL;
    if (st == AT_OK && n_miss && !rows) st = AT_OOM();
    if (st == AT_OK) st = at_tuner_feat_extract_many(c->feat, tasks, miss_idx, n_miss, c->width, rows, sts);
    for (size_t k = 0; st == AT_OK && k < n_miss; k++) {
        const float *row = rows + k * c->width;
        if (sts[k] == AT_EINVAL) /* cannot be instantiated: TVM's None row, all zeros */
            at_log(AT_LOG_DEBUG, "no %s features for config %lld: it cannot be instantiated", at_feature_name(c->feat),
                   (long long)miss_idx[k]);
        memcpy(out + miss[k] * c->width, row, c->width * sizeof *row);
        st = insert(c, miss_idx[k], row);
    }
    for (size_t d = 0; st == AT_OK && d < n_dup; d++) {
        size_t k = 0;
        while (miss_idx[k] != xs[dup[d]]) k++;
        memcpy(out + dup[d] * c->width, rows + k * c->width, c->width * sizeof *rows);
    }
    at_tuner_idxset_fini(&seen);
    at_free(rows);
    at_free(miss);
    at_free(dup);
    at_free(miss_idx);
    at_free((void *)tasks);
    at_free(sts);
    return st;
}
