/* bounds.c: makespan lower bounds: baseline (paper 000 6.4), l_bound_paper (paper 001 5.2
 * as printed) and migsched's l_bound (creations only, none for sizes present at start). */
#include <math.h>

#include "migsched/schedule.h"

double ms_bound_baseline(const ms_workload *w, const ms_gpu_model *gpu, int gpus)
{
    double area = 0.0;
    for (int i = 0; i < w->n; i++)
        area += ms_task_min_area(&w->tasks[i], gpu, NULL);
    return area / (gpu->slices * (double)gpus);
}

/* Idle(s, S): over every valid partition holding an instance of s compute slices, the
 * fewest slices held by its other instances whose size is outside S (bit k of S_mask =
 * gpu->sizes[k]). Those slices cannot run any task while the s-instance runs one. */
static int idle_slices(const ms_gpu_model *gpu, int s, unsigned S_mask)
{
    int best = -1;
    for (int p = 0; p < gpu->npartitions; p++) {
        const ms_partition *part = &gpu->partitions[p];
        int idle = 0, has = 0;
        for (int k = 0; k < part->n; k++) {
            int sz = gpu->profiles[part->inst[k].profile].slices;
            if (sz == s && !has)
                has = 1; /* the task's own instance */
            else {
                int k2 = ms_gpu_size_index(gpu, sz);
                if (k2 < 0 || !(S_mask & (1u << k2)))
                    idle += sz;
            }
        }
        if (has && (best < 0 || idle < best))
            best = idle;
    }
    return best < 0 ? 0 : best;
}

/* The terms of set S (bit k = gpu->sizes[k]): weight[s] = s + Idle(s, S) for s in S, and
 * the reconfiguration area sum_{s in S} s * (create(s) [unless present] + destroy(s) [if
 * with_destroy]), returned. */
static double set_terms(const ms_gpu_model *gpu, unsigned S, bool with_destroy, unsigned present,
                        double weight[MS_MAX_SLICES + 1])
{
    double reconfig = 0.0;
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        weight[s] = 0.0;
    for (int k = 0; k < gpu->nsizes; k++) {
        if (!(S & (1u << k)))
            continue;
        int s = gpu->sizes[k];
        weight[s] = s + idle_slices(gpu, s, S);
        if (!(present & (1u << s)))
            reconfig += s * ms_gpu_create_time(gpu, s);
        if (with_destroy)
            reconfig += s * ms_gpu_destroy_time(gpu, s);
    }
    return reconfig;
}

/* min over non-empty S of (sum_i min_{s in S} (s + Idle(s,S)) t_i(s) + reconfiguration
 * area of S) / (slices * gpus), for nb (1 or 2) variants of the reconfiguration area
 * (with_destroy[j], present[j]) into out[j]. One pass over the tasks for every S and
 * variant at once (a pass per S streamed the large task array 31 times on an A100): the
 * weights do not depend on the variant, so each task's minimum is computed once and added
 * to each variant's sum, each still in task order from its own reconfiguration area, so
 * every result is the same as alone. */
static void area_bounds(const ms_workload *w, const ms_gpu_model *gpu, int gpus, int nb,
                        const bool *with_destroy, const unsigned *present, double *out)
{
    if (w->n == 0) {
        for (int j = 0; j < nb; j++)
            out[j] = 0.0; /* nothing to run: no instance needs creating */
        return;
    }
    int nsz = gpu->nsizes;
    unsigned nsets = 1u << nsz; /* sizes are distinct slice counts: nsz <= MS_MAX_SLICES */
    double weight[1u << MS_MAX_SLICES][MS_MAX_SLICES + 1], total[2][1u << MS_MAX_SLICES];
    for (int j = 0; j < nb; j++)
        for (unsigned S = 1; S < nsets; S++)
            total[j][S] = set_terms(gpu, S, with_destroy[j], present[j], weight[S]);
    for (int i = 0; i < w->n; i++) {
        const double *t = w->tasks[i].time;
        for (unsigned S = 1; S < nsets; S++) {
            double m = INFINITY;
            for (int k = 0; k < nsz; k++) {
                int s = gpu->sizes[k];
                if ((S & (1u << k)) && weight[S][s] * t[s] < m)
                    m = weight[S][s] * t[s];
            }
            for (int j = 0; j < nb; j++)
                total[j][S] += m;
        }
    }
    for (int j = 0; j < nb; j++) {
        double best = INFINITY;
        for (unsigned S = 1; S < nsets; S++)
            if (total[j][S] < best)
                best = total[j][S];
        out[j] = best / (gpu->slices * (double)gpus);
    }
}

static double area_bound(const ms_workload *w, const ms_gpu_model *gpu, int gpus, bool with_destroy,
                         unsigned present)
{
    double b;
    area_bounds(w, gpu, gpus, 1, &with_destroy, &present, &b);
    return b;
}

double ms_bound_lbound_set(const ms_gpu_model *gpu, unsigned S, unsigned present,
                           double weight[MS_MAX_SLICES + 1])
{
    return set_terms(gpu, S, false, present, weight);
}

double ms_bound_lbound(const ms_workload *w, const ms_gpu_model *gpu, int gpus)
{
    return area_bound(w, gpu, gpus, false, 0);
}

double ms_bound_lbound_present(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                               unsigned present)
{
    return area_bound(w, gpu, gpus, false, present);
}

double ms_bound_lbound_paper(const ms_workload *w, const ms_gpu_model *gpu, int gpus)
{
    return area_bound(w, gpu, gpus, true, 0);
}

void ms_bound_lbound_both(const ms_workload *w, const ms_gpu_model *gpu, int gpus, unsigned present,
                          double *l_bound, double *l_bound_paper)
{
    const bool with_destroy[2] = {false, true};
    const unsigned pres[2] = {present, 0};
    double b[2];
    area_bounds(w, gpu, gpus, 2, with_destroy, pres, b);
    *l_bound = b[0];
    *l_bound_paper = b[1];
}
