/* greedy_action.c: the policy's most likely allowed action at a state, the one network pass
 * below every decision of the greedy scheduler (rl_sched.c) and of a rollout's completions
 * (rollout.c). */
#include "migsched/learn.h"

int ms_rl_greedy_action(const ms_mlp *m, ms_mlp_work *w, const ms_env *e, float *obs, uint8_t *mask)
{
    ms_env_observe(e, obs);
    ms_env_mask(e, mask);
    ms_mlp_forward_policy(m, w, obs, 1);
    return ms_policy_argmax(w->logits, mask, m->nact);
}
