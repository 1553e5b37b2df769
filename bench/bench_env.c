/* bench_env.c: speed of the scheduling environment (one step), of one scheduling decision
 * with a 256x256 policy, of the shipped policies' decisions (greedy and improved by
 * rollout), and of PPO training end to end (environment steps per second). */
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
           "%.3f us with mask + observation\n",
           steps, t_step / steps * 1e6, t_all / steps * 1e6);
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
        volatile int a = ms_rl_greedy_action(&m, &w, e, obs, mask);
        (void)a;
        lat[i] = now_s() - t0;
    }
    double sum = 0;
    for (int i = 0; i < REPS; i++)
        sum += lat[i];
    qsort(lat, REPS, sizeof lat[0], cmp_double);
    printf("one decision (obs %d, 256x256, %d actions): min %.1f us, median %.1f us, mean %.1f "
           "us, p99 %.1f us over %d\n",
           m.in, m.nact, lat[0] * 1e6, lat[REPS / 2] * 1e6, sum / REPS * 1e6,
           lat[REPS * 99 / 100] * 1e6, REPS);
    free(obs);
    free(mask);
    ms_workload_free(wl);
    ms_mlp_work_fini(&w);
    ms_mlp_fini(&m);
    ms_env_free(e);
}

/* A rule of decision of the learned scheduler (ms_rl_schedule's rollout and gap). */
typedef struct rule {
    int width;
    float gap;
} rule;

typedef struct timing {
    int n;       /* decisions timed */
    double *lat; /* seconds each */
    double mk;   /* sum of the batches' makespans */
    long passes; /* network passes of the rollout */
} timing;

/* Every batch an episode under rule r, each decision timed (ms_rl_rollout_decide, whose
 * first decision of a batch also plays the greedy completion it keeps). */
static void run_rule(const ms_rl_model *m, ms_env *e, ms_workload *const *batches, int nb,
                     const rule *r, timing *t)
{
    ms_rl_rollout *ro = ms_rl_rollout_new(&m->mlp, NULL);
    ms_mlp_work w;
    ms_mlp_work_init(&w, &m->mlp, 1, NULL);
    float *obs = malloc((size_t)m->mlp.in * sizeof(float));
    uint8_t *mask = malloc((size_t)m->mlp.nact);
    bool greedy = !ms_rl_rule_rolls_out(r->width, r->gap);
    t->n = 0;
    t->mk = 0;
    for (int b = 0; b < nb; b++) {
        ms_env_reset(e, batches[b], NULL);
        ms_rl_rollout_forget(ro);
        bool done = false;
        while (!done) {
            int a;
            double t0 = now_s();
            if (greedy)
                a = ms_rl_greedy_action(&m->mlp, &w, e, obs, mask);
            else
                ms_rl_rollout_decide(ro, e, r->width, r->gap, &a, NULL);
            t->lat[t->n++] = now_s() - t0;
            ms_env_step(e, a, &done);
        }
        t->mk += ms_env_now(e);
    }
    t->passes = ms_rl_rollout_get_stats(ro).passes;
    free(obs);
    free(mask);
    ms_mlp_work_fini(&w);
    ms_rl_rollout_free(ro);
}

/* Median, mean and p99 of t's decisions, in microseconds (sorts them). */
static void print_timing(const timing *t)
{
    double sum = 0;
    for (int i = 0; i < t->n; i++)
        sum += t->lat[i];
    qsort(t->lat, (size_t)t->n, sizeof t->lat[0], cmp_double);
    printf("%.1f us median, %.1f us mean, p99 %.1f us", t->lat[t->n / 2] * 1e6, sum / t->n * 1e6,
           t->lat[t->n * 99 / 100] * 1e6);
}

/* The batches of 14 of `sets` datasets of 100 tasks (seed 2026; sorted: in class order),
 * as `rl-eval` cuts them. */
