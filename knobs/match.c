/* index_of: maps a config read from a log onto a space by value, knob by knob, and rebuilds
 * the index from the matched entity positions. Split values also match in the explicit-outer
 * form of logs written before TVM 0.6 ([40, 25, 1] for the entity [-1, 25, 1] of extent
 * 1000), so old TopHub packs map onto the same points as new logs. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/numfmt.h"
#include "knobs/internal.h"
#include "knobs/space.h"

static bool split_matches(const at_knob *k, const int64_t *e, const int64_t *v, size_t n, bool as_given)
{
    if (memcmp(e, v, n * sizeof *e) == 0) return true;
    if (n == 0 || e[0] != -1) return false;
    if (as_given) return memcmp(e + 1, v + 1, (n - 1) * sizeof *e) == 0;
    int64_t rest = 1;
    for (size_t i = 1; i < n; i++) {
        if (e[i] != v[i]) return false;
        /* candidate entities may hold anything: a product we cannot form matches no outer */
        if (rest > 0 && e[i] >= 1 && rest <= INT64_MAX / e[i]) rest *= e[i];
        else rest = 0;
    }
    if (v[0] == -1) return true;
    if (rest <= 0 || k->product < 1) return false;
    return v[0] == (k->product + rest - 1) / rest; /* ceil(product / prod(rest)) */
}

static bool entity_matches(const at_knob *k, const at_entity *ke, const at_entity *ce, bool as_given)
{
    switch (k->kind) {
    case AT_KNOB_SPLIT: return ce->n == ke->n && ce->ints && split_matches(k, ke->ints, ce->ints, ce->n, as_given);
    case AT_KNOB_REORDER:
        return ce->n == ke->n && (ce->n == 0 || (ce->ints && memcmp(ce->ints, ke->ints, ce->n * sizeof *ce->ints) == 0));
    case AT_KNOB_ANNOTATE:
        if (ce->n != ke->n) return false;
        if (ke->anns) {
            if (!ce->anns) return ce->n == 0;
            for (size_t i = 0; i < ce->n; i++)
                if (strcmp(ce->anns[i], ke->anns[i]) != 0) return false;
            return true;
        }
        if (ce->n == 0) return true;
        return ce->ints && memcmp(ce->ints, ke->ints, ce->n * sizeof *ce->ints) == 0;
    case AT_KNOB_OTHER: return at_val_equal(&ce->val, &ke->val);
    case AT_KNOB_COUNT: break;
    }
    AT_ASSERT(0);
    return false;
}

/* A config entity's value as text for messages, JSON-like, truncated to fit. */
static void fmt_value(char *buf, size_t cap, const at_entity *e)
{
    if (e->kind == AT_KNOB_OTHER) {
        char num[AT_FMT_DOUBLE_MAX];
        switch (e->val.kind) {
        case AT_VAL_NULL: snprintf(buf, cap, "null"); return;
        case AT_VAL_BOOL: snprintf(buf, cap, "%s", e->val.b ? "true" : "false"); return;
        case AT_VAL_INT: snprintf(buf, cap, "%" PRId64, e->val.i); return;
        case AT_VAL_FLOAT:
            at_fmt_double(e->val.f, num);
            snprintf(buf, cap, "%s", num);
            return;
        case AT_VAL_STR: snprintf(buf, cap, "\"%s\"", e->val.s ? e->val.s : ""); return;
        }
        snprintf(buf, cap, "?");
        return;
    }
    if (e->anns) {
        size_t len = 0;
        int w = snprintf(buf, cap, "[");
        len = w > 0 ? (size_t)w : 0;
        for (size_t i = 0; i < e->n && len < cap; i++) {
            w = snprintf(buf + len, cap - len, "%s\"%s\"", i ? ", " : "", e->anns[i]);
            if (w < 0) break;
            len += (size_t)w;
        }
        if (len < cap) snprintf(buf + len, cap - len, "]");
        if (len + 1 >= cap && cap > 4) strcpy(buf + cap - 4, "...");
        return;
    }
    at_knobs_fmt_ints(buf, cap, e->ints, e->ints ? e->n : 0);
}

