/* far_tree.c: the execution-report view of paper 000 (section 3.4): each GPU's
 * repartitioning tree with the tasks that ran on every instance and their end times. */
#include <stdlib.h>

#include "migsched/offline.h"

static int node_of(const ms_gpu_model *m, const ms_sched_instance *in)
{
    for (int v = 0; v < m->tree.n; v++) {
        ms_placement at = m->tree.node[v].at;
        if (at.start == in->start_slot &&
            m->profiles[at.profile].slices == m->profiles[in->profile].slices)
            return v;
    }
    return -1;
}

static void print_instance(const ms_schedule *s, const ms_workload *w, int id, int depth, FILE *f)
{
    const ms_sched_instance *in = &s->inst[id];
    fprintf(f, "%*sNode(start=%d, size=%d, tasks=[", 2 * depth, "", in->start_slot,
            s->gpu.profiles[in->profile].slices);
    int k = 0;
    for (int t = 0; t < s->ntasks; t++)
        if (s->task[t].instance == id) {
            int i = s->task[t].index;
            fprintf(f, "%s%s", k++ ? ", " : "", w && i < w->n ? w->tasks[i].name : "?");
        }
    fprintf(f, "], ends=[");
    k = 0;
    for (int t = 0; t < s->ntasks; t++)
        if (s->task[t].instance == id)
            fprintf(f, "%s%.3f", k++ ? ", " : "", s->task[t].end);
    fprintf(f, "])\n");
}

/* A node is shown when it or a descendant holds an instance; an unused node as tasks=[]. */
static bool print_node(const ms_schedule *s, const ms_workload *w, int g, int v, int depth,
                       const int *node, bool dry, FILE *f)
{
    const ms_tree *t = &s->gpu.tree;
    bool any = false;
    for (int i = 0; i < s->ninst; i++)
        if (s->inst[i].gpu == g && node[i] == v) {
            any = true;
            if (!dry)
                print_instance(s, w, i, depth, f);
        }
    bool below = false;
    for (int c = 0; c < t->node[v].nchildren; c++)
        below |= print_node(s, w, g, t->node[v].children[c], depth + 1, node, true, f);
    if (dry || (!any && !below))
        return any || below;
    if (!any) {
        ms_placement at = t->node[v].at;
        fprintf(f, "%*sNode(start=%d, size=%d, tasks=[], ends=[])\n", 2 * depth, "", at.start,
                s->gpu.profiles[at.profile].slices);
    }
    for (int c = 0; c < t->node[v].nchildren; c++)
        print_node(s, w, g, t->node[v].children[c], depth + 1, node, false, f);
    return true;
}

void ms_far_tree_print(const ms_schedule *s, const ms_workload *w, FILE *f)
{
    int *node = malloc((size_t)(s->ninst > 0 ? s->ninst : 1) * sizeof *node);
    if (!node)
        return;
    for (int i = 0; i < s->ninst; i++)
        node[i] = node_of(&s->gpu, &s->inst[i]);
    for (int g = 0; g < s->gpus; g++) {
        fprintf(f, "GPU %d (%s):\n", g, s->gpu.name);
        if (s->gpu.tree.n > 0)
            print_node(s, w, g, 0, 1, node, false, f);
        for (int i = 0; i < s->ninst; i++)
            if (s->inst[i].gpu == g && node[i] < 0) { /* not on the tree (another scheduler) */
                fprintf(f, "  off-tree ");
                print_instance(s, w, i, 0, f);
            }
    }
    free(node);
}
