/* A set of config indexes: open addressing with linear probing over a power-of-two table,
 * kept at most half full; deletion uses backward-shift so no tombstones accumulate. */
#include <string.h>

#include "core/alloc.h"
#include "tuners/internal.h"

static size_t hash(int64_t i, size_t cap)
{
    uint64_t x = (uint64_t)i;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

void at_tuner_idxset_init(at_tuner_idxset *s)
{
    memset(s, 0, sizeof *s);
}

void at_tuner_idxset_fini(at_tuner_idxset *s)
{
    at_free(s->slots);
    memset(s, 0, sizeof *s);
}

void at_tuner_idxset_clear(at_tuner_idxset *s)
{
    for (size_t i = 0; i < s->cap; i++) s->slots[i] = -1;
    s->n = 0;
}

bool at_tuner_idxset_has(const at_tuner_idxset *s, int64_t i)
{
    if (s->n == 0) return false;
    for (size_t h = hash(i, s->cap);; h = (h + 1) & (s->cap - 1)) {
        if (s->slots[h] == i) return true;
        if (s->slots[h] < 0) return false;
    }
}

static void put(int64_t *slots, size_t cap, int64_t i)
{
    size_t h = hash(i, cap);
    while (slots[h] >= 0) h = (h + 1) & (cap - 1);
    slots[h] = i;
}

at_status at_tuner_idxset_add(at_tuner_idxset *s, int64_t i, bool *added)
{
    AT_ASSERT(i >= 0);
    if (added) *added = false;
    if (at_tuner_idxset_has(s, i)) return AT_OK;
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        int64_t *slots = at_malloc(cap * sizeof *slots);
        if (!slots) return AT_OOM();
        for (size_t k = 0; k < cap; k++) slots[k] = -1;
        for (size_t k = 0; k < s->cap; k++)
            if (s->slots[k] >= 0) put(slots, cap, s->slots[k]);
        at_free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    put(s->slots, s->cap, i);
    s->n++;
    if (added) *added = true;
    return AT_OK;
}

void at_tuner_idxset_remove(at_tuner_idxset *s, int64_t i)
{
    if (s->n == 0) return;
    size_t h = hash(i, s->cap);
    while (s->slots[h] != i) {
        if (s->slots[h] < 0) return;
        h = (h + 1) & (s->cap - 1);
    }
    /* backward-shift deletion: move later members of the probe run into the hole */
    size_t hole = h;
    for (size_t j = (h + 1) & (s->cap - 1); s->slots[j] >= 0; j = (j + 1) & (s->cap - 1)) {
        size_t home = hash(s->slots[j], s->cap);
        /* j may move to hole iff home is not cyclically in (hole, j] */
        bool in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            s->slots[hole] = s->slots[j];
            hole = j;
        }
    }
    s->slots[hole] = -1;
    s->n--;
}

bool at_tuner_idxset_pred(int64_t i, void *ctx)
{
    return at_tuner_idxset_has(ctx, i);
}
