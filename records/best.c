/* Best-record tables as two open-addressing hash maps whose slots borrow their key strings from
 * the record they hold, so a query builds no key and allocates nothing. */
#include "records/best.h"

#include <stdint.h>
#include <string.h>

#include "core/alloc.h"

typedef struct slot {
    uint64_t      hash;
    const char   *name; /* model or target key, borrowed from rec; NULL = empty slot */
    const at_rec *rec;
    double        cost; /* at_rec_cost(rec) */
} slot;

typedef struct map {
    slot  *slots;
    size_t cap, n; /* cap is 0 or a power of two */
} map;

struct at_rec_best {
    map          by_model, by_key;
    at_rec_log **owned;
    size_t       n_owned, cap_owned;
};

static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s;; p++) {
        h ^= *p; /* the terminating NUL separates the fields */
        h *= 0x100000001b3ULL;
        if (!*p) return h;
    }
}

static uint64_t key_hash(const char *name, const char *task, const char *args)
{
    return fnv(fnv(fnv(0xcbf29ce484222325ULL, name), task), args);
}

static slot *find(const map *m, uint64_t h, const char *name, const char *task, const char *args)
{
    if (!m->cap) return NULL;
    for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        slot *s = &m->slots[i];
        if (!s->name) return s;
        if (s->hash == h && !strcmp(s->name, name) && !strcmp(s->rec->task_name, task) &&
            !strcmp(s->rec->args_json, args))
            return s;
    }
}

static at_status grow(map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    slot *ns = at_calloc(cap, sizeof *ns);
    if (!ns) return AT_OOM();
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].name) continue;
        size_t j = (size_t)m->slots[i].hash & (cap - 1);
        while (ns[j].name) j = (j + 1) & (cap - 1);
        ns[j] = m->slots[i];
    }
    at_free(m->slots);
    m->slots = ns;
    m->cap = cap;
    return AT_OK;
}

/* Inserts r under (name, workload) or replaces a strictly costlier holder. */
static at_status offer(map *m, const char *name, const at_rec *r, double cost)
{
    if ((m->n + 1) * 10 > m->cap * 7) AT_TRY(grow(m));
    uint64_t h = key_hash(name, r->task_name, r->args_json);
    slot *s = find(m, h, name, r->task_name, r->args_json);
    if (!s->name) {
        *s = (slot){.hash = h, .name = name, .rec = r, .cost = cost};
        m->n++;
    } else if (s->cost > cost) {
        *s = (slot){.hash = h, .name = name, .rec = r, .cost = cost};
    }
    return AT_OK;
}

at_status at_rec_best_new(at_rec_best **out)
{
    *out = at_calloc(1, sizeof **out);
    return *out ? AT_OK : AT_OOM();
}

void at_rec_best_free(at_rec_best *b)
{
    if (!b) return;
    at_free(b->by_model.slots);
    at_free(b->by_key.slots);
    for (size_t i = 0; i < b->n_owned; i++) at_rec_log_free(b->owned[i]);
    at_free(b->owned);
    at_free(b);
}

at_status at_rec_best_add(at_rec_best *b, const at_rec *r)
{
    if (r->result.err != AT_MEAS_OK) return AT_OK;
    double cost = at_rec_cost(r);
    for (size_t i = 0; i < r->target.n_keys; i++) AT_TRY(offer(&b->by_key, r->target.keys[i], r, cost));
    if (strcmp(r->target.model, "unknown") != 0) AT_TRY(offer(&b->by_model, r->target.model, r, cost));
    return AT_OK;
}

at_status at_rec_best_add_log(at_rec_best *b, const at_rec_log *log)
{
    for (size_t i = 0; i < log->n; i++) AT_TRY(at_rec_best_add(b, &log->recs[i]));
    return AT_OK;
}

at_status at_rec_best_take_log(at_rec_best *b, at_rec_log *log)
{
    if (b->n_owned == b->cap_owned) {
        size_t cap = b->cap_owned ? b->cap_owned * 2 : 4;
        at_rec_log **p = at_realloc(b->owned, cap * sizeof *p);
        if (!p) {
            at_rec_log_free(log);
            return AT_OOM();
        }
        b->owned = p;
        b->cap_owned = cap;
    }
    b->owned[b->n_owned++] = log;
    return at_rec_best_add_log(b, log);
}

static const at_rec *lookup(const map *m, const char *name, const char *task, const char *args)
{
    const slot *s = find(m, key_hash(name, task, args), name, task, args);
    return s && s->name ? s->rec : NULL;
}

const at_rec *at_rec_best_query(const at_rec_best *b, const at_target *target, const char *task_name,
                                const char *args_json)
{
    const at_rec *r = lookup(&b->by_model, target->model, task_name, args_json);
    for (size_t i = 0; !r && i < target->n_keys; i++) r = lookup(&b->by_key, target->keys[i], task_name, args_json);
    return r;
}

const at_rec *at_rec_best_query_stack(const at_rec_best *const *tables, size_t n, const at_target *target,
                                      const char *task_name, const char *args_json, size_t *which)
{
    for (size_t i = 0; i < n; i++) {
        if (!tables[i]) continue;
        const at_rec *r = at_rec_best_query(tables[i], target, task_name, args_json);
        if (r) {
            if (which) *which = i;
            return r;
        }
    }
    if (which) *which = n;
    return NULL;
}

bool at_rec_best_is_winner(const at_rec_best *b, const at_rec *r)
{
    if (r->result.err != AT_MEAS_OK) return false;
    if (lookup(&b->by_model, r->target.model, r->task_name, r->args_json) == r) return true;
    for (size_t i = 0; i < r->target.n_keys; i++)
        if (lookup(&b->by_key, r->target.keys[i], r->task_name, r->args_json) == r) return true;
    return false;
}

size_t at_rec_best_n_model_keys(const at_rec_best *b)
{
    return b->by_model.n;
}

size_t at_rec_best_n_target_keys(const at_rec_best *b)
{
    return b->by_key.n;
}
