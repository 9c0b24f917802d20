/* The config space object: knob storage, the mixed-radix index (first knob fastest) and the
 * multi_filter cache. Every entity is stored once, flat, with an at_entity view built at commit
 * time, so queries and get() never enumerate anything again and never allocate except for the
 * config they return. */
#include "knobs/space.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "knobs/internal.h"

const char *const at_knobs_ann_names[AT_KNOBS_N_ANN] = {
    "none",        "vec",         "unroll",      "blockIdx.x", "blockIdx.y", "blockIdx.z",
    "threadIdx.x", "threadIdx.y", "threadIdx.z", "vthread",    "fuse",
};

int at_knobs_ann_code(const char *ann)
{
    for (int i = 0; i < AT_KNOBS_N_ANN; i++)
        if (strcmp(ann, at_knobs_ann_names[i]) == 0) return i;
    return -1;
}

/* ---- small helpers ---------------------------------------------------------------------- */

at_status at_knobs_vec_push(at_knobs_vec *vec, int64_t x)
{
    return at_knobs_vec_append(vec, &x, 1);
}

at_status at_knobs_vec_append(at_knobs_vec *vec, const int64_t *x, size_t n)
{
    if (vec->n + n > vec->cap) {
        size_t cap = vec->cap ? vec->cap : 16;
        while (cap < vec->n + n) cap *= 2;
        int64_t *v = at_realloc(vec->v, cap * sizeof *v);
        if (!v) return AT_OOM();
        vec->v = v;
        vec->cap = cap;
    }
    if (n) memcpy(vec->v + vec->n, x, n * sizeof *x);
    vec->n += n;
    return AT_OK;
}

void at_knobs_vec_fini(at_knobs_vec *vec)
{
    at_free(vec->v);
    vec->v = NULL;
    vec->n = vec->cap = 0;
}

