/* hier_rl.h (private to src/hier): the environment of the DQN co-scheduling agent, shared
 * by its trainer and by the planner that runs a trained network. */
#ifndef MIGSCHED_HIER_RL_H
#define MIGSCHED_HIER_RL_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/hier.h"
#include "migsched/learn.h"

/* Per job row of the state: the Table III counters, then pending, in the open group, open
 * group size / C_max, class MI, class US (the "+ 5" of Table VI's W x (f + 5)). */
#define HIER_RL_FEATURES (MS_HIER_NCOUNTERS + 5)
/* With gains (ours, not Table VI's): 3 more per row, the co-run gains of rl_gain.c. */
#define HIER_RL_GAIN_FEATURES 3
#define HIER_RL_GAIN_CACHE    4096 /* job sets remembered per episode (793 at W 12, C_max 4) */
#define HIER_RL_MAX_SETUPS    128
#define HIER_RL_MAX_W         64
/* Rewards reach the network in hundredths: r_f / 100 is the throughput gain over time
 * sharing, which keeps Q values near 1 for the Huber loss. */
#define HIER_RL_REWARD_SCALE 0.01

/* A closed group: sorted-job indices in slot order and the setup's action index. */
typedef struct hier_rl_group {
    int c, setup;
    int job[MS_HIER_MAX_C];
} hier_rl_group;

typedef struct hier_rl_env {
    int W, cmax;  /* state rows; largest group in the action space */
    int cmax_now; /* largest group allowed in this episode (<= cmax) */
    int nsetups;  /* action W + k closes the open group with setups[k] */
    ms_hier_setup setups[HIER_RL_MAX_SETUPS];
    double ri_weight;    /* weight of the intermediate rewards r_i beside r_f */
    double saved_weight; /* weight of the time saved per closed group */
    double rf_weight;    /* weight of r_f, paid at the last close */
    bool best_setup;     /* one close action; the group gets its best Table VII setup */
    bool gains;          /* the state's rows carry the co-run gains of rl_gain.c */
    long expert_updates; /* supervised steps on exact values (rl_expert.c), for model files */
    const ms_hier_corun *cr;
    /* Training: windows drawn from the seen programs of cat, or always `fixed`. */
    const ms_hier_catalog *cat;
    const ms_hier_window *fixed;
    ms_hier_window drawn;
    /* The episode: the window's n <= W jobs sorted by class, memory share and solo time, so
     * that each state row tends to hold the same kind of job; order[i] is the window index
     * of sorted job i. */
    const ms_hier_window *win; /* = &view */
    ms_hier_window view;
    ms_hier_profile sorted[HIER_RL_MAX_W];
    int order[HIER_RL_MAX_W];
    float feat[HIER_RL_MAX_W][MS_HIER_NCOUNTERS];
    bool pending[HIER_RL_MAX_W], in_group[HIER_RL_MAX_W];
    int group[MS_HIER_MAX_C], gsize;
    double mean_solo, mean_comp, mean_mem, solo_total, corun_total;
    int ngroups;
    hier_rl_group groups[HIER_RL_MAX_W];
    /* Time each job set (bit i: sorted job i) saves over time sharing under its best Table
     * VII setup, remembered for the episode whose stamp is gain_stamp. */
    uint64_t gain_key[HIER_RL_GAIN_CACHE];
    double gain_val[HIER_RL_GAIN_CACHE];
    unsigned gain_at[HIER_RL_GAIN_CACHE], gain_stamp;
    int gain_used;
    /* With gains, setup k may close the open group (job set fit_set) iff fit[k]: some slot
     * order is no slower than time sharing. */
    uint64_t fit_set;
    bool fit[HIER_RL_MAX_SETUPS];
} hier_rl_env;

/* Action space for windows of up to W jobs and groups of up to cmax: W picks, then the solo
 * setup and Table VII's for C = 2..cmax, or one close action with best_setup. */
