/* CPython 3.11 set-iteration order for `set(a) | set(b)` of positive ints, which fixes the
 * factor order of the "verbose" split policy. The emulation follows Objects/setobject.c step by
 * step (hash(x) == x, 9 linear probes, perturb shift 5, resize rules, set_merge's three paths);
 * the spec's test vectors (spec/autotvm_core.md 1.3.1) pin it. Slot value 0 = empty. */
#include <string.h>

#include "core/alloc.h"
#include "knobs/internal.h"

#define MIN_SIZE      8
#define LINEAR_PROBES 9
#define PERTURB_SHIFT 5

typedef struct pyset {
    int64_t *table; /* mask + 1 slots */
    size_t   mask;
    size_t   fill, used; /* no deletions ever happen, so fill == used */
} pyset;

static at_status pyset_init(pyset *s)
{
    s->table = at_calloc(MIN_SIZE, sizeof *s->table);
    if (!s->table) return AT_OOM();
    s->mask = MIN_SIZE - 1;
    s->fill = s->used = 0;
    return AT_OK;
}

static void pyset_fini(pyset *s)
{
    at_free(s->table);
    s->table = NULL;
}

/* set_insert_clean: probing without equality checks, into a table known to lack the key. */
static void insert_clean(int64_t *table, size_t mask, int64_t key)
{
    size_t hash = (size_t)key;
    size_t perturb = hash;
    size_t i = hash & mask;
    for (;;) {
        if (table[i] == 0) {
            table[i] = key;
            return;
        }
        if (i + LINEAR_PROBES <= mask) {
            for (size_t j = 1; j <= LINEAR_PROBES; j++) {
                if (table[i + j] == 0) {
                    table[i + j] = key;
                    return;
                }
            }
        }
        perturb >>= PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & mask;
    }
}

/* set_table_resize(minused): smallest power of two >= 8 that is > minused, old slots re-inserted
 * in slot order. */
static at_status resize(pyset *s, size_t minused)
{
    size_t size = MIN_SIZE;
    while (size <= minused) size <<= 1;
    int64_t *table = at_calloc(size, sizeof *table);
    if (!table) return AT_OOM();
    for (size_t i = 0; i <= s->mask; i++)
        if (s->table[i] != 0) insert_clean(table, size - 1, s->table[i]);
    at_free(s->table);
    s->table = table;
    s->mask = size - 1;
    s->fill = s->used;
    return AT_OK;
}

/* set_add_entry: insert with dedup, then grow when fill*5 >= mask*3. */
static at_status add_entry(pyset *s, int64_t key)
{
    AT_ASSERT(key > 0);
    size_t hash = (size_t)key;
    size_t mask = s->mask;
    size_t i = hash & mask;
    size_t perturb = hash;
    size_t slot;
    for (;;) {
        size_t probes = (i + LINEAR_PROBES <= mask) ? LINEAR_PROBES : 0;
        size_t j = i;
        for (;;) {
            if (s->table[j] == 0) {
                slot = j;
                goto found_unused;
            }
            if (s->table[j] == key) return AT_OK;
            if (probes-- == 0) break;
            j++;
        }
        perturb >>= PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & mask;
    }
found_unused:
    s->table[slot] = key;
    s->fill++;
    s->used++;
    if (s->fill * 5 < mask * 3) return AT_OK;
    return resize(s, s->used > 50000 ? s->used * 2 : s->used * 4);
}

/* set_merge(so, other). */
static at_status merge(pyset *so, const pyset *other)
{
    if (other->used == 0) return AT_OK;
    if ((so->fill + other->used) * 5 >= so->mask * 3) AT_TRY(resize(so, (so->used + other->used) * 2));
    if (so->fill == 0 && so->mask == other->mask) { /* same size, empty: copy slots verbatim */
        memcpy(so->table, other->table, (other->mask + 1) * sizeof *so->table);
        so->fill = other->fill;
        so->used = other->used;
        return AT_OK;
    }
    if (so->fill == 0) { /* empty: insert_clean in other's slot order */
        so->fill = so->used = other->used;
        for (size_t i = 0; i <= other->mask; i++)
            if (other->table[i] != 0) insert_clean(so->table, so->mask, other->table[i]);
        return AT_OK;
    }
    for (size_t i = 0; i <= other->mask; i++)
        if (other->table[i] != 0) AT_TRY(add_entry(so, other->table[i]));
    return AT_OK;
}

/* set(list): add each element in list order. */
static at_status from_list(pyset *s, const int64_t *v, size_t n)
{
    AT_TRY(pyset_init(s));
    for (size_t i = 0; i < n; i++) {
        at_status st = add_entry(s, v[i]);
        if (st != AT_OK) {
            pyset_fini(s);
            return st;
        }
    }
    return AT_OK;
}

at_status at_knobs_pyset_union(const int64_t *a, size_t na, const int64_t *b, size_t nb, int64_t **out,
                               size_t *n_out)
{
    pyset sa = {0}, sb = {0}, r = {0};
    at_status st;
    if ((st = from_list(&sa, a, na)) != AT_OK) goto done;
    if ((st = from_list(&sb, b, nb)) != AT_OK) goto done;
    if ((st = pyset_init(&r)) != AT_OK) goto done; /* set_or: copy of a, then update with b */
    if ((st = merge(&r, &sa)) != AT_OK) goto done;
    if ((st = merge(&r, &sb)) != AT_OK) goto done;
    int64_t *v = at_malloc((r.used ? r.used : 1) * sizeof *v);
    if (!v) {
        st = AT_OOM();
        goto done;
    }
    size_t n = 0;
    for (size_t i = 0; i <= r.mask; i++)
        if (r.table[i] != 0) v[n++] = r.table[i];
    *out = v;
    *n_out = n;
done:
    pyset_fini(&sa);
    pyset_fini(&sb);
    pyset_fini(&r);
    return st;
}
