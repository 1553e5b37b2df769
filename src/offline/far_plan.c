/* far_plan.c: FAR's plan: the flattened repartitioning tree and per-node task lists. */
#include <stdlib.h>
#include <string.h>

#include "far_internal.h"

void far_tree_init(far_tree *t, const ms_gpu_model *gpu)
{
    memset(t, 0, sizeof *t);
    t->n = gpu->tree.n;
    for (int v = 0; v < t->n; v++) {
        const ms_tree_node *nd = &gpu->tree.node[v];
        t->size[v] = gpu->profiles[nd->at.profile].slices;
        t->parent[v] = nd->parent;
        t->depth[v] = nd->parent < 0 ? 0 : t->depth[nd->parent] + 1; /* preorder: parent first */
        if (t->depth[v] > t->maxdepth)
            t->maxdepth = t->depth[v];
        t->slots[v] = ms_gpu_slot_mask(gpu, nd->at);
        t->has_size[t->size[v]] = true;
        t->rank[v] = v;
    }
    int k[2] = {0, 0};
    for (int d = 0; d <= t->maxdepth; d++)
        for (int v = 0; v < t->n; v++) {
            if (t->depth[v] == d)
                t->order[0][k[0]++] = v;
            if (t->depth[v] == t->maxdepth - d)
                t->order[1][k[1]++] = v;
        }
}

/* Right branch first: the preorder with each node's children visited last to first. */
static int rank_right_first(far_tree *t, const ms_tree *tree, int v, int next)
{
    t->rank[v] = next++;
    for (int c = tree->node[v].nchildren - 1; c >= 0; c--)
        next = rank_right_first(t, tree, tree->node[v].children[c], next);
    return next;
}

void far_plan_set_rules(far_plan *p, const ms_offline_options *opt)
{
    far_tree *t = &p->tree;
    for (int v = 0; v < t->n; v++) {
        t->rank[v] = v;
        t->extra[v] = 0;
    }
    memset(t->runs_on, 0, sizeof t->runs_on);
    if (opt->far.tie_right_first && t->n > 0)
        rank_right_first(t, &p->gpu->tree, 0, 0);
    if (!opt->far.four_runs_three)
        return;
    /* A node whose child holds the same slots with fewer slices (4g@0 and 3g@0 on
     * A100-class models) runs that child's size too before it is split. */
    for (int c = 0; c < t->n; c++) {
        int v = t->parent[c];
        if (v >= 0 && t->slots[c] == t->slots[v] && t->size[c] < t->size[v]) {
            t->extra[v] = t->size[c];
            t->runs_on[t->size[c]] = t->size[v];
        }
    }
}

int far_plan_init(far_plan *p, const ms_workload *w, const ms_gpu_model *gpu, int gpus, int batches)
{
    memset(p, 0, sizeof *p);
    p->w = w;
    p->gpu = gpu;
    p->gpus = gpus;
    p->batches = batches;
    far_tree_init(&p->tree, gpu);
    p->list = calloc((size_t)batches * gpus * p->tree.n, sizeof *p->list);
    p->reversed = calloc((size_t)batches, sizeof *p->reversed);
    if (!p->list || !p->reversed) {
        far_plan_free(p);
        return MS_ENOMEM;
    }
    return MS_OK;
}

void far_plan_free(far_plan *p)
{
    if (p->list)
        for (size_t i = 0; i < (size_t)p->batches * p->gpus * p->tree.n; i++)
            free(p->list[i].task);
    free(p->list);
    free(p->reversed);
    memset(p, 0, sizeof *p);
}

static int list_reserve(far_list *l, int n)
{
    if (n <= l->cap)
        return MS_OK;
    int cap = l->cap ? l->cap : 8;
    while (cap < n)
        cap *= 2;
    int *t = realloc(l->task, (size_t)cap * sizeof *t);
    if (!t)
        return MS_ENOMEM;
    l->task = t;
    l->cap = cap;
    return MS_OK;
}

