/* Random index helpers of ConfigSpace (get_rand_index, sample_ints, random_walk) on an explicit
 * at_rng. Unlike TVM they always end: a draw loop that keeps failing falls back to a scan,
 * and a space with nothing left to give answers AT_ENOTFOUND. */
#include "core/alloc.h"
#include "knobs/internal.h"
#include "knobs/space.h"

#define RAND_TRIES 1024

static bool valid_at(const at_space *s, int64_t i)
{
    return !s->valid || ((s->valid[i >> 3] >> (i & 7)) & 1u);
}

at_status at_space_rand_index(const at_space *s, at_rng *rng, int64_t start, int64_t end, at_index_pred exclude,
                              void *ctx, int64_t *out)
{
    AT_ASSERT(s && rng && out);
    if (end == 0) end = s->range_len;
    AT_ASSERT(start >= 0 && end <= s->range_len);
    if (start >= end) return AT_FAIL(AT_ENOTFOUND, "empty index range [%lld, %lld)", (long long)start, (long long)end);
    uint64_t span = (uint64_t)(end - start);
    for (int t = 0; t < RAND_TRIES; t++) {
        int64_t i = start + (int64_t)at_rng_below(rng, span);
        if (valid_at(s, i) && !(exclude && exclude(i, ctx))) {
            *out = i;
            return AT_OK;
        }
    }
    uint64_t off = at_rng_below(rng, span);
    for (uint64_t t = 0; t < span; t++) {
        int64_t i = start + (int64_t)((off + t) % span);
        if (valid_at(s, i) && !(exclude && exclude(i, ctx))) {
            *out = i;
            return AT_OK;
        }
    }
    return AT_FAIL(AT_ENOTFOUND, "every valid index in [%lld, %lld) is excluded", (long long)start, (long long)end);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

at_status at_space_sample_ints(const at_space *s, at_rng *rng, size_t m, int64_t *out)
{
    AT_ASSERT(s && rng && (out || m == 0));
    if (m > (size_t)INT64_MAX || (int64_t)m > s->n_valid)
        return AT_FAIL(AT_EINVAL, "cannot sample %zu distinct indices from a space of %lld", m, (long long)s->n_valid);
    if (m == 0) return AT_OK;
    size_t cap = 16;
    while (cap < 2 * m) cap *= 2;
    int64_t *set = at_calloc(cap, sizeof *set); /* index + 1, 0 = empty */
    if (!set) return AT_OOM();
    size_t n = 0;
    while (n < m) {
        int64_t i = (int64_t)at_rng_below(rng, (uint64_t)s->range_len);
        if (!valid_at(s, i)) continue;
        size_t h = (size_t)mix((uint64_t)i) & (cap - 1);
        while (set[h] != 0 && set[h] != i + 1) h = (h + 1) & (cap - 1);
        if (set[h] != 0) continue; /* drawn before */
        set[h] = i + 1;
        out[n++] = i;
    }
    at_free(set);
    return AT_OK;
}

at_status at_space_random_walk(const at_space *s, at_rng *rng, int64_t point, int64_t *out)
{
    AT_ASSERT(s && rng && out);
    AT_ASSERT(point >= 0 && point < s->range_len);
    if (s->n_valid - (valid_at(s, point) ? 1 : 0) <= 0)
        return AT_FAIL(AT_ENOTFOUND, "random_walk from %lld: the space has no other valid index", (long long)point);
    int64_t cur = point;
    /* TVM mutates one knob of the running vector per step until it differs and is valid */
    do {
        const at_knob *k = &s->knobs[at_rng_below(rng, s->n_knobs)];
        int64_t to = (int64_t)at_rng_below(rng, (uint64_t)k->len);
        cur += (to - at_knobs_digit(k, cur)) * k->stride;
    } while (cur == point || !valid_at(s, cur));
    *out = cur;
    return AT_OK;
}
