/* at_config: a config as logs store it. All of a config's memory lives in one arena, so adding
 * entities never frees anything and at_config_free is one call; the entity table grows by
 * doubling (copied into the arena, the old table is simply abandoned there). */
#include "knobs/config.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"

struct at_config {
    at_arena  *arena;
    int64_t    index;
    const char *code_hash;
    at_entity *ents;
    size_t     n, cap;
};

static const char *const knob_tag[AT_KNOB_COUNT] = {
    [AT_KNOB_SPLIT] = "sp", [AT_KNOB_REORDER] = "re", [AT_KNOB_ANNOTATE] = "an", [AT_KNOB_OTHER] = "ot",
};

const char *at_knob_tag(at_knob_kind kind)
{
    AT_ASSERT((unsigned)kind < AT_KNOB_COUNT);
    return knob_tag[kind];
}

at_status at_knob_kind_from_tag(const char *tag, at_knob_kind *out)
{
    for (int k = 0; k < AT_KNOB_COUNT; k++) {
        if (!strcmp(tag, knob_tag[k])) {
            *out = (at_knob_kind)k;
            return AT_OK;
        }
    }
    return AT_FAIL(AT_EPARSE, "unknown knob tag '%s'", tag);
}

static int val_as_number(const at_val *v, double *out)
{
    switch (v->kind) {
    case AT_VAL_BOOL: *out = v->b ? 1.0 : 0.0; return 1;
    case AT_VAL_INT: *out = (double)v->i; return 1;
    case AT_VAL_FLOAT: *out = v->f; return 1;
    case AT_VAL_NULL:
    case AT_VAL_STR: return 0;
    }
    return 0;
}

bool at_val_equal(const at_val *a, const at_val *b)
{
    double x, y;
    if (val_as_number(a, &x) && val_as_number(b, &y)) {
        if (a->kind == AT_VAL_INT && b->kind == AT_VAL_INT) return a->i == b->i;
        return x == y;
    }
    if (a->kind != b->kind) return false;
    if (a->kind == AT_VAL_STR) return strcmp(a->s, b->s) == 0;
    return a->kind == AT_VAL_NULL;
}

/* repr-level identity: pick-best keys configs by str(config), where 1 and 1.0 differ */
static bool val_same(const at_val *a, const at_val *b)
{
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case AT_VAL_NULL: return true;
    case AT_VAL_BOOL: return a->b == b->b;
    case AT_VAL_INT: return a->i == b->i;
    case AT_VAL_FLOAT: return a->f == b->f || (isnan(a->f) && isnan(b->f));
    case AT_VAL_STR: return strcmp(a->s, b->s) == 0;
    }
    return false;
}

at_status at_config_new(int64_t index, const char *code_hash, at_config **out)
{
    *out = NULL;
    at_arena *arena;
    AT_TRY(at_arena_new(1024, &arena));
    at_config *c = at_arena_alloc(arena, sizeof *c);
    if (!c) goto oom;
    c->arena = arena;
    c->index = index;
    if (code_hash && !(c->code_hash = at_arena_strdup(arena, code_hash))) goto oom;
    *out = c;
    return AT_OK;
oom:
    at_arena_free(arena);
    return AT_OOM();
}

void at_config_free(at_config *c)
{
    if (c) at_arena_free(c->arena);
}

static at_entity *push_entity(at_config *c, const char *name, at_knob_kind kind)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        at_entity *e = at_arena_alloc(c->arena, cap * sizeof *e);
        if (!e) return NULL;
        if (c->n) memcpy(e, c->ents, c->n * sizeof *e);
        c->ents = e;
        c->cap = cap;
    }
    char *nm = at_arena_strdup(c->arena, name);
    if (!nm) return NULL;
    at_entity *e = &c->ents[c->n];
    memset(e, 0, sizeof *e);
    e->name = nm;
    e->kind = kind;
    return e;
}

static at_status add_ints(at_config *c, const char *name, at_knob_kind kind, const int64_t *v, size_t n)
{
    int64_t *copy = at_arena_alloc(c->arena, (n ? n : 1) * sizeof *copy);
    if (!copy) return AT_OOM();
    if (n) memcpy(copy, v, n * sizeof *copy);
    at_entity *e = push_entity(c, name, kind);
    if (!e) return AT_OOM();
    e->n = n;
    e->ints = copy;
    c->n++;
    return AT_OK;
}