int far_list_push(far_list *l, int task, double time)
{
    if (list_reserve(l, l->n + 1))
        return MS_ENOMEM;
    l->task[l->n++] = task;
    l->sum += time;
    return MS_OK;
}

int far_list_bound(const far_plan *p, const far_list *l, int node, double t, bool at_most, int lo)
{
    int hi = l->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        double x = far_time(p, l->task[mid], node);
        if (at_most ? x > t : x >= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int far_list_insert_sorted(far_plan *p, far_list *l, int node, int task)
{
    if (list_reserve(l, l->n + 1))
        return MS_ENOMEM;
    double t = far_time(p, task, node);
    int lo = far_list_bound(p, l, node, t, false, 0);
    memmove(l->task + lo + 1, l->task + lo, (size_t)(l->n - lo) * sizeof *l->task);
    l->task[lo] = task;
    l->n++;
    l->sum += t;
    return MS_OK;
}

int far_list_insert_seq(far_plan *p, far_list *l, int node, const int *seq, int k)
{
    if (k <= 0)
        return MS_OK;
    far_lpt_entry *e = malloc(2 * (size_t)k * sizeof *e); /* entries, then the sort's scratch */
    int *merged = malloc((size_t)(l->n + k) * sizeof *merged);
    if (!e || !merged || list_reserve(l, l->n + k)) {
        free(e);
        free(merged);
        return MS_ENOMEM;
    }
    for (int i = 0; i < k; i++)
        e[i] = (far_lpt_entry){far_time(p, seq[i], node), i}; /* .task: place in seq */
    far_sort_lpt(e, e + k, k);                                /* decreasing time, then seq order */
    int i = 0, j = 0, m = 0; /* equal times: the list's own tasks first */
    while (i < l->n || j < k) {
        if (j == k || (i < l->n && far_time(p, l->task[i], node) >= e[j].time))
            merged[m++] = l->task[i++];
        else
            merged[m++] = seq[e[j++].task];
    }
    memcpy(l->task, merged, (size_t)m * sizeof *merged);
    l->n = m;
    for (i = 0; i < k; i++) /* the running sum gets the same additions in the same order */
        l->sum += far_time(p, seq[i], node);
    free(e);
    free(merged);
    return MS_OK;
}

int far_list_find(const far_plan *p, const far_list *l, int node, int task)
{
    int lo = far_list_bound(p, l, node, far_time(p, task, node), true, 0);
    while (lo < l->n && l->task[lo] != task) /* among the equal times */
        lo++;
    return lo < l->n ? lo : -1;
}

void far_list_remove_at(far_plan *p, far_list *l, int node, int pos)
{
    l->sum -= far_time(p, l->task[pos], node);
    memmove(l->task + pos, l->task + pos + 1, (size_t)(l->n - pos - 1) * sizeof *l->task);
    l->n--;
    if (l->n == 0)
        l->sum = 0; /* no drift left behind by repeated += / -= */
}

int far_plan_copy_batch(far_plan *dst, int db, const far_plan *src, int sb)
{
    size_t per = (size_t)src->gpus * src->tree.n;
    for (size_t i = 0; i < per; i++) {
        far_list *d = &dst->list[db * per + i];
        const far_list *s = &src->list[sb * per + i];
        if (list_reserve(d, s->n))
            return MS_ENOMEM;
        if (s->n > 0)
            memcpy(d->task, s->task, (size_t)s->n * sizeof *s->task);
        d->n = s->n;
        d->sum = s->sum;
    }
    return MS_OK;
}

int far_plan_put_batch(far_plan *p, int b, int first, far_plan *one)
{
    for (int g = 0; g < p->gpus; g++)
        for (int v = 0; v < p->tree.n; v++) {
            const far_list *l = far_plan_list(one, 0, g, v);
            for (int k = 0; k < l->n; k++)
                if (far_list_push(far_plan_list(p, b, g, v), first + l->task[k],
                                  far_time(one, l->task[k], v)))
                    return MS_ENOMEM;
        }
    p->reversed[b] = one->reversed[0];
    return MS_OK;
}
