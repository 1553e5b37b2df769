/* fixpart.c: FIXPART(P), FIXPARTBEST and NOMIG (paper 000 6.5, paper 001 5.3): one static
 * partition set up before the plan, tasks in FIFO order on the first instance to become
 * free that can run them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* List scheduling in FIFO order over the ninst instances of p (instance j: p->inst[j % p->n])
 * from free_at (zeros); each task is added to s unless s is NULL. Returns the makespan (the
 * latest end), or -1 when s runs out of memory. */
static double list_schedule(const ms_workload *w, const ms_gpu_model *gpu, const ms_partition *p,
                            int ninst, double *free_at, ms_schedule *s)
{
    double makespan = 0.0;
    for (int i = 0; i < w->n; i++) {
        int best = -1;
        for (int j = 0; j < ninst; j++) {
            double t = w->tasks[i].time[inst_slices(gpu, p->inst[j % p->n])];
            if (isfinite(t) && (best < 0 || free_at[j] < free_at[best]))
                best = j;
        }
        double t = w->tasks[i].time[inst_slices(gpu, p->inst[best % p->n])];
        if (s && ms_schedule_add_task(s, i, best, free_at[best], free_at[best] + t))
            return -1;
        free_at[best] += t;
        if (free_at[best] > makespan)
            makespan = free_at[best];
    }
    return makespan;
}

/* FIFO list scheduling over the instances of `part` on every GPU. Instances are present
 * before the plan (NAN create times) and stay alive (NAN destroy times). */
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
    if (list_schedule(w, gpu, p, ninst, free_at, s) < 0)
        goto oom;
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
    if (gpus < 1)
        return ms_error_set(err, MS_EINVAL, "fixpartbest: need at least one GPU (got %d)", gpus);
    /* Each partition's makespan without building its schedule; only the best one's is. */
    int best_k = -1, most = 0;
    for (int k = 0; k < gpu->npartitions; k++)
        most = gpu->partitions[k].n > most ? gpu->partitions[k].n : most;
    double *free_at = malloc((size_t)gpus * (most > 0 ? most : 1) * sizeof *free_at);
    if (!free_at)
        return ms_error_set(err, MS_ENOMEM, "fixpartbest: out of memory");
    double best = INFINITY;
    for (int k = 0; k < gpu->npartitions; k++) {
        const ms_partition *p = &gpu->partitions[k];
        if (check_fits(w, gpu, p, "fixpartbest", NULL))
            continue;
        memset(free_at, 0, (size_t)gpus * p->n * sizeof *free_at);
        double m = list_schedule(w, gpu, p, gpus * p->n, free_at, NULL);
        if (best_k < 0 || m < best) {
            best = m;
            best_k = k;
        }
    }
    free(free_at);
    if (best_k < 0)
        return ms_error_set(err, MS_EINFEASIBLE,
                            "fixpartbest: no partition of %s can run every task", gpu->name);
    int rc = fixpart_run(w, gpu, gpus, best_k, "fixpartbest", out, err);
    if (!rc)
        ms_schedule_set_stat(*out, "partition", best_k + 1);
    return rc;
}