at_status at_config_add_split(at_config *c, const char *name, const int64_t *sizes, size_t n)
{
    return add_ints(c, name, AT_KNOB_SPLIT, sizes, n);
}

at_status at_config_add_reorder(at_config *c, const char *name, const int64_t *perm, size_t n)
{
    return add_ints(c, name, AT_KNOB_REORDER, perm, n);
}

at_status at_config_add_anchors(at_config *c, const char *name, const int64_t *anchors, size_t n)
{
    return add_ints(c, name, AT_KNOB_ANNOTATE, anchors, n);
}

at_status at_config_add_annotate(at_config *c, const char *name, const char *const *anns, size_t n)
{
    const char **copy = at_arena_alloc(c->arena, (n ? n : 1) * sizeof *copy);
    if (!copy) return AT_OOM();
    for (size_t i = 0; i < n; i++)
        if (!(copy[i] = at_arena_strdup(c->arena, anns[i]))) return AT_OOM();
    at_entity *e = push_entity(c, name, AT_KNOB_ANNOTATE);
    if (!e) return AT_OOM();
    e->n = n;
    e->anns = copy;
    c->n++;
    return AT_OK;
}

at_status at_config_add_other(at_config *c, const char *name, const at_val *val)
{
    at_val v = *val;
    if (v.kind == AT_VAL_STR && !(v.s = at_arena_strdup(c->arena, val->s))) return AT_OOM();
    at_entity *e = push_entity(c, name, AT_KNOB_OTHER);
    if (!e) return AT_OOM();
    e->val = v;
    c->n++;
    return AT_OK;
}

at_status at_config_add_entity(at_config *c, const at_entity *e)
{
    switch (e->kind) {
    case AT_KNOB_SPLIT: return at_config_add_split(c, e->name, e->ints, e->n);
    case AT_KNOB_REORDER: return at_config_add_reorder(c, e->name, e->ints, e->n);
    case AT_KNOB_ANNOTATE:
        return e->anns ? at_config_add_annotate(c, e->name, e->anns, e->n) : at_config_add_anchors(c, e->name, e->ints, e->n);
    case AT_KNOB_OTHER: return at_config_add_other(c, e->name, &e->val);
    case AT_KNOB_COUNT: break;
    }
    AT_ASSERT(!"bad knob kind");
    return AT_EINVAL;
}

int64_t at_config_index(const at_config *c)
{
    return c->index;
}

void at_config_set_index(at_config *c, int64_t index)
{
    c->index = index;
}

const char *at_config_code_hash(const at_config *c)
{
    return c->code_hash;
}

size_t at_config_len(const at_config *c)
{
    return c->n;
}

const at_entity *at_config_at(const at_config *c, size_t i)
{
    AT_ASSERT(i < c->n);
    return &c->ents[i];
}

const at_entity *at_config_find(const at_config *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->ents[i].name, name)) return &c->ents[i];
    return NULL;
}

void at_config_split(const at_config *c, size_t knob, int64_t *sizes, size_t n)
{
    const at_entity *e = at_config_at(c, knob);
    AT_ASSERT(e->kind == AT_KNOB_SPLIT);
    AT_ASSERT(e->n == n);
    memcpy(sizes, e->ints, n * sizeof *sizes);
}

int64_t at_config_other_int(const at_config *c, size_t knob)
{
    const at_entity *e = at_config_at(c, knob);
    AT_ASSERT(e->kind == AT_KNOB_OTHER);
    AT_ASSERT(e->val.kind == AT_VAL_INT || e->val.kind == AT_VAL_BOOL);
    return e->val.kind == AT_VAL_BOOL ? (int64_t)e->val.b : e->val.i;
}

/* ---- JSON ---- */

static at_status val_from_json(const cJSON *j, at_val *out)
{
    memset(out, 0, sizeof *out);
    if (cJSON_IsNull(j)) {
        out->kind = AT_VAL_NULL;
    } else if (cJSON_IsBool(j)) {
        out->kind = AT_VAL_BOOL;
        out->b = cJSON_IsTrue(j);
    } else if (cJSON_IsNumber(j)) {
        if (at_json_number_is_int(j)) {
            out->kind = AT_VAL_INT;
            out->i = (int64_t)j->valuedouble;
        } else {
            out->kind = AT_VAL_FLOAT;
            out->f = j->valuedouble;
        }
    } else if (cJSON_IsString(j)) {
        out->kind = AT_VAL_STR;
        out->s = j->valuestring;
    } else {
        return AT_FAIL(AT_EPARSE, "expected a scalar value");
    }
    return AT_OK;
}

