/* learn_model.h: PPO policy files: the network, its environment and training
 * settings, and in checkpoints the trainer's state. */
#ifndef MIGSCHED_LEARN_MODEL_H
#define MIGSCHED_LEARN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "migsched/env.h"
#include "migsched/error.h"
#include "migsched/learn_mlp.h"
#include "migsched/learn_ppo.h"
#include "migsched/rng.h"

/* ---- Model files: "MSRLMODL", version, JSON header, float32 parameters (+ Adam state). */
#define MS_MODEL_VERSION 1

/* A share of the training episodes cut as `rl-eval --order sorted` cuts its batches: a
 * dataset of `tasks` tasks from the generator in class order, one of its batches of N
 * (the short last one included), drawn uniformly. share 0: none (files before it). */
typedef struct ms_sorted_episodes {
    double share;
    int tasks;
} ms_sorted_episodes;

/* Whose plans demonstrate (train --demonstrator; header train.demonstrator, written only
 * when not FAR): FAR's, or the search scheduler's (docs/search.md). */
typedef enum ms_demo_source { MS_DEMO_FAR, MS_DEMO_SEARCH } ms_demo_source;
/* "far", "search" and back; parse returns MS_EINVAL for another name. */
const char *ms_demo_source_name(ms_demo_source s);
int ms_demo_source_parse(const char *name, ms_demo_source *out);

typedef struct ms_rl_model {
    ms_mlp mlp;
    ms_env_config env;
    char gpu[MS_NAME_LEN];
    char preset[64];
    long steps;
    uint64_t seed;
    char commit[32];
    bool has_adam;
    ms_adam adam; /* only when has_adam (for --resume) */
    ms_rng rng;   /* trainer state at the checkpoint */
    /* Training settings (header "train"; files from before it have none): PPO's (threads
     * excepted) and the episodes', so that a resumed run continues as it started. */
    bool has_train;
    ms_ppo_config ppo;
    bool paper_episodes;
    ms_sorted_episodes sorted;  /* header "sorted_share", "sorted_tasks" (only when share > 0) */
    ms_demo_source demo_source; /* header "demonstrator" (only when not FAR) */
    /* Process CPU seconds the training has used so far, over every resumed run (header
     * "cpu_seconds"; files from before it have none: has_cpu false). */
    bool has_cpu;
    double cpu_seconds;
    /* The logit gap of the rollout rule calibrated for this policy (header "rollout_gap",
     * written by `migsched rl-calibrate`; training does not carry it over): without one,
     * MS_RL_GAP_DEFAULT. */
    bool has_rollout_gap;
    float rollout_gap;
} ms_rl_model;

/* The policy's calibrated gap, else MS_RL_GAP_DEFAULT. */
float ms_rl_model_gap(const ms_rl_model *m);

int ms_model_save(const char *path, const ms_rl_model *m, ms_error *err);
int ms_model_load(const char *path, ms_rl_model *out, ms_error *err);
/* The same from a buffer (source names it in messages); nothing is kept on error. */
int ms_model_parse(const char *buf, size_t len, const char *source, ms_rl_model *out,
                   ms_error *err);
void ms_model_fini(ms_rl_model *m);

#endif
