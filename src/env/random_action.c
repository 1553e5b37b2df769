/* random_action.c: a uniformly random allowed action, the random policy of benchmarks and
 * baselines. */
#include "env_internal.h"

int ms_env_random_action(const uint8_t *mask, int num_actions, int n_allowed, ms_rng *rng)
{
    int pick = (int)ms_rng_below(rng, (uint64_t)n_allowed);
    for (int a = 0; a < num_actions; a++)
        if (mask[a] && pick-- == 0)
            return a;
    return -1;
}
