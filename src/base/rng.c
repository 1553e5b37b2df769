/* rng.c: xoshiro256** seeded through splitmix64; every random draw in migsched goes
 * through a ms_rng value so runs are reproducible from --seed. */
#include "migsched/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ms_rng_seed(ms_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t ms_rng_next(ms_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ms_rng_uniform(ms_rng *r) { return (double)(ms_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t ms_rng_below(ms_rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    /* Rejection keeps the draw unbiased. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = ms_rng_next(r);
    while (x >= limit);
    return x % n;
}

double ms_rng_normal(ms_rng *r, double mean, double sd)
{
    /* Box-Muller; one value per call keeps the stream simple to reason about. */
    double u1 = ms_rng_uniform(r), u2 = ms_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return mean + sd * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double ms_rng_normal_clipped(ms_rng *r, double mean, double sd, double lo, double hi)
{
    double x = ms_rng_normal(r, mean, sd);
    return x < lo ? lo : x > hi ? hi : x;
}

double ms_rng_exponential(ms_rng *r, double mean) { return -mean * log(1.0 - ms_rng_uniform(r)); }

ms_rng ms_rng_split(ms_rng *r, uint64_t stream)
{
    ms_rng child;
    ms_rng_seed(&child, ms_rng_next(r) ^ (stream * 0xd1342543de82ef95ULL));
    return child;
}
