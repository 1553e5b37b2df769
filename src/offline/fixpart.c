/* fixpart.c: FIXPART(P), FIXPARTBEST and NOMIG (paper 000 6.5, paper 001 5.3): one static
 * partition set up before the plan, tasks in FIFO order on the first instance to become
 * free that can run them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "migsched/offline.h"

static int inst_slices(const ms_gpu_model *gpu, ms_placement p)
{
    return gpu->profiles[p.profile].slices;
}

/* A task no instance of the partition can run makes the policy infeasible. */
static int check_fits(const ms_workload *w, const ms_gpu_model *gpu, const ms_partition *p,
                      const char *algo, ms_error *err)
{
    for (int i = 0; i < w->n; i++) {
        bool fits = false;
        for (int k = 0; k < p->n && !fits; k++)
            fits = isfinite(w->tasks[i].time[inst_slices(gpu, p->inst[k])]);
        if (!fits)
            return ms_error_set(err, MS_EINFEASIBLE,
                                "%s: task %d (%s) cannot run on any instance of the partition",
                                algo, i, w->tasks[i].name);
    }
    return MS_OK;
}

/* List scheduling in FIFO order over the instances of `part` on every GPU. Instances are
 * present before the plan (NAN create times) and stay alive (NAN destroy times). */
static int fixpart_run(const ms_workload *w, const ms_gpu_model *gpu, int gpus, int part,
                       const char *algo, ms_schedule **out, ms_error *err)
{
    if (gpus < 1)
        return ms_error_set(err, MS_EINVAL, "%s: need at least one GPU (got %d)", algo, gpus);
    if (part < 0 || part >= gpu->npartitions)
        return ms_error_set(err, MS_EINVAL, "%s: no partition %d on %s", algo, part + 1,
                            gpu->name);
    const ms_partition *p = &gpu->partitions[part];
    int rc = check_fits(w, gpu, p, algo, err);
    if (rc)
        return rc;
    ms_schedule *s = ms_schedule_new(gpu, gpus, algo);
    int ninst = gpus * p->n;
    double *free_at = calloc((size_t)ninst, sizeof *free_at);
    if (!s || !free_at)
        goto oom;
    for (int j = 0; j < ninst; j++) {
        ms_placement pl = p->inst[j % p->n];
        if (ms_schedule_add_instance(s, j / p->n, pl.profile, pl.start, NAN, NAN, NAN, NAN) < 0)
            goto oom;
    }
    for (int i = 0; i < w->n; i++) {
        int best = -1;
        for (int j = 0; j < ninst; j++) {
            double t = w->tasks[i].time[inst_slices(gpu, p->inst[j % p->n])];
            if (isfinite(t) && (best < 0 || free_at[j] < free_at[best]))
                best = j;
        }
        double t = w->tasks[i].time[inst_slices(gpu, p->inst[best % p->n])];
        if (ms_schedule_add_task(s, i, best, free_at[best], free_at[best] + t))
            goto oom;
        free_at[best] += t;
    }
    free(free_at);
    ms_schedule_normalize(s);
    *out = s;
    return MS_OK;
oom:
    free(free_at);
    ms_schedule_free(s);
    return ms_error_set(err, MS_ENOMEM, "%s: out of memory", algo);
}

int ms_fixpart_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus, int partition,
                        ms_schedule **out, ms_error *err)
{
    char name[MS_NAME_LEN + 16] = "fixpart";
    if (partition >= 0 && partition < gpu->npartitions) {
        char part[MS_NAME_LEN];
        ms_partition_format(gpu, &gpu->partitions[partition], part, sizeof part);
        snprintf(name, sizeof name, "fixpart:%s", part);
    }
    return fixpart_run(w, gpu, gpus, partition, name, out, err);
}

/* The partition made of one instance using every slice. */
static int whole_gpu_partition(const ms_gpu_model *gpu)
{
    for (int k = 0; k < gpu->npartitions; k++)
        if (gpu->partitions[k].n == 1 &&
            inst_slices(gpu, gpu->partitions[k].inst[0]) == gpu->slices)
            return k;
    return -1;
}

int ms_nomig_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      ms_schedule **out, ms_error *err)
{
    int k = whole_gpu_partition(gpu);
    if (k < 0)
        return ms_error_set(err, MS_EINVAL, "nomig: %s has no whole-GPU instance", gpu->name);
    return fixpart_run(w, gpu, gpus, k, "nomig", out, err);
}

int ms_fixpartbest_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                            ms_schedule **out, ms_error *err)
{
    ms_schedule *best = NULL;
    int best_k = -1;
    for (int k = 0; k < gpu->npartitions; k++) {
        ms_schedule *s = NULL;
        ms_error e = {0};
        int rc = fixpart_run(w, gpu, gpus, k, "fixpartbest", &s, &e);
        if (rc == MS_EINFEASIBLE)
            continue;
        if (rc) {
            ms_schedule_free(best);
            if (err)
                *err = e;
            return rc;
        }
        if (!best || ms_schedule_makespan(s) < ms_schedule_makespan(best)) {
            ms_schedule_free(best);
            best = s;
            best_k = k;
        } else {
            ms_schedule_free(s);
        }
    }
    if (!best)
        return ms_error_set(err, MS_EINFEASIBLE,
                            "fixpartbest: no partition of %s can run every task", gpu->name);
    ms_schedule_set_stat(best, "partition", best_k + 1);
    *out = best;
    return MS_OK;
}
