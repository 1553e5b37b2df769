/* bench_online.c: online simulator throughput (events per second) at paper 002's scale
 * (4 GPUs) and at 1,024 GPUs with a million jobs, for each policy; and the default policy
 * at 1,024 GPUs x 1M jobs with the per-event invariant check (--check) against without. */
#include <stdbool.h>
#include <stdio.h>

#include "bench_util.h"
#include "migsched/online.h"

/* Arrival mean chosen so the node runs near full load: mean demand 2.5 slices x 180 s. */
static int bench(const char *model, int gpus, int jobs, int policy, bool check, double *secs)
{
    const ms_gpu_model *m = ms_gpu_builtin(model);
    ms_online_gen g;
    ms_online_gen_defaults(m, &g);
    g.jobs = jobs;
    g.arrival_mean = 2.5 * 180.0 / (0.9 * gpus * m->slices);
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    ms_online_workload w;
    ms_online_result r;
    ms_error err;
    if (ms_online_generate(m, &g, &rng, &w, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = gpus;
    c.policy = policy;
    c.layout = MS_LAYOUT_PACKED; /* one layout: "best" would run all four */
    c.check = check;
    double t0 = bench_now();
    int rc = ms_online_simulate(m, &w, &c, &r, &err);
    double dt = bench_now() - t0;
    if (rc)
        return fprintf(stderr, "%s\n", err.msg), 1;
    printf("%-10s %5d GPUs %8d jobs %-17s %-9s %9ld events %7.3f s %10.0f events/s  "
           "(migrations %ld, mean wait %.1f s)\n",
           model, gpus, jobs, ms_online_policy_name(policy), check ? "check" : "", r.events, dt,
           r.events / dt, r.total_migrations, r.mean_wait);
    *secs = dt;
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
    return 0;
}

int main(void)
{
    int rc = 0;
    double t[MS_POLICY_FF_DYNAMIC + 1], checked = 0;
    for (int p = 0; p <= MS_POLICY_FF_DYNAMIC; p++)
        rc |= bench("A100-40GB", 4, 100000, p, false, &t[p]);
    for (int p = 0; p <= MS_POLICY_FF_DYNAMIC; p++)
        rc |= bench("A100-40GB", 1024, 1000000, p, false, &t[p]);
    rc |= bench("A100-40GB", 1024, 1000000, MS_POLICY_FRAG, true, &checked);
    if (!rc)
        printf("1,024 GPUs x 1M jobs, frag: checked / unchecked time = %.2f\n",
               checked / t[MS_POLICY_FRAG]);
    return rc;
}