static at_status int_list_from_json(at_config *c, const cJSON *arr, int64_t **out, size_t *n)
{
    if (!cJSON_IsArray(arr)) return AT_FAIL(AT_EPARSE, "expected a list of integers");
    size_t len = (size_t)cJSON_GetArraySize(arr);
    int64_t *v = at_arena_alloc(c->arena, (len ? len : 1) * sizeof *v);
    if (!v) return AT_OOM();
    size_t i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++)
        if (at_json_get_int64(it, &v[i]) != AT_OK) return AT_FAIL(AT_EPARSE, "item %zu: expected an integer", i);
    *out = v;
    *n = len;
    return AT_OK;
}

static at_status entity_from_json(at_config *c, const cJSON *ent)
{
    if (!cJSON_IsArray(ent) || cJSON_GetArraySize(ent) != 3)
        return AT_FAIL(AT_EPARSE, "expected [name, tag, value]");
    const cJSON *name = ent->child, *tag = name->next, *value = tag->next;
    if (!cJSON_IsString(name)) return AT_FAIL(AT_EPARSE, "knob name is not a string");
    if (!cJSON_IsString(tag)) return AT_FAIL(AT_EPARSE, "knob '%s': tag is not a string", name->valuestring);
    at_knob_kind kind = AT_KNOB_COUNT;
    if (at_knob_kind_from_tag(tag->valuestring, &kind) != AT_OK)
        return AT_FAIL(AT_EPARSE, "knob '%s': unknown knob tag '%s'", name->valuestring, tag->valuestring);
    int64_t *ints;
    size_t n;
    at_status st;
    switch (kind) {
    case AT_KNOB_SPLIT:
    case AT_KNOB_REORDER:
        st = int_list_from_json(c, value, &ints, &n);
        if (st == AT_ENOMEM) return st;
        if (st != AT_OK) return AT_FAIL_WRAP(AT_EPARSE, "knob '%s'", name->valuestring);
        return add_ints(c, name->valuestring, kind, ints, n);
    case AT_KNOB_ANNOTATE: {
        if (!cJSON_IsArray(value)) return AT_FAIL(AT_EPARSE, "knob '%s': expected a list", name->valuestring);
        if (value->child && cJSON_IsNumber(value->child)) {
            st = int_list_from_json(c, value, &ints, &n);
            if (st == AT_ENOMEM) return st;
            if (st != AT_OK) return AT_FAIL_WRAP(AT_EPARSE, "knob '%s'", name->valuestring);
            return at_config_add_anchors(c, name->valuestring, ints, n);
        }
        n = (size_t)cJSON_GetArraySize(value);
        const char **anns = at_arena_alloc(c->arena, (n ? n : 1) * sizeof *anns);
        if (!anns) return AT_OOM();
        size_t i = 0;
        for (const cJSON *it = value->child; it; it = it->next, i++) {
            if (!cJSON_IsString(it))
                return AT_FAIL(AT_EPARSE, "knob '%s': annotation %zu is not a string", name->valuestring, i);
            anns[i] = it->valuestring;
        }
        return at_config_add_annotate(c, name->valuestring, anns, n);
    }
    case AT_KNOB_OTHER: {
        at_val v;
        if (val_from_json(value, &v) != AT_OK)
            return AT_FAIL(AT_EPARSE, "knob '%s': expected a scalar value", name->valuestring);
        return at_config_add_other(c, name->valuestring, &v);
    }
    case AT_KNOB_COUNT: break;
    }
    return AT_FAIL(AT_EPARSE, "bad knob kind");
}

