/* Fallback configs (FallbackConfigEntity): entity 0 of every knob, fallback_split's greedy
 * divisor choice from the last size to the first, and fallback_with_reference_log's
 * divisor-overlap match against TopHub records. Configs are never edited in place: each step
 * builds a complete new config and swaps it in, so a failure leaves the caller's intact. */
#include <string.h>

#include "core/alloc.h"
#include "knobs/internal.h"
#include "knobs/space.h"

/* TVM replaces the "no limit" constraint -1 by 1e10. */
#define NO_LIMIT 10000000000LL

at_status at_space_fallback_config(const at_space *s, at_config **out)
{
    AT_ASSERT(s && out);
    at_config *c;
    AT_TRY(at_config_new(-1, s->code_hash, &c));
    for (size_t k = 0; k < s->n_knobs; k++) {
        at_status st = at_config_add_entity(c, at_knobs_entity(&s->knobs[k], 0));
        if (st != AT_OK) {
            at_config_free(c);
            return st;
        }
    }
    *out = c;
    return AT_OK;
}

/* fallback_split's size choice: sizes[i] for i from last to first is the largest divisor of
 * what is left that does not exceed constraints[i]. */
static at_status fallback_sizes(const at_knob *kb, const int64_t *constraints, int64_t *sizes)
{
    if (kb->product < 1)
        return AT_FAIL(AT_EINVAL, "fallback split '%s': axis extent %lld has no divisors", kb->name,
                       (long long)kb->product);
    int64_t now = kb->product;
    for (size_t i = kb->n_axes; i-- > 0;) {
        int64_t limit = constraints[i] == -1 ? NO_LIMIT : constraints[i];
        int64_t *f;
        size_t nf;
        AT_TRY(at_knobs_factors(now, &f, &nf));
        int64_t pick = 0;
        for (size_t j = 0; j < nf && f[j] <= limit; j++) pick = f[j];
        at_free(f);
        if (pick == 0) return AT_FAIL(AT_EINVAL, "Cannot find feasible fallback split entity for node: %s", kb->name);
        sizes[i] = pick;
        now /= pick;
    }
    return AT_OK;
}

/* Checks that c is a fallback config of s: one entity per knob, same names, in knob order. */
static void assert_fallback_shape(const at_space *s, const at_config *c)
{
    AT_ASSERT(at_config_len(c) == s->n_knobs);
    for (size_t k = 0; k < s->n_knobs; k++) AT_ASSERT(strcmp(at_config_at(c, k)->name, s->knobs[k].name) == 0);
}

/* New config with c's index and hash and the entities ents[0..n). */
static at_status build(const at_config *c, const at_entity *ents, size_t n, at_config **out)
{
    at_config *nc;
    AT_TRY(at_config_new(at_config_index(c), at_config_code_hash(c), &nc));
    for (size_t i = 0; i < n; i++) {
        at_status st = at_config_add_entity(nc, &ents[i]);
        if (st != AT_OK) {
            at_config_free(nc);
            return st;
        }
    }
    *out = nc;
    return AT_OK;
}

/* Shallow views of the config's entities, to be partly replaced before build(). */
static at_entity *entity_views(const at_config *c)
{
    size_t n = at_config_len(c);
    at_entity *v = at_calloc(n + 1, sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++) v[i] = *at_config_at(c, i);
    return v;
}

at_status at_space_fallback_split(const at_space *s, at_config **c, size_t knob, const int64_t *constraints, size_t n)
{
    AT_ASSERT(s && c && *c && constraints && knob < s->n_knobs);
    const at_knob *kb = &s->knobs[knob];
    AT_ASSERT(kb->kind == AT_KNOB_SPLIT && n == kb->n_axes);
    assert_fallback_shape(s, *c);
    int64_t *sizes = at_malloc(n * sizeof *sizes);
    at_entity *views = entity_views(*c);
    at_status st = AT_OK;
    if (!sizes || !views) {
        st = AT_OOM();
        goto done;
    }
    if ((st = fallback_sizes(kb, constraints, sizes)) != AT_OK) goto done;
    views[knob] = (at_entity){.name = kb->name, .kind = AT_KNOB_SPLIT, .n = n, .ints = sizes};
    at_config *nc;
    if ((st = build(*c, views, s->n_knobs, &nc)) != AT_OK) goto done;
    at_config_free(*c);
    *c = nc;
done:
    at_free(sizes);
    at_free(views);
    return st;
}

at_status at_space_fallback_set(const at_space *s, at_config **c, size_t knob, const at_entity *e)
{
    AT_ASSERT(s && c && *c && e && knob < s->n_knobs);
    const at_knob *kb = &s->knobs[knob];
    AT_ASSERT(e->kind == kb->kind);
    assert_fallback_shape(s, *c);
    at_entity *views = entity_views(*c);
    if (!views) return AT_OOM();
    views[knob] = *e;
    views[knob].name = kb->name;
    at_config *nc;
    at_status st = build(*c, views, s->n_knobs, &nc);
    at_free(views);
    if (st != AT_OK) return st;
    at_config_free(*c);
    *c = nc;
    return AT_OK;
}

/* |a ∩ b| of two ascending lists. */
static size_t intersect_count(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    size_t i = 0, j = 0, n = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (a[i] > b[j]) j++;
        else n++, i++, j++;
    }
    return n;
}

/* The reference's split entity for a knob, checked. */
static at_status ref_split(const at_config *r, size_t ri, const at_knob *kb, const at_entity **out)
{
    const at_entity *e = at_config_find(r, kb->name);
    if (!e) return AT_FAIL(AT_EINVAL, "reference config %zu lacks split knob '%s'", ri, kb->name);
    if (e->kind != AT_KNOB_SPLIT || !e->ints)
        return AT_FAIL(AT_EINVAL, "reference config %zu: knob '%s' is '%s', not a split", ri, kb->name, at_knob_tag(e->kind));
    *out = e;
    return AT_OK;
}

