/* bench_online_cluster.c: the cluster simulator at 1,000 nodes x 8 A100-40GB on the whole
 * Alibaba GPU-sharing trace, at its own arrivals and time-scaled to offered loads 0.6, 0.8
 * and 1.0 (the simulator's --load: slice-seconds of work over the cluster's slices x the
 * arrival span, as bench/cluster_compare.sh sets its streams): dynamic (migsched on each
 * node; with and without slurm-node's slice count), static with whole GPUs (the layout every job of
 * the trace can run on) on the same jobs, and the static best layout chosen on the first half and
 * both policies evaluated on the second. The trace is $MIGSCHED_ALIBABA or ../shared/data next to
 * the source tree; without it the benchmark says so and skips. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_util.h"
#include "migsched/online.h"

#define NODES 1000
#define GPUS  8

static void line(const char *label, int jobs, double secs, double load,
                 const ms_online_cluster_result *r)
{
    printf("%-18s %5d jobs %7.3f s  cluster_compare load=%.2f policy=%s mean_wait=%.3f "
           "p50_wait=%.3f p99_wait=%.3f mean_turnaround=%.3f util=%.4f plugin_waits=%ld\n",
           label, jobs, secs, load, label, r->all.mean_wait, r->all.p50_wait, r->all.p99_wait,
           r->all.mean_turnaround, r->utilisation, r->plugin_waits);
}

/* One ms_online_cluster_compare; its time covers every policy it runs (and, for the
 * static best, the candidate layouts it simulates). */
static int run(const ms_gpu_model *m, const ms_online_workload *w, double load, bool dynamic,
               bool statik, const char *layout, bool slurm_node)
{
    bool best = statik && !layout;
    ms_online_cluster_spec s = {.dynamic = dynamic,
                                .statik = statik,
                                .static_best = best,
                                .train_fraction = 0.5,
                                .load = load};
    ms_online_cluster_config_defaults(&s.cfg);
    s.cfg.nodes = NODES;
    s.cfg.node.gpus = GPUS;
    s.cfg.slurm.node_count = slurm_node;
    ms_error err;
    if (layout && ms_online_cluster_layout_parse(m, layout, GPUS, s.cfg.layout, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    ms_online_cluster_outcome out;
    double t0 = bench_now();
    if (ms_online_cluster_compare(m, w, &s, &out, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    double dt = bench_now() - t0;
    if (best)
        printf("static best: %d layouts simulated on the first %d jobs, then both policies on "
               "the other %d (%.3f s in all)\n",
               out.candidates, out.train_jobs, out.eval.n, dt);
    char label[64];
    snprintf(label, sizeof label, "static-%s", best ? "best" : layout);
    if (dynamic)
        line(slurm_node ? "dynamic-slurm-node" : "dynamic", out.eval.n, dt, out.offered_load,
             &out.dynamic);
    if (statik)
        line(label, out.eval.n, dt, out.offered_load, &out.statik);
    ms_online_cluster_outcome_fini(&out);
    return 0;
}

int main(void)
{
    const char *path = getenv("MIGSCHED_ALIBABA");
    const char *fallback = MIGSCHED_SOURCE_DIR
        "/../shared/data/alibaba-openb-2023/openb_pod_list_default.csv";
    if (!path)
        path = fallback;
    if (access(path, R_OK)) {
        printf("bench_online_cluster: skipped, no trace at %s (set MIGSCHED_ALIBABA)\n", path);
        return 0;
    }
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    ms_error err;
    if (ms_online_alibaba_read(path, m, 0, &w, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    const double loads[] = {0, 0.6, 0.8, 1.0}; /* 0: the trace's own arrivals */
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof loads / sizeof *loads; i++) {
        printf("%d nodes x %d x %s, %d jobs (whole trace), %s %.4g\n", NODES, GPUS, m->name, w.n,
               loads[i] ? "offered load" : "its own arrivals, offered load",
               loads[i] ? loads[i]
                        : ms_online_offered_load(m, &w, (int64_t)NODES * GPUS * m->slices));
        rc = run(m, &w, loads[i], true, false, NULL, false) ||
             run(m, &w, loads[i], true, false, NULL, true) ||
             run(m, &w, loads[i], false, true, "7", false) ||
             run(m, &w, loads[i], true, true, NULL, false);
    }
    ms_online_workload_fini(&w);
    return rc;
}
