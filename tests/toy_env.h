/* toy_env.h: a two-step environment with a greedy trap and a masked action, whose optimum
 * the learners (PPO in test_learn.c, DQN in test_dqn.c) must find. */
#ifndef MIGSCHED_TESTS_TOY_ENV_H
#define MIGSCHED_TESTS_TOY_ENV_H

#include "migsched/learn.h"
#include "support.h"

/* Two steps. From s0 action 1 pays 0.3 at once (the trap) and leads to s2 where the best is
 * 0.2; action 0 pays nothing but leads to s1 where action 0 pays 1. Action 2 is always
 * masked. Optimal return 1, greedy 0.5. */
typedef struct toy {
    int s;
} toy;

static inline int toy_reset(void *env, ms_rng *rng, ms_error *err)
{
    ((toy *)env)->s = 0;
    return 0;
}

static inline void toy_observe(void *env, float *obs)
{
    for (int i = 0; i < 3; i++)
        obs[i] = (float)(((toy *)env)->s == i);
}

static inline int toy_mask(void *env, uint8_t *mask)
{
    mask[0] = mask[1] = 1;
    mask[2] = 0;
    return 2;
}

static inline double toy_step(void *env, int a, bool *done)
{
    toy *t = env;
    assert_true(a == 0 || a == 1);
    if (t->s == 0) {
        t->s = a == 0 ? 1 : 2;
        *done = false;
        return a == 0 ? 0 : 0.3;
    }
    *done = true;
    return t->s == 1 ? (a == 0 ? 1 : 0) : (a == 1 ? 0.2 : 0);
}

static const ms_rl_env_ops toy_ops = {toy_reset, toy_observe, toy_mask, toy_step, NULL, NULL};

#endif
