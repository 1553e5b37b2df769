/* bench_hier_rl.c: the co-scheduling agent of paper 004 with Table VI's network (512/256/128,
 * W = 12, C_max = 4): decision time per window (plans of Table V's Q1-Q12, greedy and with
 * the rollout lookahead of K = 2..4, and nested to depth 2 with K = 3 and 8) and
 * training throughput (environment steps per second, one gradient step each; and
 * --expert-pretrain's supervised updates per second), with Table VI's state and with the
 * co-run gains (--gains). Rewards without r_i (--ri-weight 0, which pre-training needs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "migsched/hier.h"

static void die(const char *what, const ms_error *err)
{
    fprintf(stderr, "bench_hier_rl: %s: %s\n", what, err->msg);
    exit(1);
}

/* Decision time and training throughput of one configuration of the agent. */
static void bench_config(const ms_hier_catalog *cat, ms_hier_corun *cr, bool gains)
{
    ms_error err;
    ms_hier_rl_config cfg;
    ms_hier_rl_config_default(&cfg);
    cfg.gains = gains;
    cfg.ri_weight = 0;
    const char *name = gains ? "hier agent --gains" : "hier agent";
    ms_hier_trainer *t = ms_hier_trainer_new(&cfg, cat, cr, NULL, 100000, 1, &err);
    if (!t)
        die("trainer", &err);

    /* Decisions: plans of the twelve windows, repeated (the weights do not change the time). */
    ms_hier_window ws[12];
    for (int k = 0; k < 12; k++) {
        const char *category;
        if (ms_hier_window_from_names(cat, ms_hier_table5_mix(k, &category), 12, &ws[k], &err))
            die("window", &err);
    }
    /* Greedy (lookahead 1), the rollout lookahead of K = 2..4 actions per decision, and the
     * nested rollout of depth 2 with K = 3 and 8 (once: K^2 completions per decision). */
    static const ms_hier_lookahead las[] = {{1, 1}, {2, 1}, {3, 1}, {4, 1}, {3, 2}, {8, 2}};
    for (size_t l = 0; l < sizeof las / sizeof las[0]; l++) {
        int K = las[l].width, reps = K == 1 ? 20 : las[l].depth == 1 ? 4 : 1;
        long groups = 0;
        double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_now();
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 12; k++) {
                ms_hier_plan p;
                if (ms_hier_trainer_plan(t, &ws[k], cr, 4, las[l], &p, &err))
                    die("plan", &err);
                groups += (long)p.n;
                ms_hier_plan_fini(&p);
            }
        double cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = bench_now() - w0;
        printf("%s decision (W=12, C_max=4, 512/256/128, lookahead %d, depth %d): %.3f ms CPU "
               "per window (%.3f ms wall; %d windows, %.1f groups per window)\n",
               name, K, las[l].depth, 1e3 * cpu / (reps * 12), 1e3 * wall / (reps * 12), reps * 12,
               (double)groups / (reps * 12));
    }

    /* Training: past learn_start every step makes one gradient step on a batch of 64. */
    ms_dqn_stats st;
    if (ms_hier_trainer_run(t, cfg.dqn.learn_start, &st, &err))
        die("train", &err);
    long steps = 3000;
    double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_now();
    if (ms_hier_trainer_run(t, steps, &st, &err))
        die("train", &err);
    double cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = bench_now() - w0;
    printf("%s training (batch 64, one update per step): %.0f steps/s CPU "
           "(%.0f steps/s wall; %ld steps)\n",
           name, steps / cpu, steps / wall, steps);

    /* Pre-training: each update labels 16 states with their exact values, one batch of 64. */
    long updates = 300;
    double loss;
    c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    w0 = bench_now();
    if (ms_hier_trainer_pretrain(t, updates, &loss, &err))
        die("pretrain", &err);
    cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    wall = bench_now() - w0;
    printf("%s --expert-pretrain (batch 64, 16 labelled states per update): %.0f updates/s "
           "CPU (%.0f updates/s wall; %ld updates)\n",
           name, updates / cpu, updates / wall, updates);

    for (int k = 0; k < 12; k++)
        ms_hier_window_fini(&ws[k]);
    ms_hier_trainer_free(t);
}

int main(void)
{
    ms_error err;
    ms_hier_catalog cat;
    ms_hier_params par = ms_hier_params_default();
    ms_hier_corun *cr = ms_hier_corun_model(&par);
    if (ms_hier_catalog_builtin(&cat, &err))
        die("catalogue", &err);
    bench_config(&cat, cr, false);
    bench_config(&cat, cr, true);
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return 0;
}
