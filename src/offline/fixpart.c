/* fixpart.c: FIXPART(P), FIXPARTBEST and NOMIG (paper 000 6.5, paper 001 5.3): one static
 * partition set up from what the GPUs hold (its creations charged unless it is there
 * already), tasks in FIFO order on the first instance to become free that can run them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "initial_setup.h"
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

/* The instance a task with times `time` goes to: the first to become free among those that
 * can run it (instance j has slices[j]), -1 if none can. */
static int first_free(const double *time, const int *slices, const double *free_at, int ninst)
{
    int best = -1;
    for (int j = 0; j < ninst; j++)
        if (isfinite(time[slices[j]]) && (best < 0 || free_at[j] < free_at[best]))
            best = j;
    return best;
}

/* Instance j of the ninst instances of p on its GPUs: p->inst[j % p->n]'s slices. */
static void fill_slices(const ms_gpu_model *gpu, const ms_partition *p, int ninst, int *slices)
{
    for (int j = 0; j < ninst; j++)
        slices[j] = inst_slices(gpu, p->inst[j % p->n]);
}

/* List scheduling in FIFO order over the ninst instances of p (instance j: p->inst[j % p->n],
 * schedule instance id[j]) from free_at (when each is set up), each task added to s; every
 * task fits (check_fits). 0, or -1 when s runs out of memory. */
static int list_schedule(const ms_workload *w, const ms_gpu_model *gpu, const ms_partition *p,
                         int ninst, double *free_at, const int *id, ms_schedule *s)
{
    int *slices = malloc((size_t)ninst * sizeof *slices);
    if (!slices)
        return -1;
    fill_slices(gpu, p, ninst, slices);
    for (int i = 0; i < w->n; i++) {
        const double *time = w->tasks[i].time;
        int best = first_free(time, slices, free_at, ninst);
        double t = time[slices[best]];
        if (ms_schedule_add_task(s, i, id[best], free_at[best], free_at[best] + t)) {
            free(slices);
            return -1;
        }
        free_at[best] += t;
    }
    free(slices);
    return 0;
}

/* The makespan of list scheduling on every partition of gpu (fits[k] false where a task
 * fits no instance of partition k), in one pass over the tasks: a pass per partition read a
 * million-task workload 19 times on an A100, and as often again to check that the tasks fit. Each
 * partition takes the same steps in the same order as list_schedule. */
static int all_makespans(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_initial *initial, double *ms, bool *fits)
{
    int np = gpu->npartitions, *first = malloc((size_t)(np + 1) * sizeof *first);
    if (!first)
        return -1;
    first[0] = 0;
    for (int k = 0; k < np; k++)
        first[k + 1] = first[k] + gpus * gpu->partitions[k].n;
    int *slices = malloc((size_t)(first[np] > 0 ? first[np] : 1) * sizeof *slices);
    double *free_at = calloc((size_t)(first[np] > 0 ? first[np] : 1), sizeof *free_at);
    if (!slices || !free_at) {
        free(first);
        free(slices);
        free(free_at);
        return -1;
    }
    for (int k = 0; k < np; k++) {
        fill_slices(gpu, &gpu->partitions[k], first[k + 1] - first[k], slices + first[k]);
        const ms_partition *p = &gpu->partitions[k];
        for (int g = 0; g < gpus; g++)
            setup_partition(gpu, initial, g, p, NULL, NULL, free_at + first[k] + g * p->n);
        ms[k] = 0;
        fits[k] = true;
    }
    for (int i = 0; i < w->n; i++) {
        const double *time = w->tasks[i].time;
        for (int k = 0; k < np; k++) {
            if (!fits[k])
                continue;
            int *sl = slices + first[k];
            double *fa = free_at + first[k];
            int best = first_free(time, sl, fa, first[k + 1] - first[k]);
            if (best < 0) {
                fits[k] = false;
                continue;
            }
            fa[best] += time[sl[best]];
            if (fa[best] > ms[k])
                ms[k] = fa[best];
        }
    }
    free(first);
    free(slices);
    free(free_at);
    return 0;
}

/* FIFO list scheduling over the instances of `part` on every GPU, each set up from the
 * initial layout (setup_partition); they stay alive at the end (NAN destroy times). */
static int fixpart_run(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_initial *initial, int part, const char *algo, ms_schedule **out,
                       ms_error *err)
{
    if (gpus < 1)
        return ms_error_set(err, MS_EINVAL, "%s: need at least one GPU (got %d)", algo, gpus);
    if (part < 0 || part >= gpu->npartitions)
        return ms_error_set(err, MS_EINVAL, "%s: no partition %d on %s", algo, part + 1, gpu->name);
    const ms_partition *p = &gpu->partitions[part];
    int rc = check_fits(w, gpu, p, algo, err);
    if (rc)
        return rc;
    ms_schedule *s = ms_schedule_new(gpu, gpus, algo);
    int ninst = gpus * p->n;
    double *free_at = calloc((size_t)ninst, sizeof *free_at);
    int *id = calloc((size_t)ninst, sizeof *id);
    if (!s || !free_at || !id)
        goto oom;
    for (int g = 0; g < gpus; g++)
        if (setup_partition(gpu, initial, g, p, s, id + g * p->n, free_at + g * p->n))
            goto oom;
    if (list_schedule(w, gpu, p, ninst, free_at, id, s) < 0)
        goto oom;
    free(free_at);
    free(id);
    ms_schedule_normalize(s);
    *out = s;
    return MS_OK;
oom:
    free(free_at);
    free(id);
    ms_schedule_free(s);
    return ms_error_set(err, MS_ENOMEM, "%s: out of memory", algo);
}

int ms_fixpart_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_initial *initial, int partition, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    char name[MS_NAME_LEN + 16] = "fixpart";
    if (partition >= 0 && partition < gpu->npartitions) {
        char part[MS_NAME_LEN];
        ms_partition_format(gpu, &gpu->partitions[partition], part, sizeof part);
        snprintf(name, sizeof name, "fixpart:%s", part);
    }
    return fixpart_run(w, gpu, gpus, initial, partition, name, out, err);
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
                      const ms_initial *initial, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    int k = whole_gpu_partition(gpu);
    if (k < 0)
        return ms_error_set(err, MS_EINVAL, "nomig: %s has no whole-GPU instance", gpu->name);
    return fixpart_run(w, gpu, gpus, initial, k, "nomig", out, err);
}

int ms_fixpartbest_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                            const ms_initial *initial, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    if (gpus < 1)
        return ms_error_set(err, MS_EINVAL, "fixpartbest: need at least one GPU (got %d)", gpus);
    /* Each partition's makespan without building its schedule; only the best one's is. */
    double ms[MS_MAX_PARTITIONS];
    bool fits[MS_MAX_PARTITIONS];
    if (all_makespans(w, gpu, gpus, initial, ms, fits))
        return ms_error_set(err, MS_ENOMEM, "fixpartbest: out of memory");
    int best_k = -1;
    for (int k = 0; k < gpu->npartitions; k++)
        if (fits[k] && (best_k < 0 || ms[k] < ms[best_k]))
            best_k = k;
    if (best_k < 0)
        return ms_error_set(err, MS_EINFEASIBLE,
                            "fixpartbest: no partition of %s can run every task", gpu->name);
    int rc = fixpart_run(w, gpu, gpus, initial, best_k, "fixpartbest", out, err);
    if (!rc)
        ms_schedule_set_stat(*out, "partition", best_k + 1);
    return rc;
}