/* Product of a reference split's sizes; < 1 (a -1 size, a zero) cannot be factored. */
static at_status ref_product(const at_entity *e, size_t ri, int64_t *out)
{
    int64_t p = 1;
    for (size_t i = 0; i < e->n; i++) {
        if (e->ints[i] < 1 || p > INT64_MAX / e->ints[i]) {
            char buf[128];
            at_knobs_fmt_ints(buf, sizeof buf, e->ints, e->n);
            return AT_FAIL(AT_EINVAL,
                           "reference config %zu: knob '%s' sizes %s have no positive product (only explicit sizes "
                           "can serve as reference)",
                           ri, e->name, buf);
        }
        p *= e->ints[i];
    }
    *out = p;
    return AT_OK;
}

/* Scores every reference (sum over split knobs of |F(extent) ∩ F(ref product)| / |F(extent)|)
 * and gives the position of the first with the highest score > 0, or n_refs when none. */
static at_status best_reference(const at_space *s, const at_config *const *refs, size_t n_refs,
                                size_t *best)
{
    at_status st = AT_OK;
    *best = n_refs;
    int64_t **flist = at_calloc(s->n_knobs + 1, sizeof *flist);
    size_t *nflist = at_calloc(s->n_knobs + 1, sizeof *nflist);
    if (!flist || !nflist) {
        st = AT_OOM();
        goto done;
    }
    for (size_t k = 0; k < s->n_knobs; k++) {
        const at_knob *kb = &s->knobs[k];
        if (kb->kind != AT_KNOB_SPLIT) continue;
        if (kb->product < 1) {
            st = AT_FAIL(AT_EINVAL, "fallback: split '%s' has extent %lld, which has no divisors", kb->name,
                         (long long)kb->product);
            goto done;
        }
        if ((st = at_knobs_factors(kb->product, &flist[k], &nflist[k])) != AT_OK) goto done;
    }
    double best_score = 0.0;
    for (size_t r = 0; r < n_refs; r++) {
        double score = 0.0;
        for (size_t k = 0; k < s->n_knobs; k++) {
            const at_knob *kb = &s->knobs[k];
            if (kb->kind != AT_KNOB_SPLIT) continue;
            const at_entity *e = NULL;
            int64_t prod = 0, *rf;
            size_t nrf;
            if ((st = ref_split(refs[r], r, kb, &e)) != AT_OK || (st = ref_product(e, r, &prod)) != AT_OK ||
                (st = at_knobs_factors(prod, &rf, &nrf)) != AT_OK)
                goto done;
            score += (double)intersect_count(flist[k], nflist[k], rf, nrf) / (double)nflist[k];
            at_free(rf);
            if (score > best_score) { /* TVM compares after every knob's partial sum */
                best_score = score;
                *best = r;
            }
        }
    }
done:
    if (flist)
        for (size_t k = 0; k < s->n_knobs; k++) at_free(flist[k]);
    at_free(flist);
    at_free(nflist);
    return st;
}

at_status at_space_fallback_with_reference_log(const at_space *s, at_config **c, const at_config *const *refs,
                                               size_t n_refs)
{
    AT_ASSERT(s && c && *c && (refs || n_refs == 0));
    assert_fallback_shape(s, *c);
    size_t bi;
    AT_TRY(best_reference(s, refs, n_refs, &bi));
    if (bi == n_refs) return AT_OK;
    const at_config *best = refs[bi];

    size_t total = 0;
    for (size_t k = 0; k < s->n_knobs; k++)
        if (s->knobs[k].kind == AT_KNOB_SPLIT) total += s->knobs[k].n_axes;
    int64_t *sizes = at_malloc((total + 1) * sizeof *sizes);
    at_entity *views = entity_views(*c);
    at_status st = AT_OK;
    if (!sizes || !views) {
        st = AT_OOM();
        goto done;
    }
    /* mimic its tiling: fallback_split with the reference sizes, first one unlimited */
    int64_t *next = sizes;
    for (size_t k = 0; k < s->n_knobs; k++) {
        const at_knob *kb = &s->knobs[k];
        if (kb->kind != AT_KNOB_SPLIT) continue;
        const at_entity *e = NULL;
        if ((st = ref_split(best, bi, kb, &e)) != AT_OK) goto done;
        if (e->n != kb->n_axes) {
            st = AT_FAIL(AT_EINVAL, "reference split '%s' has %zu sizes, the space's has %zu", kb->name, e->n, kb->n_axes);
            goto done;
        }
        memcpy(next, e->ints, e->n * sizeof *next);
        next[0] = -1;
        if ((st = fallback_sizes(kb, next, next)) != AT_OK) goto done;
        views[k] = (at_entity){.name = kb->name, .kind = AT_KNOB_SPLIT, .n = kb->n_axes, .ints = next};
        next += kb->n_axes;
    }
    /* copy every other knob verbatim */
    for (size_t k = 0; k < s->n_knobs; k++) {
        const at_knob *kb = &s->knobs[k];
        if (kb->kind == AT_KNOB_SPLIT) continue;
        const at_entity *e = at_config_find(best, kb->name);
        if (!e) {
            st = AT_FAIL(AT_EINVAL, "reference config %zu lacks knob '%s'", bi, kb->name);
            goto done;
        }
        views[k] = *e;
    }
    at_config *nc;
    if ((st = build(*c, views, s->n_knobs, &nc)) != AT_OK) goto done;
    at_config_free(*c);
    *c = nc;
done:
    at_free(sizes);
    at_free(views);
    return st;
}
