/* bench_env.c: speed of the scheduling environment (one step), of one scheduling decision
 * with a 256x256 policy, of the shipped policy's decisions improved by rollout, and of PPO
 * training end to end (environment steps per second). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "migsched/learn.h"

#ifndef MIGSCHED_SOURCE_DIR
#define MIGSCHED_SOURCE_DIR "."
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Random-policy episodes: time of ms_env_step alone and of mask + observe + step. */
static void bench_step(const ms_gpu_model *gpu, const ms_gen_params *gen)
{
    ms_env_config c;
    ms_env_config_default(&c);
    ms_env *e = ms_env_new(gpu, &c, NULL);
    int A = ms_env_num_actions(e);
    uint8_t *mask = malloc((size_t)A);
    float *obs = malloc((size_t)ms_env_obs_size(e) * sizeof(float));
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    double t_step = 0, t_all = 0;
    long steps = 0;
    for (int ep = 0; ep < 2000; ep++) {
        ms_workload *w;
        ms_generate(gpu, gen, c.n_batch, &rng, &w, NULL);
        ms_env_reset(e, w, NULL);
        bool done = false;
        while (!done) {
            double t0 = now_s();
            int n = ms_env_mask(e, mask);
            ms_env_observe(e, obs);
            int pick = (int)ms_rng_below(&rng, (uint64_t)n), a;
            for (a = 0; a < A; a++)
                if (mask[a] && pick-- == 0)
                    break;
            double t1 = now_s();
            ms_env_step(e, a, &done);
            double t2 = now_s();
            t_step += t2 - t1;
            t_all += t2 - t0;
            steps++;
        }
        ms_workload_free(w);
    }
    printf("env step (A100-40GB, N=M=14, random policy): %ld steps, %.3f us/step, "
           "%.3f us with mask + observation\n", steps, t_step / steps * 1e6, t_all / steps * 1e6);
    free(mask);
    free(obs);
    ms_env_free(e);
}

/* One decision of the learned scheduler: observation, mask, forward pass, argmax. */
static void bench_decision(const ms_gpu_model *gpu, const ms_gen_params *gen)
{
    ms_env_config c;
    ms_env_config_default(&c);
    ms_env *e = ms_env_new(gpu, &c, NULL);
    ms_rng rng;
    ms_rng_seed(&rng, 2);
    ms_mlp m;
    ms_mlp_work w;
    int hidden[2] = {256, 256};
    ms_mlp_init(&m, ms_env_obs_size(e), 2, hidden, ms_env_num_actions(e), &rng, NULL);
    ms_mlp_work_init(&w, &m, 1, NULL);
    float *obs = malloc((size_t)m.in * sizeof(float));
    uint8_t *mask = malloc((size_t)m.nact);
    ms_workload *wl;
    ms_generate(gpu, gen, c.n_batch, &rng, &wl, NULL);
    ms_env_reset(e, wl, NULL);
    enum { REPS = 1000 };
    double lat[REPS];
    for (int i = 0; i < REPS; i++) {
        double t0 = now_s();
        ms_env_observe(e, obs);
        ms_env_mask(e, mask);
        ms_mlp_forward(&m, &w, obs, 1);
        volatile int a = ms_policy_argmax(w.logits, mask, m.nact);
        (void)a;
        lat[i] = now_s() - t0;
    }
    double sum = 0;
    for (int i = 0; i < REPS; i++)
        sum += lat[i];
    qsort(lat, REPS, sizeof lat[0], cmp_double);
    printf("one decision (obs %d, 256x256, %d actions): min %.1f us, median %.1f us, mean %.1f "
           "us, p99 %.1f us over %d\n", m.in, m.nact, lat[0] * 1e6, lat[REPS / 2] * 1e6,
           sum / REPS * 1e6, lat[REPS * 99 / 100] * 1e6, REPS);
    free(obs);
    free(mask);
    ms_workload_free(wl);
    ms_mlp_work_destroy(&w);
    ms_mlp_destroy(&m);
    ms_env_free(e);
}

/* Decisions of the shipped WIDETIMES policy improved by rollout over its K best actions
 * (0: greedy, -1: all), on 100 batches of 14 WIDETIMES tasks: time per decision (each
 * completes up to K episodes) and the batches' mean makespan. */