static at_status index_of(const at_space *s, const at_config *c, bool as_given, int64_t *index)
{
    AT_ASSERT(s && c && index);
    int64_t point = 0;
    char val[160];
    for (size_t k = 0; k < s->n_knobs; k++) {
        const at_knob *kb = &s->knobs[k];
        const at_entity *ce = at_config_find(c, kb->name);
        if (!ce) return AT_FAIL(AT_EPARSE, "knob '%s' (%s) is missing from the config", kb->name, at_knob_tag(kb->kind));
        if (ce->kind != kb->kind)
            return AT_FAIL(AT_EPARSE, "knob '%s': expected kind '%s', got '%s'", kb->name, at_knob_tag(kb->kind),
                           at_knob_tag(ce->kind));
        int64_t found = -1;
        for (int64_t i = 0; i < kb->len && found < 0; i++)
            if (entity_matches(kb, at_knobs_entity(kb, i), ce, as_given)) found = i;
        if (found < 0) {
            fmt_value(val, sizeof val, ce);
            if (kb->kind == AT_KNOB_SPLIT)
                return AT_FAIL(AT_EPARSE, "knob '%s': value %s is not in the space (split of %lld into %zu, policy %s)",
                               kb->name, val, (long long)kb->product, kb->n_axes, at_knobs_split_policy_name(kb->policy));
            return AT_FAIL(AT_EPARSE, "knob '%s': value %s is not one of its %lld entities", kb->name, val,
                           (long long)kb->len);
        }
        point += found * kb->stride;
    }
    for (size_t i = 0; i < at_config_len(c); i++) {
        const char *name = at_config_at(c, i)->name;
        if (!at_space_find_knob(s, name, NULL))
            return AT_FAIL(AT_EPARSE, "config knob '%s' is not defined by the space", name);
    }
    if (s->valid && !((s->valid[point >> 3] >> (point & 7)) & 1u))
        return AT_FAIL(AT_EPARSE, "the config maps to index %lld, which the space's multi_filter rejects",
                       (long long)point);
    *index = point;
    return AT_OK;
}

at_status at_space_index_of(const at_space *s, const at_config *c, int64_t *index)
{
    return index_of(s, c, false, index);
}

at_status at_space_index_of_as_given(const at_space *s, const at_config *c, int64_t *index)
{
    return index_of(s, c, true, index);
}

at_status at_space_config_in_space_order(const at_space *s, const at_config *c, at_config **out)
{
    *out = NULL;
    size_t n = at_space_n_knobs(s);
    if (at_config_len(c) != n) return AT_OK;
    bool same = true;
    for (size_t k = 0; k < n; k++) {
        if (!at_config_find(c, at_space_knob_name(s, k))) return AT_OK;
        same = same && !strcmp(at_config_at(c, k)->name, at_space_knob_name(s, k));
    }
    if (same) return AT_OK;
    at_config *r = NULL;
    AT_TRY(at_config_new(at_config_index(c), at_config_code_hash(c), &r));
    for (size_t k = 0; k < n; k++) {
        at_status st = at_config_add_entity(r, at_config_find(c, at_space_knob_name(s, k)));
        if (st != AT_OK) {
            at_config_free(r);
            return st;
        }
    }
    int64_t idx;
    if (index_of(s, r, true, &idx) == AT_OK) at_config_set_index(r, idx);
    *out = r;
    return AT_OK;
}

at_status at_space_config_by_position(const at_space *s, const at_config *c, at_config **out)
{
    *out = NULL;
    size_t n = at_space_n_knobs(s);
    if (at_config_len(c) != n) return AT_OK;
    bool same = true;
    for (size_t k = 0; k < n; k++) {
        if (!at_config_find(c, at_space_knob_name(s, k))) return AT_OK;
        if (at_config_at(c, k)->kind != at_space_knob_kind(s, k)) return AT_OK;
        same = same && !strcmp(at_config_at(c, k)->name, at_space_knob_name(s, k));
    }
    if (same) return AT_OK;
    at_config *r = NULL;
    AT_TRY(at_config_new(at_config_index(c), at_config_code_hash(c), &r));
    for (size_t k = 0; k < n; k++) {
        at_entity e = *at_config_at(c, k);
        e.name = at_space_knob_name(s, k);
        at_status st = at_config_add_entity(r, &e);
        if (st != AT_OK) {
            at_config_free(r);
            return st;
        }
    }
    *out = r;
    return AT_OK;
}

at_status at_space_config_by_position_checked(const at_space *s, const at_config *c, bool as_given, at_config **out,
                                              int64_t *index)
{
    at_config *pos = NULL;
    AT_TRY(at_space_config_by_position(s, c, &pos));
    int64_t idx = -1;
    at_status st = !pos ? AT_EPARSE : as_given ? at_space_index_of_as_given(s, pos, &idx) : at_space_index_of(s, pos, &idx);
    if (st == AT_ENOMEM || st != AT_OK || idx != at_config_index(c)) {
        at_config_free(pos);
        *out = NULL;
        return st == AT_ENOMEM ? st : AT_OK;
    }
    *out = pos;
    *index = idx;
    return AT_OK;
}