void at_knobs_fmt_ints(char *buf, size_t cap, const int64_t *v, size_t n)
{
    size_t len = 0;
    int w = snprintf(buf, cap, "[");
    len = w > 0 ? (size_t)w : 0;
    for (size_t i = 0; i < n && len < cap; i++) {
        w = snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)v[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
    if (len < cap) snprintf(buf + len, cap - len, "]");
    if (len + 1 >= cap && cap > 4) strcpy(buf + cap - 4, "...");
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

at_status at_space_new(at_space **out)
{
    AT_ASSERT(out);
    at_space *s = at_calloc(1, sizeof *s);
    if (!s) return AT_OOM();
    s->range_len = 1;
    s->n_valid = 1;
    *out = s;
    return AT_OK;
}

void at_knobs_knob_fini(at_knob *k)
{
    if (k->vals) {
        for (int64_t i = 0; i < k->len; i++)
            if (k->vals[i].kind == AT_VAL_STR) at_free((void *)(uintptr_t)k->vals[i].s);
    }
    at_free(k->name);
    at_free(k->policy_text);
    at_free(k->ints);
    at_free(k->anns);
    at_free(k->vals);
    at_free(k->ents);
    memset(k, 0, sizeof *k);
}

void at_space_free(at_space *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_knobs; i++) at_knobs_knob_fini(&s->knobs[i]);
    at_free(s->knobs);
    at_free(s->code_hash);
    at_free(s->valid);
    at_free(s);
}

at_status at_space_set_code_hash(at_space *s, const char *code_hash)
{
    AT_ASSERT(s);
    char *copy = NULL;
    if (code_hash && !(copy = at_strdup(code_hash))) return AT_OOM();
    at_free(s->code_hash);
    s->code_hash = copy;
    return AT_OK;
}

const char *at_space_code_hash(const at_space *s)
{
    AT_ASSERT(s);
    return s->code_hash;
}

/* ---- definition plumbing ------------------------------------------------------------------ */

at_status at_knobs_check_new(const at_space *s, size_t knob, const char *name)
{
    AT_ASSERT(s && name);
    AT_ASSERT(knob == s->n_knobs); /* knob ids are positions: define in enum order */
    if (!*name) return AT_FAIL(AT_EINVAL, "knob %zu: empty knob name", knob);
    for (size_t i = 0; i < s->n_knobs; i++)
        if (strcmp(s->knobs[i].name, name) == 0)
            return AT_FAIL(AT_EINVAL, "knob '%s' is defined twice (knobs %zu and %zu)", name, i, knob);
    return AT_OK;
}

/* Evaluates the multi_filter for every index of the range (TVM's _make_shared_filter_cache). */
static at_status compute_valid(const at_space *s, uint8_t **bits_out, int64_t *n_out)
{
    at_status st = AT_OK;
    size_t nk = s->n_knobs;
    uint8_t *bits = at_calloc((size_t)(s->range_len / 8) + 1, 1);
    const at_entity **ptrs = at_calloc(nk + 1, sizeof *ptrs);
    int64_t *digits = at_calloc(nk + 1, sizeof *digits);
    if (!bits || !ptrs || !digits) {
        st = AT_OOM();
        goto done;
    }
    int64_t n_valid = 0;
    for (size_t k = 0; k < nk; k++) ptrs[k] = at_knobs_entity(&s->knobs[k], 0);
    for (int64_t idx = 0; idx < s->range_len; idx++) {
        if (s->filter(ptrs, nk, s->filter_ctx)) {
            bits[idx >> 3] |= (uint8_t)(1u << (idx & 7));
            n_valid++;
        }
        for (size_t k = 0; k < nk; k++) { /* odometer, first knob fastest */
            const at_knob *kb = &s->knobs[k];
            if (++digits[k] < kb->len) {
                ptrs[k] = at_knobs_entity(kb, digits[k]);
                break;
            }
            digits[k] = 0;
            ptrs[k] = at_knobs_entity(kb, 0);
        }
    }
    *bits_out = bits;
    *n_out = n_valid;
    bits = NULL;
done:
    at_free(bits);
    at_free(ptrs);
    at_free(digits);
    return st;
}

/* Recomputes the filter cache after the space changed; on failure the old cache stays. */
static at_status refresh_valid(at_space *s)
{
    if (!s->filter) {
        at_free(s->valid);
        s->valid = NULL;
        s->n_valid = s->range_len;
        return AT_OK;
    }
    uint8_t *bits = NULL;
    int64_t n = 0;
    AT_TRY(compute_valid(s, &bits, &n));
    at_free(s->valid);
    s->valid = bits;
    s->n_valid = n;
    return AT_OK;
}

at_status at_knobs_commit(at_space *s, at_knob *k)
{
    at_status st;
    if (k->len <= 0) {
        st = AT_FAIL(AT_EINVAL, "knob '%s': the definition leaves no entity", k->name);
        goto fail;
    }
    if (s->range_len > INT64_MAX / k->len) {
        st = AT_FAIL(AT_EINVAL, "knob '%s': the space grows beyond 2^63 indices (%lld x %lld)", k->name,
                     (long long)s->range_len, (long long)k->len);
        goto fail;
    }
    k->ents = at_calloc((size_t)k->len, sizeof *k->ents);
    if (!k->ents) {
        st = AT_OOM();
        goto fail;
    }
    for (int64_t i = 0; i < k->len; i++) {
        at_entity *e = &k->ents[i];
        e->name = k->name;
        e->kind = k->kind;
        e->n = k->width;
        if (k->ints) e->ints = k->ints + (size_t)i * k->width;
        if (k->anns) e->anns = k->anns + (size_t)i * k->width;
        if (k->vals) e->val = k->vals[i];
    }
    if (s->n_knobs == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        at_knob *knobs = at_realloc(s->knobs, cap * sizeof *knobs);
        if (!knobs) {
            st = AT_OOM();
            goto fail;
        }
        s->knobs = knobs;
        s->cap = cap;
    }
    k->stride = s->range_len;
    s->knobs[s->n_knobs++] = *k;
    int64_t old_range = s->range_len;
    s->range_len *= k->len;
    st = refresh_valid(s);
    if (st != AT_OK) {
        s->n_knobs--;
        s->range_len = old_range;
        goto fail;
    }
    if (!s->filter) s->n_valid = s->range_len;
    memset(k, 0, sizeof *k);
    return AT_OK;
fail:
    at_knobs_knob_fini(k);
    return st;
}

/* ---- define_knob -------------------------------------------------------------------------- */

at_status at_space_other_vals(at_space *s, size_t knob, const char *name, const at_val *candidates,
                              size_t n)
{
    AT_TRY(at_knobs_check_new(s, knob, name));
    AT_ASSERT(candidates || n == 0);
    if (n == 0) return AT_FAIL(AT_EINVAL, "knob '%s': define_knob needs at least one candidate", name);
    at_knob k = {.kind = AT_KNOB_OTHER, .len = (int64_t)n};
    at_status st = AT_OK;
    if (!(k.name = at_strdup(name)) || !(k.vals = at_calloc(n, sizeof *k.vals))) {
        k.len = 0;
        st = AT_OOM();
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        k.vals[i] = candidates[i];
        if (candidates[i].kind == AT_VAL_STR) {
            AT_ASSERT(candidates[i].s);
            k.vals[i].s = at_strdup(candidates[i].s);
            if (!k.vals[i].s) {
                k.vals[i].kind = AT_VAL_NULL; /* nothing to free for this one */
                st = AT_OOM();
                goto fail;
            }
        }
    }
    return at_knobs_commit(s, &k);
fail:
    at_knobs_knob_fini(&k);
    return st;
}

at_status at_space_other(at_space *s, size_t knob, const char *name, const int64_t *candidates, size_t n)
{
    AT_TRY(at_knobs_check_new(s, knob, name));
    AT_ASSERT(candidates || n == 0);
    if (n == 0) return AT_FAIL(AT_EINVAL, "knob '%s': define_knob needs at least one candidate", name);
    at_val *vals = at_calloc(n, sizeof *vals);
    if (!vals) return AT_OOM();
    for (size_t i = 0; i < n; i++) vals[i] = AT_VAL_OF_INT(candidates[i]);
    at_status st = at_space_other_vals(s, knob, name, vals, n);
    at_free(vals);
    return st;
}

/* ---- multi_filter ------------------------------------------------------------------------- */

at_status at_space_multi_filter(at_space *s, at_multi_filter fn, void *ctx)
{
    AT_ASSERT(s);
    at_multi_filter old_fn = s->filter;
    void *old_ctx = s->filter_ctx;
    s->filter = fn;
    s->filter_ctx = ctx;
    at_status st = refresh_valid(s);
    if (st != AT_OK) {
        s->filter = old_fn;
        s->filter_ctx = old_ctx;
    }
    return st;
}

/* ---- queries ------------------------------------------------------------------------------ */

static const at_knob *knob_at(const at_space *s, size_t knob)
{
    AT_ASSERT(s && knob < s->n_knobs);
    return &s->knobs[knob];
}

size_t at_space_n_knobs(const at_space *s)
{
    AT_ASSERT(s);
    return s->n_knobs;
}

const char *at_space_knob_name(const at_space *s, size_t knob)
{
    return knob_at(s, knob)->name;
}

at_knob_kind at_space_knob_kind(const at_space *s, size_t knob)
{
    return knob_at(s, knob)->kind;
}

bool at_space_find_knob(const at_space *s, const char *name, size_t *knob)
{
    AT_ASSERT(s && name);
    for (size_t i = 0; i < s->n_knobs; i++) {
        if (strcmp(s->knobs[i].name, name) == 0) {
            if (knob) *knob = i;
            return true;
        }
    }
    return false;
}

int64_t at_space_dim(const at_space *s, size_t knob)
{
    return knob_at(s, knob)->len;
}

const at_entity *at_space_entity(const at_space *s, size_t knob, int64_t i)
{
    const at_knob *k = knob_at(s, knob);
    AT_ASSERT(i >= 0 && i < k->len);
    return at_knobs_entity(k, i);
}

int64_t at_space_split_product(const at_space *s, size_t knob)
{
    const at_knob *k = knob_at(s, knob);
    AT_ASSERT(k->kind == AT_KNOB_SPLIT);
    return k->product;
}

int64_t at_space_range_len(const at_space *s)
{
    AT_ASSERT(s);
    return s->range_len;
}

int64_t at_space_len(const at_space *s)
{
    AT_ASSERT(s);
    return s->n_valid;
}

static bool bit_valid(const at_space *s, int64_t index)
{
    return !s->valid || (s->valid[index >> 3] >> (index & 7)) & 1u;
}

bool at_space_is_index_valid(const at_space *s, int64_t index)
{
    AT_ASSERT(s && index >= 0 && index < s->range_len);
    return bit_valid(s, index);
}

int64_t at_space_subrange_len(const at_space *s, int64_t start, int64_t end)
{
    AT_ASSERT(s && 0 <= start && start <= end && end <= s->range_len);
    if (!s->valid) return end - start;
    int64_t n = 0;
    for (int64_t i = start; i < end; i++) n += bit_valid(s, i);
    return n;
}

void at_space_point_to_knobs(const at_space *s, int64_t index, int64_t *knobs)
{
    AT_ASSERT(s && (knobs || s->n_knobs == 0));
    for (size_t k = 0; k < s->n_knobs; k++) {
        knobs[k] = index % s->knobs[k].len;
        index /= s->knobs[k].len;
    }
}

int64_t at_space_knobs_to_point(const at_space *s, const int64_t *knobs)
{
    AT_ASSERT(s && (knobs || s->n_knobs == 0));
    int64_t point = 0;
    for (size_t k = 0; k < s->n_knobs; k++) {
        AT_ASSERT(knobs[k] >= 0 && knobs[k] < s->knobs[k].len);
        point += knobs[k] * s->knobs[k].stride;
    }
    return point;
}

bool at_space_next_index(const at_space *s, int64_t index, int64_t n, int64_t start, int64_t end,
                         int64_t *out)
{
    AT_ASSERT(s && out && n != 0);
    if (end == 0) end = s->range_len;
    AT_ASSERT(start >= 0 && end <= s->range_len);
    if (!s->valid) {
        index += n;
        if (start <= index && index < end) {
            *out = index;
            return true;
        }
        return false;
    }
    int64_t trend = n > 0 ? 1 : -1;
    int64_t counter = n > 0 ? n : -n;
    while (counter != 0) {
        index += trend;
        if (index < start || index >= end) return false;
        if (bit_valid(s, index)) counter--;
    }
    *out = index;
    return true;
}

/* ---- get ---------------------------------------------------------------------------------- */

at_status at_space_get(const at_space *s, int64_t index, at_config **out)
{
    AT_ASSERT(s && out);
    if (index < 0 || index >= s->range_len)
        return AT_FAIL(AT_EINVAL, "index out of range: size %lld, got index %lld", (long long)s->range_len,
                       (long long)index);
    if (!bit_valid(s, index))
        return AT_FAIL(AT_EINVAL, "index %lld does not pass the space's multi_filter", (long long)index);
    at_config *c;
    AT_TRY(at_config_new(index, s->code_hash, &c));
    for (size_t k = 0; k < s->n_knobs; k++) {
        const at_knob *kb = &s->knobs[k];
        at_status st = at_config_add_entity(c, at_knobs_entity(kb, at_knobs_digit(kb, index)));
        if (st != AT_OK) {
            at_config_free(c);
            return st;
        }
    }
    *out = c;
    return AT_OK;
}
