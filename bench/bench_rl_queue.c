/* bench_rl_queue.c: the learned scheduler on queues longer than its batch N: per
 * shipped offline policy and queue length, the mean makespan gap to FAR
 * ((agent / FAR - 1) * 100 on the same queue) of the batch-at-a-time episode (the old
 * behaviour), the refilled batch (fill), balanced batches joined by overlap (split), the
 * shorter of those two (best, the default) and the guarded default; at 15 tasks also the
 * required showing read literally: against the agent's plan of the first 14 tasks with
 * FAR's plan of the 15th alone after it (makespans added). Usage: bench_rl_queue [QUEUES
 * per cell, default 100]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "migsched/learn.h"
#include "migsched/offline.h"

#ifndef MIGSCHED_SOURCE_DIR
#define MIGSCHED_SOURCE_DIR "."
#endif

static const struct {
    const char *file, *preset;
} models[] = {
    {"a100-poorscaling.bin", "POORSCALING"},
    {"a100-goodscaling.bin", "GOODSCALING"},
    {"a100-mixscalinguniform.bin", "MIXSCALINGUNIFORM"},
    {"a100-mixscalingextreme.bin", "MIXSCALINGEXTREME"},
    {"a100-widetimes.bin", "WIDETIMES"},
};
static const int lengths[] = {14, 15, 20, 28, 60};

enum { OLD, FILL, SPLIT, BEST, GUARDED, NCOL };

static double makespan_of(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                          const char *model, int queue, int no_guard)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.rl.model = model;
    o.rl.queue = queue;
    o.rl.no_guard = no_guard;
    ms_schedule *s = NULL;
    ms_error err = {0};
    if (ms_offline_schedule(algo, w, gpu, 1, &o, &s, &err)) {
        fprintf(stderr, "bench_rl_queue: %s: %s\n", algo, err.msg);
        exit(1);
    }
    double m = ms_schedule_makespan(s);
    ms_schedule_free(s);
    return m;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 100;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    printf("learned scheduler on long queues: mean (agent / FAR - 1) %% over %d held-out queues "
           "(seed 2026) per cell\n",
           reps);
    printf("%-26s %4s %9s %9s %9s %9s %9s\n", "policy", "n", "batch", "fill", "split", "best",
           "guarded");
    for (size_t mi = 0; mi < sizeof models / sizeof *models; mi++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/models/%s", MIGSCHED_SOURCE_DIR, models[mi].file);
        ms_rl_model m;
        ms_gen_params gen;
        ms_error err = {0};
        if (ms_model_load(path, &m, &err) || ms_gen_preset(gpu, models[mi].preset, &gen, &err)) {
            fprintf(stderr, "bench_rl_queue: %s\n", err.msg);
            return 1;
        }
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
            ms_rng rng;
            ms_rng_seed(&rng, 2026 + 1000 * (uint64_t)lengths[li]);
            double sum[NCOL] = {0}, lit_gap[2] = {0};
            int lit_longer[2] = {0};
            for (int r = 0; r < reps; r++) {
                ms_workload *w = NULL;
                ms_schedule *s = NULL;
                if (ms_generate(gpu, &gen, lengths[li], &rng, &w, &err) ||
                    ms_rl_schedule(&m, gpu, w, false, MS_RL_ROLLOUT_DEFAULT, MS_RL_GAP_DEFAULT, &s,
                                   &err)) {
                    fprintf(stderr, "bench_rl_queue: %s\n", err.msg);
                    return 1;
                }
                double far = makespan_of("far", w, gpu, NULL, 0, 0), v[NCOL];
                v[OLD] = ms_schedule_makespan(s);
                v[FILL] = makespan_of("rl", w, gpu, path, MS_RL_QUEUE_FILL, 1);
                v[SPLIT] = makespan_of("rl", w, gpu, path, MS_RL_QUEUE_SPLIT, 1);
                v[BEST] = fmin(v[FILL], v[SPLIT]);
                v[GUARDED] = makespan_of("rl", w, gpu, path, MS_RL_QUEUE_BEST, 0);
                for (int c = 0; c < NCOL; c++)
                    sum[c] += (v[c] / far - 1) * 100;
                if (lengths[li] == 15) {
                    ms_workload *head = ms_workload_slice(w, 0, 14),
                                *last = ms_workload_slice(w, 14, 1);
                    double lit = makespan_of("rl", head, gpu, path, MS_RL_QUEUE_BEST, 1) +
                                 makespan_of("far", last, gpu, NULL, 0, 0);
                    for (int k = 0; k < 2; k++) {
                        double mine = v[k ? GUARDED : BEST];
                        lit_longer[k] += mine > lit;
                        lit_gap[k] += (mine / lit - 1) * 100;
                    }
                    ms_workload_free(head);
                    ms_workload_free(last);
                }
                ms_schedule_free(s);
                ms_workload_free(w);
            }
            printf("%-26s %4d", models[mi].file, lengths[li]);
            for (int c = 0; c < NCOL; c++)
                printf(" %+8.2f%%", sum[c] / reps);
            printf("\n");
            if (lengths[li] == 15)
                printf("%-26s %4s longer than its first 14 then FAR's 15th: %d (best), %d "
                       "(guarded) of %d; mean gap %+.2f%% / %+.2f%%\n",
                       "", "", lit_longer[0], lit_longer[1], reps, lit_gap[0] / reps,
                       lit_gap[1] / reps);
            fflush(stdout);
        }
        ms_model_fini(&m);
    }
    return 0;
}
