/* search_plan.c: a schedule as a FAR plan, the form the search improves: each instance a
 * node of the repartitioning tree, its tasks in the schedule's order. Below the starting
 * schedules (search_seed.c), which run the learned scheduler (rl.c) that uses it too. */
#include <stdlib.h>

#include "search_internal.h"

static int tree_node_at(const ms_gpu_model *gpu, int profile, int start_slot)
{
    for (int v = 0; v < gpu->tree.n; v++)
        if (gpu->tree.node[v].at.profile == profile && gpu->tree.node[v].at.start == start_slot)
            return v;
    return -1;
}

bool search_plan_from_schedule(far_plan *p, const ms_schedule *s)
{
    int keys = p->gpus * p->tree.n;
    int *node = malloc((size_t)(s->ninst > 0 ? s->ninst : 1) * sizeof *node);
    int *first = calloc((size_t)keys + 1, sizeof *first);
    int *seq = malloc((size_t)(s->ntasks > 0 ? s->ntasks : 1) * sizeof *seq);
    bool ok = node && first && seq;
    for (int i = 0; i < s->ninst && ok; i++)
        ok = (node[i] = tree_node_at(p->gpu, s->inst[i].profile, s->inst[i].start_slot)) >= 0 &&
             s->inst[i].gpu < p->gpus;
    /* Each key's tasks in schedule order (a counting sort), then inserted as one sequence. */
    for (int k = 0; k < s->ntasks && ok; k++) {
        const ms_sched_task *t = &s->task[k];
        first[s->inst[t->instance].gpu * p->tree.n + node[t->instance] + 1]++;
    }
    for (int k = 0; k < keys && ok; k++)
        first[k + 1] += first[k];
    for (int k = 0; k < s->ntasks && ok; k++) {
        const ms_sched_task *t = &s->task[k];
        seq[first[s->inst[t->instance].gpu * p->tree.n + node[t->instance]]++] = t->index;
    }
    for (int k = keys - 1; k >= 0 && ok; k--) /* back to each key's first position */
        first[k + 1] = first[k];
    if (ok)
        first[0] = 0;
    for (int k = 0; k < keys && ok; k++)
        ok = !far_list_insert_seq(p, &p->list[k], k % p->tree.n, seq + first[k],
                                  first[k + 1] - first[k]);
    free(node);
    free(first);
    free(seq);
    if (!ok)
        for (int k = 0; k < keys; k++) {
            p->list[k].n = 0;
            p->list[k].sum = 0;
        }
    return ok;
}