static int make_batches(const ms_gpu_model *gpu, const char *preset, bool sorted, int sets,
                        ms_workload **out)
{
    ms_gen_params gen;
    ms_gen_preset(gpu, preset, &gen, NULL);
    gen.class_order = sorted;
    ms_rng rng;
    ms_rng_seed(&rng, 2026);
    int nb = 0;
    for (int d = 0; d < sets; d++) {
        ms_workload *w;
        ms_generate(gpu, &gen, 100, &rng, &w, NULL);
        for (int from = 0; from < w->n; from += 14)
            out[nb++] = ms_workload_slice(w, from, 14);
        ms_workload_free(w);
    }
    return nb;
}

/* The shipped offline policies' decisions in Table 4's protocol (EXPERIMENTS.md), both
 * dataset orders: the greedy policy (paper 001's agent) and the default rule (rollout over
 * the 4 best actions within the policy's calibrated logit gap); time per decision, network
 * passes per decision and the batches' mean makespan. Then the WIDETIMES policy with
 * rollout at every decision. */
static void bench_rollout(const ms_gpu_model *gpu)
{
    static const char *const presets[] = {"POORSCALING", "GOODSCALING", "MIXSCALINGUNIFORM",
                                          "MIXSCALINGEXTREME", "WIDETIMES"};
    enum { SETS = 100, MAXB = SETS * 8, MAXD = MAXB * 80 };
    ms_workload **batches = malloc(MAXB * sizeof *batches);
    timing t = {.lat = malloc(MAXD * sizeof(double))};
    for (int p = 0; p < 5; p++) {
        char path[1024], lower[32];
        size_t i;
        for (i = 0; presets[p][i] && i + 1 < sizeof lower; i++)
            lower[i] = (char)(presets[p][i] | 0x20);
        lower[i] = 0;
        snprintf(path, sizeof path, "%s/models/a100-%s.bin", MIGSCHED_SOURCE_DIR, lower);
        ms_rl_model m;
        ms_error err;
        if (ms_model_load(path, &m, &err)) {
            printf("rollout: %s\n", err.msg);
            continue;
        }
        ms_env *e = ms_env_new(gpu, &m.env, NULL);
        for (int sorted = 0; sorted < 2; sorted++) {
            int nb = make_batches(gpu, presets[p], sorted, SETS, batches);
            const rule greedy = {1, 0}, dflt = {MS_RL_ROLLOUT_DEFAULT, ms_rl_model_gap(&m)};
            run_rule(&m, e, batches, nb, &greedy, &t);
            double mk_greedy = t.mk;
            printf("%s policy, %s, %d batches of 14: greedy ", lower,
                   sorted ? "class-sorted" : "shuffled", nb);
            print_timing(&t);
            run_rule(&m, e, batches, nb, &dflt, &t);
            printf("; rollout over %d within logit gap %g: ", dflt.width, (double)dflt.gap);
            print_timing(&t);
            printf(", %.2f network passes per decision; mean makespan %.2f s -> %.2f s\n",
                   (double)t.passes / t.n, mk_greedy / nb, t.mk / nb);
            for (int b = 0; b < nb; b++)
                ms_workload_free(batches[b]);
        }
        if (p == 4) { /* WIDETIMES: rollout at every decision, the old rule */
            int nb = make_batches(gpu, presets[p], false, SETS, batches);
            for (int width = 2; width <= 8; width *= 2) {
                const rule every = {width, INFINITY};
                run_rule(&m, e, batches, nb, &every, &t);
                printf("%s policy, shuffled, rollout over %d at every decision: ", lower, width);
                print_timing(&t);
                printf(", %.2f network passes per decision; mean makespan %.2f s\n",
                       (double)t.passes / t.n, t.mk / nb);
            }
            for (int b = 0; b < nb; b++)
                ms_workload_free(batches[b]);
        }
        ms_env_free(e);
        ms_model_fini(&m);
    }
    free(t.lat);
    free(batches);
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
    bench_rollout(gpu);
    for (int paper = 0; paper < 2; paper++)
        for (int threads = 1; threads <= 2; threads++)
            bench_training(gpu, &gen, threads, paper);
    return 0;
}
