/* learn_rollout.h: policy improvement by rollout. */
#ifndef MIGSCHED_LEARN_ROLLOUT_H
#define MIGSCHED_LEARN_ROLLOUT_H

#include "migsched/env.h"
#include "migsched/error.h"
#include "migsched/learn_mlp.h"

/* ---- Policy improvement by rollout (ours; Bertsekas' rollout algorithm, the step of
 * approximate policy iteration): each allowed action of a state followed by the policy's
 * greedy actions to the episode's end; the action whose episode ends first. ---- */
typedef struct ms_rl_rollout ms_rl_rollout;

typedef struct ms_rl_choice {
    int candidates;         /* actions tried (allowed ones, at most the width) */
    int greedy;             /* the policy's own action */
    int best;               /* the improved policy's: ties go to greedy, then to the higher
                             * logit (then the lower action number) */
    double greedy_makespan; /* of greedy's completion (NAN with one candidate: none run) */
    double best_makespan;   /* of best's */
} ms_rl_choice;

/* For the network mlp (read at every call), on environments of one GPU and settings. */
ms_rl_rollout *ms_rl_rollout_new(const ms_mlp *mlp, ms_error *err);
void ms_rl_rollout_free(ms_rl_rollout *r);
/* The choice at env's current state (env is not changed; its episode must not be over)
 * among the width allowed actions of highest logits (0: every allowed action). */
int ms_rl_rollout_best(ms_rl_rollout *r, const ms_env *env, int width, ms_rl_choice *out,
                       ms_error *err);
/* The action of the policy improved by rollout along an episode: at env's state, rollout
 * over the width allowed actions of highest logits (0: all) where the gap between the
 * policy's two highest logits is below gap (INFINITY: at every decision), else the greedy
 * action; the same choices as ms_rl_rollout_best's (env is not changed). The episode must
 * move only by the actions this returns; call ms_rl_rollout_forget at its start. */
int ms_rl_rollout_decide(ms_rl_rollout *r, const ms_env *env, int width, float gap, int *action,
                         ms_error *err);
void ms_rl_rollout_forget(ms_rl_rollout *r);
/* What r has done so far: decisions of ms_rl_rollout_decide, network passes (the cost),
 * completions stopped by the makespan bound and by reaching the kept completion's state. */
typedef struct ms_rl_rollout_stats {
    long decisions, passes, cut, merged;
} ms_rl_rollout_stats;
ms_rl_rollout_stats ms_rl_rollout_get_stats(const ms_rl_rollout *r);
/* The makespan of the greedy policy's episode from env's current state (env is not
 * changed). */
int ms_rl_rollout_greedy(ms_rl_rollout *r, const ms_env *env, double *makespan, ms_error *err);

#endif
