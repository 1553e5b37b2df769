/* batch.c: the batch as task classes sorted by Num (paper 001 4.1) and its refill from the
 * queue (offline and online, section 3). */
#include <math.h>
#include <string.h>

#include "env_internal.h"

/* A task's time on the smallest size it runs on (tasks of a class have equal levels). */
static double smallest_size_time(const ms_env *e, int t)
{
    for (int k = 0; k < e->S; k++)
        if (isfinite(e->w->tasks[t].time[e->gpu.sizes[k]]))
            return e->w->tasks[t].time[e->gpu.sizes[k]];
    return 0;
}

/* Whether task t runs before task u of its class: the earliest (paper 001), or with
 * longest_first the longest (then the earliest), as longest-processing-time-first list
 * scheduling does, so a plan's order survives the rounding of times into levels. */
static bool runs_before(const ms_env *e, int t, int u)
{
    if (e->cfg.longest_first) {
        double tt = smallest_size_time(e, t), tu = smallest_size_time(e, u);
        if (tt != tu)
            return tt > tu;
    }
    return t < u;
}

void env_rebuild_classes(ms_env *e)
{
    e->nclass = 0;
    e->batch_sizes = 0;
    for (int b = 0; b < e->nbatch; b++) {
        int t = e->batch[b], j = 0;
        for (int k = 0; k < e->S; k++)
            if (e->level[t * e->S + k] <= e->cfg.levels)
                e->batch_sizes |= 1u << e->gpu.sizes[k];
        while (j < e->nclass && (e->cfg.task_classes || e->key[e->class_task[j]] != e->key[t]))
            j++;
        if (j == e->nclass) {
            e->class_task[j] = t;
            e->class_count[j] = 0;
            e->nclass++;
        } else if (runs_before(e, t, e->class_task[j])) {
            e->class_task[j] = t;
        }
        e->class_count[j]++;
    }
    /* Insertion sort by Num, descending (task classes of one Num as their tasks run). */
    for (int j = 1; j < e->nclass; j++) {
        int t = e->class_task[j], c = e->class_count[j], i = j;
        while (i > 0 && (e->key[e->class_task[i - 1]] < e->key[t] ||
                         (e->cfg.task_classes && e->key[e->class_task[i - 1]] == e->key[t] &&
                          runs_before(e, t, e->class_task[i - 1])))) {
            e->class_task[i] = e->class_task[i - 1];
            e->class_count[i] = e->class_count[i - 1];
            i--;
        }
        e->class_task[i] = t;
        e->class_count[i] = c;
    }
}

void env_refill(ms_env *e)
{
    int n = e->w->n;
    if (e->cfg.online || e->nbatch == 0)
        while (e->nbatch < e->cfg.n_batch && e->next_queued < n)
            e->batch[e->nbatch++] = e->next_queued++;
    env_rebuild_classes(e);
}
