/* rng.h: a seeded pseudo-random generator passed by value (xoshiro256**). */
#ifndef MIGSCHED_RNG_H
#define MIGSCHED_RNG_H

#include <stdint.h>

typedef struct ms_rng {
    uint64_t s[4];
} ms_rng;

void ms_rng_seed(ms_rng *r, uint64_t seed);
uint64_t ms_rng_next(ms_rng *r);
/* Uniform in [0, 1). */
double ms_rng_uniform(ms_rng *r);
/* Uniform integer in [0, n). */
uint64_t ms_rng_below(ms_rng *r, uint64_t n);
double ms_rng_normal(ms_rng *r, double mean, double sd);
/* Normal clipped to [lo, hi] (values outside are clamped, as paper 000 6.3 says). */
double ms_rng_normal_clipped(ms_rng *r, double mean, double sd, double lo, double hi);
double ms_rng_exponential(ms_rng *r, double mean);
/* An independent stream derived from this one (for parallel workers). */
ms_rng ms_rng_split(ms_rng *r, uint64_t stream);

#endif
