/* Seeded pseudo-random numbers (xoshiro256**): every random choice takes an explicit at_rng. */
#ifndef AT_CORE_RNG_H
#define AT_CORE_RNG_H

#include <stdint.h>

typedef struct at_rng {
    uint64_t s[4];
} at_rng;

/* Seeds the generator deterministically from one 64-bit value (splitmix64 expansion). */
void at_rng_seed(at_rng *r, uint64_t seed);

/* Next raw 64 random bits. */
uint64_t at_rng_next_u64(at_rng *r);

/* Uniform integer in [0, n) without modulo bias; n must be > 0 (AT_ASSERT). */
uint64_t at_rng_below(at_rng *r, uint64_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double at_rng_uniform(at_rng *r);

#endif