at_status at_config_from_json(const cJSON *obj, at_config **out)
{
    *out = NULL;
    if (!cJSON_IsObject(obj)) return AT_FAIL(AT_EPARSE, "config: expected an object");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(obj, "index");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(obj, "code_hash");
    const cJSON *ents = cJSON_GetObjectItemCaseSensitive(obj, "entity");
    if (!index) return AT_FAIL(AT_EPARSE, "config: missing 'index'");
    if (!ents) return AT_FAIL(AT_EPARSE, "config: missing 'entity'");
    int64_t idx;
    if (at_json_get_int64(index, &idx) != AT_OK) return AT_FAIL_WRAP(AT_EPARSE, "config.index");
    if (idx < 0) return AT_FAIL(AT_EPARSE, "config.index: negative index %lld", (long long)idx);
    if (hash && !cJSON_IsNull(hash) && !cJSON_IsString(hash))
        return AT_FAIL(AT_EPARSE, "config.code_hash: expected a string or null");
    if (!cJSON_IsArray(ents)) return AT_FAIL(AT_EPARSE, "config.entity: expected a list");

    at_config *c;
    AT_TRY(at_config_new(idx, cJSON_IsString(hash) ? hash->valuestring : NULL, &c));
    size_t i = 0;
    for (const cJSON *e = ents->child; e; e = e->next, i++) {
        at_status st = entity_from_json(c, e);
        if (st != AT_OK) {
            at_config_free(c);
            if (st == AT_ENOMEM) return st;
            return AT_FAIL_WRAP(st, "config.entity[%zu]", i);
        }
    }
    *out = c;
    return AT_OK;
}

static void write_val(at_strbuf *sb, const at_val *v)
{
    switch (v->kind) {
    case AT_VAL_NULL: at_strbuf_puts(sb, "null"); return;
    case AT_VAL_BOOL: at_strbuf_puts(sb, v->b ? "true" : "false"); return;
    case AT_VAL_INT: at_json_write_int(sb, v->i); return;
    case AT_VAL_FLOAT: at_json_write_double(sb, v->f); return;
    case AT_VAL_STR: at_json_write_string(sb, v->s); return;
    }
}

static void write_int_list(at_strbuf *sb, const int64_t *v, size_t n)
{
    at_strbuf_putc(sb, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) at_strbuf_puts(sb, ", ");
        at_json_write_int(sb, v[i]);
    }
    at_strbuf_putc(sb, ']');
}

void at_config_write_json(const at_config *c, at_strbuf *sb)
{
    at_strbuf_puts(sb, "{\"index\": ");
    at_json_write_int(sb, c->index);
    at_strbuf_puts(sb, ", \"code_hash\": ");
    if (c->code_hash)
        at_json_write_string(sb, c->code_hash);
    else
        at_strbuf_puts(sb, "null");
    at_strbuf_puts(sb, ", \"entity\": [");
    for (size_t i = 0; i < c->n; i++) {
        const at_entity *e = &c->ents[i];
        if (i) at_strbuf_puts(sb, ", ");
        at_strbuf_putc(sb, '[');
        at_json_write_string(sb, e->name);
        at_strbuf_puts(sb, ", ");
        at_json_write_string(sb, at_knob_tag(e->kind));
        at_strbuf_puts(sb, ", ");
        if (e->kind == AT_KNOB_OTHER) {
            write_val(sb, &e->val);
        } else if (e->anns) {
            at_strbuf_putc(sb, '[');
            for (size_t k = 0; k < e->n; k++) {
                if (k) at_strbuf_puts(sb, ", ");
                at_json_write_string(sb, e->anns[k]);
            }
            at_strbuf_putc(sb, ']');
        } else {
            write_int_list(sb, e->ints, e->n);
        }
        at_strbuf_putc(sb, ']');
    }
    at_strbuf_puts(sb, "]}");
}

static bool entity_same(const at_entity *a, const at_entity *b)
{
    if (strcmp(a->name, b->name) || a->kind != b->kind || a->n != b->n) return false;
    if (a->kind == AT_KNOB_OTHER) return val_same(&a->val, &b->val);
    if (!a->anns != !b->anns) return false;
    for (size_t i = 0; i < a->n; i++) {
        if (a->anns ? strcmp(a->anns[i], b->anns[i]) != 0 : a->ints[i] != b->ints[i]) return false;
    }
    return true;
}

bool at_config_equal(const at_config *a, const at_config *b)
{
    if (a->index != b->index || a->n != b->n) return false;
    if (!a->code_hash != !b->code_hash) return false;
    if (a->code_hash && strcmp(a->code_hash, b->code_hash)) return false;
    for (size_t i = 0; i < a->n; i++)
        if (!entity_same(&a->ents[i], &b->ents[i])) return false;
    return true;
}

at_status at_config_clone(const at_config *c, at_config **out)
{
    *out = NULL;
    at_config *d;
    AT_TRY(at_config_new(c->index, c->code_hash, &d));
    for (size_t i = 0; i < c->n; i++) {
        at_status st = at_config_add_entity(d, &c->ents[i]);
        if (st != AT_OK) {
            at_config_free(d);
            return st;
        }
    }
    *out = d;
    return AT_OK;
}
