/* learn_sched.h: the learned scheduler of paper 001: the policy's greedy or
 * rollout-improved actions on a workload. */
#ifndef MIGSCHED_LEARN_SCHED_H
#define MIGSCHED_LEARN_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/env.h"
#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/learn_mlp.h"
#include "migsched/learn_model.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* ---- The learned scheduler: greedy (argmax) actions of the policy on w, or with rollout
 * > 1 the rollout-improved policy (ms_rl_rollout_decide) over the policy's rollout best
 * actions (MS_RL_ROLLOUT_ALL: every allowed action) within gap of its greedy logit (0:
 * greedy; INFINITY: at every decision; NAN: the model's, ms_rl_model_gap). The defaults are
 * what `schedule --algo rl` and `rl-eval` use (EXPERIMENTS.md, Table 4: the quality;
 * bench_env: the decision time). The plan's stats "decisions" and "network_passes" give
 * its cost. ---- */
#define MS_RL_ROLLOUT_ALL     (-1)
#define MS_RL_ROLLOUT_DEFAULT 4
#define MS_RL_GAP_DEFAULT     1.0f
/* The policy's most likely allowed action at e's state (obs and mask receive the state's
 * observation and mask, w's logits row 0 its logits): one network pass, as every decision
 * of the greedy scheduler and of a rollout's completions is made. */
int ms_rl_greedy_action(const ms_mlp *m, ms_mlp_work *w, const ms_env *e, float *obs,
                        uint8_t *mask);
int ms_rl_schedule(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                   bool online, int rollout, float gap, ms_schedule **out, ms_error *err);
/* The same from model partition `part` (-1: an empty GPU; ms_env_reset_from), instance k
 * of it busy for busy[k] seconds. */
int ms_rl_schedule_from(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                        bool online, int rollout, float gap, int part, const double *busy,
                        ms_schedule **out, ms_error *err);
/* Whether that rule (gap resolved) ever rolls out, or is the greedy policy. */
bool ms_rl_rule_rolls_out(int rollout, float gap);
/* Same, one batch of the environment's episode at a time for p_opt per batch (offline
 * evaluation of paper 001 5.2): mean p_opt over the batches of w. */
int ms_rl_eval_popt(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                    double *mean_popt, ms_error *err);

#endif
