/* xoshiro256** (Blackman & Vigna): small state, passes BigCrush, trivially seedable. */
#include "core/rng.h"

#include "core/status.h"

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void at_rng_seed(at_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

uint64_t at_rng_next_u64(at_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t at_rng_below(at_rng *r, uint64_t n)
{
    AT_ASSERT(n > 0);
    /* rejection sampling: discard the top partial range so every residue is equally likely */
    uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
    uint64_t x;
    do {
        x = at_rng_next_u64(r);
    } while (x >= limit);
    return x % n;
}

double at_rng_uniform(at_rng *r)
{
    return (double)(at_rng_next_u64(r) >> 11) * 0x1.0p-53;
}