static void bench_rollout(const ms_gpu_model *gpu, const ms_gen_params *gen)
{
    ms_rl_model m;
    ms_error err;
    if (ms_model_load(MIGSCHED_SOURCE_DIR "/models/a100-widetimes.bin", &m, &err)) {
        printf("rollout: %s\n", err.msg);
        return;
    }
    ms_env *e = ms_env_new(gpu, &m.env, NULL);
    ms_rl_rollout *ro = ms_rl_rollout_new(&m.mlp, gpu, &m.env, NULL);
    const int widths[] = {1, 2, 4, 8, -1};
    enum { BATCHES = 100, MAXD = 20000 };
    double *lat = malloc(MAXD * sizeof *lat);
    for (int k = 0; k < 5; k++) {
        ms_rng rng;
        ms_rng_seed(&rng, 5);
        int nd = 0;
        double mk = 0;
        for (int b = 0; b < BATCHES; b++) {
            ms_workload *wl;
            ms_generate(gpu, gen, m.env.n_batch, &rng, &wl, NULL);
            ms_env_reset(e, wl, NULL);
            bool done = false;
            while (!done) {
                ms_rl_choice ch;
                double t0 = now_s();
                ms_rl_rollout_best(ro, e, widths[k] < 0 ? 0 : widths[k], &ch, NULL);
                if (nd < MAXD)
                    lat[nd++] = now_s() - t0;
                ms_env_step(e, ch.best, &done);
            }
            mk += ms_env_now(e);
            ms_workload_free(wl);
        }
        double sum = 0;
        for (int i = 0; i < nd; i++)
            sum += lat[i];
        qsort(lat, (size_t)nd, sizeof lat[0], cmp_double);
        char name[32];
        snprintf(name, sizeof name, widths[k] < 0 ? "all its" : widths[k] == 1 ? "%d (greedy)"
                                                                                : "its %d best",
                 widths[k]);
        printf("shipped WIDETIMES policy, rollout over %s actions: %.1f us median, %.1f "
               "us mean, p99 %.1f us per decision over %d; mean makespan %.2f s on %d batches "
               "of 14\n", name, lat[nd / 2] * 1e6, sum / nd * 1e6, lat[nd * 99 / 100] * 1e6,
               nd, mk / BATCHES, BATCHES);
    }
    free(lat);
    ms_rl_rollout_free(ro);
    ms_env_free(e);
    ms_model_destroy(&m);
}

/* Steps per second of PPO training end to end (rollouts, GAE, updates): the default
 * settings, or (paper) the authors' PPO settings with their episodes. */
static void bench_training(const ms_gpu_model *gpu, const ms_gen_params *gen, int threads,
                           bool paper)
{
    ms_train_config c;
    memset(&c, 0, sizeof c);
    ms_env_config_default(&c.env);
    if (paper)
        ms_ppo_config_paper(&c.ppo);
    else
        ms_ppo_config_default(&c.ppo);
    c.paper_episodes = paper;
    c.ppo.threads = threads;
    c.gen = *gen;
    c.total_steps = 1 << 20;
    c.seed = 3;
    ms_trainer *t = ms_trainer_new(gpu, &c, NULL, NULL);
    ms_ppo_stats st;
    ms_trainer_iterate(t, &st, NULL); /* warm-up */
    double t0 = now_s(), c0 = (double)clock() / CLOCKS_PER_SEC;
    long s0 = ms_trainer_steps(t);
    for (int i = 0; i < 8; i++)
        ms_trainer_iterate(t, &st, NULL);
    double el = now_s() - t0;
    double cpu = (double)clock() / CLOCKS_PER_SEC - c0;
    printf("PPO training, 256x256 %s, %d envs x %d steps, %d epochs, minibatch %d%s, %d "
           "thread(s): %.0f env steps/s (%.0f per CPU second)\n",
           c.ppo.separate ? "policy + 256x256 value" : "shared", c.ppo.n_envs, c.ppo.n_steps,
           c.ppo.n_epochs, c.ppo.minibatch, paper ? ", paper episodes" : "", threads,
           (ms_trainer_steps(t) - s0) / el, (ms_trainer_steps(t) - s0) / cpu);
    ms_trainer_free(t);
}

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_gen_params gen;
    if (ms_gen_preset(gpu, "WIDETIMES", &gen, NULL)) {
        fprintf(stderr, "bench_env: no WIDETIMES preset\n");
        return 1;
    }
    bench_step(gpu, &gen);
    bench_decision(gpu, &gen);
    bench_rollout(gpu, &gen);
    for (int paper = 0; paper < 2; paper++)
        for (int threads = 1; threads <= 2; threads++)
            bench_training(gpu, &gen, threads, paper);
    return 0;
}