int hier_rl_env_init(hier_rl_env *e, const ms_hier_rl_config *c, ms_error *err);
void hier_rl_env_free(hier_rl_env *e);
/* dst becomes an independent copy of src's episode (src keeps its drawn window). */
void hier_rl_env_copy(hier_rl_env *dst, const hier_rl_env *src);
int hier_rl_obs_size(const hier_rl_env *e);
int hier_rl_num_actions(const hier_rl_env *e);
/* Starts an episode on w (w->n <= W) with groups of up to cmax_now jobs. */
void hier_rl_env_start(hier_rl_env *e, const ms_hier_window *w, const ms_hier_corun *cr,
                       int cmax_now);
/* The episode again from its start on the same training window, keeping the savings
 * remembered for it (the window's job order, hence its job sets, is the same). */
void hier_rl_env_restart(hier_rl_env *e);
extern const ms_rl_env_ops hier_rl_ops;
int hier_rl_row_size(const hier_rl_env *e);

/* The co-run gains (rl_gain.c): a new episode forgets the remembered job sets; the time the
 * set saves over time sharing (0 when its best setup is no faster, or unknown); row i's
 * gain features written to x. */
void hier_rl_gain_start(hier_rl_env *e);
double hier_rl_saved(hier_rl_env *e, uint64_t set);
void hier_rl_gain_row(hier_rl_env *e, int i, float *x);
/* Whether setup k can close the open group no slower than time sharing. */
bool hier_rl_setup_fits(hier_rl_env *e, int k);

/* The exact action values (rl_expert.c; needs ri_weight 0 and W <= MS_HIER_MAX_W): what
 * each job set saves and the most a cover of each set of the window's jobs can save. */
typedef struct hier_rl_expert {
    double *saved, *future; /* indexed by job set (bit i: sorted job i), 2^W each */
} hier_rl_expert;
int hier_rl_expert_init(hier_rl_expert *x, const hier_rl_env *e, ms_error *err);
void hier_rl_expert_free(hier_rl_expert *x);
/* After hier_rl_env_start: the tables of e's window. */
void hier_rl_expert_start(hier_rl_expert *x, hier_rl_env *e);
/* Q*(s, a) of e's current state for every action allowed in mask (0 elsewhere), in the
 * rewards' units. */
void hier_rl_expert_q(const hier_rl_expert *x, hier_rl_env *e, const uint8_t *mask, float *q);

/* The agent's decisions (rl_lookahead.c): greedy in Q with width 1, else the best of the
 * `width` actions of highest Q, each completed by the rule one level shallower (rollout). */
typedef struct hier_rl_decider {
    const ms_mlp *net;
    ms_mlp_work work;
    float *obs, *q;
    uint8_t *m;
    ms_hier_lookahead lookahead;
    hier_rl_env *trial; /* width > 1: per depth, the copy each tried action runs on */
} hier_rl_decider;
int hier_rl_decider_init(hier_rl_decider *d, const ms_mlp *net, const hier_rl_env *e,
                         ms_hier_lookahead lookahead, ms_error *err);
void hier_rl_decider_free(hier_rl_decider *d);
/* The action to take in e's current state (e is left as it was). */
int hier_rl_decide(hier_rl_decider *d, hier_rl_env *e);

/* Plans w with the network (W jobs at a time when w is longer), appending to out. */
int hier_rl_plan(const ms_mlp *net, hier_rl_env *e, const ms_hier_window *w,
                 const ms_hier_corun *cr, int cmax, ms_hier_lookahead lookahead, ms_hier_plan *out,
                 ms_error *err);

/* The environment's description stored in model files (with the programs trained on when
 * cat is not NULL), and its check on load. */
char *hier_rl_env_json(const hier_rl_env *e, const ms_hier_catalog *cat);
int hier_rl_env_from_json(const char *path, const char *json, hier_rl_env *e, ms_error *err);

#endif
