/* bench_exec.c: cost of the executor's dependency engine: FAR plans of n generated tasks
 * (batches of 50) on one A100-40GB replayed with the sim backend in virtual time; prints
 * the replay time per task and checks that the replay ends exactly at the plan's makespan. */
#include <math.h>
#include <stdio.h>

#include "bench_util.h"
#include "migsched/exec.h"
#include "migsched/offline.h"

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    printf("%8s %10s %10s %12s %12s %14s\n", "tasks", "instances", "ops", "replay (s)", "us/task",
           "|real-plan| (s)");
    for (int n = 100; n <= 12800; n *= 2) {
        ms_error err;
        ms_gen_params params;
        ms_rng rng;
        ms_rng_seed(&rng, 42);
        ms_workload *w = NULL;
        ms_schedule *s = NULL;
        ms_offline_options opt;
        ms_offline_options_init(&opt);
        opt.batch = 50;
        if (ms_gen_preset(gpu, "MIXEDSCALING", &params, &err) ||
            ms_generate(gpu, &params, n, &rng, &w, &err) ||
            ms_offline_schedule("far", w, gpu, 1, &opt, &s, &err)) {
            fprintf(stderr, "bench_exec: %s\n", err.msg);
            return 1;
        }
        ms_run_options o = {.backend = "sim", .ndevices = 1};
        ms_run_report *r;
        double t0 = bench_now();
        if (ms_run(s, w, &o, &r, &err)) {
            fprintf(stderr, "bench_exec: %s\n", err.msg);
            return 1;
        }
        double dt = bench_now() - t0;
        printf("%8d %10d %10d %12.4f %12.2f %14.3g\n", n, s->ninst, r->nops, dt, dt / n * 1e6,
               fabs(r->makespan - ms_schedule_makespan(s)));
        ms_run_report_free(r);
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    return 0;
}
