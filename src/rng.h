/* rng.h — a small seeded generator (splitmix64) so every case's inputs are reproducible. */
#ifndef RNG_H
#define RNG_H

#include <stdint.h>

typedef struct { uint64_t state; } rg_state;

static inline uint64_t rg_next(rg_state *s)
{
    uint64_t z = (s->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi), 24 random bits. */
static inline float rg_uniform(rg_state *s, float lo, float hi)
{
    float u = (float)(rg_next(s) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

#endif
