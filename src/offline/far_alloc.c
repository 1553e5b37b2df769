/* far_alloc.c: FAR phase 1 (paper 000 3.1, after Turek et al.): the family of allocations,
 * walked one step at a time (each step changes one task), with every allocation whose
 * simple lower bound cannot beat the best makespan so far skipped before Algorithm 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "far_internal.h"

far_search *far_search_new(void) { return calloc(1, sizeof(far_search)); }

void far_search_free(far_search *s)
{
    if (!s)
        return;
    free(s->alloc);
    free(s->heap);
    free(s->node_of);
    free(s->best_node_of);
    free(s->order);
    free(s->best_order);
    free(s->pos);
    free(s->lpt);
    free(s->lpt_tmp);
    for (int z = 0; z <= MS_MAX_SLICES; z++) {
        free(s->group[z].task);
        free(s->group[z].time);
        free(s->group[z].up);
    }
    far_trace_free(&s->trace);
    free(s);
}

static int reserve(far_search *s, int n)
{
    if (n <= s->cap)
        return MS_OK;
    int cap = s->cap ? s->cap : 64;
    while (cap < n)
        cap *= 2;
#define GROW(p, k)                                        \
    do {                                                  \
        void *q_ = realloc(p, (size_t)(k) * sizeof *(p)); \
        if (!q_)                                          \
            return MS_ENOMEM;                             \
        p = q_;                                           \
    } while (0)
    GROW(s->alloc, cap);
    GROW(s->heap, cap);
    GROW(s->node_of, cap);
    GROW(s->best_node_of, cap);
    GROW(s->order, cap);
    GROW(s->best_order, cap);
    GROW(s->pos, cap);
    GROW(s->lpt, cap);
    GROW(s->lpt_tmp, cap);
    for (int z = 0; z <= MS_MAX_SLICES; z++) { /* room on both sides of a group: regroup */
        GROW(s->group[z].task, FAR_GROUP_CAP(cap));
        GROW(s->group[z].time, FAR_GROUP_CAP(cap));
        GROW(s->group[z].up, FAR_GROUP_CAP(cap));
    }
#undef GROW
    s->cap = cap;
    return MS_OK;
}

/* The smallest size above `above` minimising s * t(s) over finite times and sizes the tree
 * has (equal areas: the smaller size); 0 if there is none. */
static int min_area_size(const far_search *s, int i, int above)
{
    int best = 0;
    double area = INFINITY;
    for (int k = 0; k < s->gpu->nsizes; k++) {
        int z = s->gpu->sizes[k];
        double t = far_search_time(s, i, z);
        if (z <= above || !s->tree->has_size[z] || !(t < INFINITY))
            continue;
        if (z * t < area) {
            area = z * t;
            best = z;
        }
    }
    return best;
}

/* Longest first; equal times: smaller input index first (also the LPT order in groups). */
static bool longer(const far_search *s, int a, int sa, int b, int sb)
{
    double ta = far_search_time(s, a, sa), tb = far_search_time(s, b, sb);
    return ta > tb || (ta == tb && a < b);
}

static bool heap_above(const far_search *s, int a, int b)
{
    return longer(s, a, s->alloc[a], b, s->alloc[b]);
}

static void heap_set(far_search *s, int i, int task)
{
    s->heap[i] = task;
    s->pos[task] = i;
}

static void sift_down(far_search *s, int i)
{
    int task = s->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= s->n)
            break;
        if (c + 1 < s->n && heap_above(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!heap_above(s, s->heap[c], task))
            break;
        heap_set(s, i, s->heap[c]);
        i = c;
    }
    heap_set(s, i, task);
}

static void sift_up(far_search *s, int i)
{
    int task = s->heap[i];
    while (i > 0 && heap_above(s, task, s->heap[(i - 1) / 2])) {
        heap_set(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(s, i, task);
}

/* Group z (from its start, in input order) in LPT order, with its times: (time, task)
 * pairs sorted side by side, not through the workload's scattered tasks (a million-task
 * group's sort was a cache miss per comparison); the stable sort keeps equal times in
 * input order, which is `longer`'s tie rule. */
static void sort_group(far_search *s, int z)
{
    far_group *g = &s->group[z];
    for (int k = 0; k < g->n; k++)
        s->lpt[k] = (far_lpt_entry){far_search_time(s, g->task[k], z), g->task[k]};
    far_sort_lpt(s->lpt, s->lpt_tmp, g->n);
    g->sum = 0;
    int up = s->tree->runs_on[z];
    for (int k = 0; k < g->n; k++) {
        g->task[k] = s->lpt[k].task;
        g->time[k] = s->lpt[k].time;
        g->sum += g->time[k];
        if (up)
            g->up[k] = far_search_time(s, g->task[k], up);
    }
}

/* First allocation (a_i^1), the LPT groups and the heap of the longest tasks. */
static int first_allocation(far_search *s, double *area, ms_error *err)
{
    s->trace.events = 0; /* groups rebuilt: no run to compare with */
    for (int z = 0; z <= MS_MAX_SLICES; z++)
        s->group[z].head = s->group[z].n = 0;
    *area = 0;
    for (int i = 0; i < s->n; i++) {
        int z = min_area_size(s, i, 0);
        if (!z)
            return ms_error_set(err, MS_EINFEASIBLE,
                                "task %d (%s) cannot run on any instance size of %s", s->first + i,
                                s->w->tasks[s->first + i].name, s->gpu->name);
        s->alloc[i] = (unsigned char)z;
        far_group *g = &s->group[z];
        g->task[g->n++] = i;
        *area += z * far_search_time(s, i, z);
        heap_set(s, i, i);
    }
    for (int z = 1; z <= MS_MAX_SLICES; z++)
        sort_group(s, z);
    for (int i = s->n / 2 - 1; i >= 0; i--)
        sift_down(s, i);
    return MS_OK;
}

/* Shifts the live entries [head, head + n) of g to start at `head` (same order). */
static void group_move(far_group *g, int head, bool up)
{
    memmove(g->task + head, g->task + g->head, (size_t)g->n * sizeof *g->task);
    memmove(g->time + head, g->time + g->head, (size_t)g->n * sizeof *g->time);
    if (up)
        memmove(g->up + head, g->up + g->head, (size_t)g->n * sizeof *g->up);
    g->head = head;
}

/* Opens position lo of g (relative to its head) by shifting the shorter side of it by one,
 * into the room on that side; without room there the group is first centred in its
 * FAR_GROUP_CAP(cap) array, which leaves at least cap / 2 free slots on each side. The
 * entries keep their order, so the group is the same sequence as with an insertion that
 * shifts the tail (that shift was O(n) per family step; the moved task, the longest of its
 * old group, tends to land near the front of its new one). */
static void group_open(far_group *g, int lo, int cap, bool up)
{
    bool front = lo < g->n - lo;
    if (front ? g->head == 0 : g->head + g->n == FAR_GROUP_CAP(cap))
        group_move(g, (FAR_GROUP_CAP(cap) - g->n) / 2, up);
    if (front) {
        g->head--;
        memmove(g->task + g->head, g->task + g->head + 1, (size_t)lo * sizeof *g->task);
        memmove(g->time + g->head, g->time + g->head + 1, (size_t)lo * sizeof *g->time);
        if (up)
            memmove(g->up + g->head, g->up + g->head + 1, (size_t)lo * sizeof *g->up);
    } else {
        int at = g->head + lo, k = g->n - lo;
        memmove(g->task + at + 1, g->task + at, (size_t)k * sizeof *g->task);
        memmove(g->time + at + 1, g->time + at, (size_t)k * sizeof *g->time);
        if (up)
            memmove(g->up + at + 1, g->up + at, (size_t)k * sizeof *g->up);
    }
    g->n++;
}

/* Moves task i (the front of its group) to the group of size z, in LPT position. */
static void regroup(far_search *s, int i, int z)
{
    far_group *from = &s->group[s->alloc[i]], *to = &s->group[z];
    from->sum -= from->time[from->head];
    from->head++;
    from->n--;
    far_trace_changed(&s->trace, s->alloc[i], 0);
    const int *a = to->task + to->head;
    const double *at = to->time + to->head;
    double ti = far_search_time(s, i, z);
    int lo = 0, hi = to->n;
    while (lo < hi) { /* `longer` on the group's own times */
        int mid = (lo + hi) / 2;
        if (at[mid] > ti || (at[mid] == ti && a[mid] < i))
            lo = mid + 1;
        else
            hi = mid;
    }
    int up = s->tree->runs_on[z];
    group_open(to, lo, s->cap, up != 0);
    int k = to->head + lo;
    to->task[k] = i;
    to->time[k] = ti;
    if (up)
        to->up[k] = far_search_time(s, i, up);
    to->sum += ti;
    far_trace_changed(&s->trace, z, lo);
}

/* Every task on the whole GPU, one after another on the roots (LPT over the GPUs); false
 * when a task cannot run there. */
static bool whole_gpu_allocation(far_search *s, double *area)
{
    int z = s->gpu->slices;
    if (!s->tree->has_size[z])
        return false;
    for (int i = 0; i < s->n; i++)
        if (!(far_search_time(s, i, z) < INFINITY))
            return false;
    for (int sz = 0; sz <= MS_MAX_SLICES; sz++)
        s->group[sz].head = s->group[sz].n = 0;
    s->trace.events = 0;
    *area = 0;
    for (int i = 0; i < s->n; i++) {
        s->alloc[i] = (unsigned char)z;
        s->group[z].task[s->group[z].n++] = i;
        *area += z * far_search_time(s, i, z);
    }
    sort_group(s, z);
    return true;
}

static void keep_best(far_search *s)
{
    int *t = s->best_node_of;
    s->best_node_of = s->node_of, s->node_of = t;
    t = s->best_order;
    s->best_order = s->order, s->order = t;
}

double far_whole_gpu_bound(const far_plan *p, int first, int n)
{
    int z = p->gpu->slices;
    double sum = 0, longest = 0;
    for (int i = first; i < first + n; i++) {
        double t = p->w->tasks[i].time[z];
        sum += t;
        longest = fmax(longest, t);
    }
    return p->tree.has_size[z] ? fmax(longest, sum / p->gpus) : INFINITY;
}

/* Algorithm 1 on the whole-GPU allocation alone. */
static int whole_gpu_search(far_search *s, ms_error *err)
{
    double area;
    if (!whole_gpu_allocation(s, &area))
        return ms_error_set(err, MS_EINFEASIBLE, "a task cannot run on the whole %s", s->gpu->name);
    far_place(s, area, INFINITY);
    keep_best(s);
    return MS_OK;
}

/* Paper 000's family: returns the best makespan, or INFINITY with err filled. */
static double family_search(far_search *s, const far_plan *p, int *allocations, int *evaluated,
                            ms_error *err)
{
    double area;
    if (first_allocation(s, &area, err))
        return INFINITY;
    double capacity = (double)p->gpu->slices * p->gpus, best = INFINITY;
    *allocations = 1, *evaluated = 0;
    for (;;) {
        int top = s->heap[0], up = s->tree->runs_on[s->alloc[top]];
        double hmax = far_search_time(s, top, s->alloc[top]);
        /* A task a larger node also runs may take that node's (shorter) time; a task of
         * allocated size z has z * t(z) <= that node's area along the family, so the area
         * bound holds as it is. */
        double hlow = up ? fmin(hmax, far_search_time(s, top, up)) : hmax;
        if (area / capacity >= best)
            break; /* areas only grow along the family: nothing later can win */
        if (fmax(hlow, area / capacity) < best) {
            ++*evaluated;
            /* Most steps change groups the previous run gave up before reaching. */
            double ms = far_place_gives_up(s, area, best) ? INFINITY : far_place(s, area, best);
            if (ms < best) {
                best = ms;
                keep_best(s);
            }
        }
        int z = min_area_size(s, top, s->alloc[top]);
        if (!z)
            break; /* the longest task cannot grow: last allocation of the family */
        area += z * far_search_time(s, top, z) - s->alloc[top] * hmax;
        regroup(s, top, z);
        s->alloc[top] = (unsigned char)z;
        sift_down(s, 0);
        sift_up(s, s->pos[top]);
        ++*allocations;
    }
    if (!(best < INFINITY))
        ms_error_set(err, MS_EINFEASIBLE, "FAR found no schedule for %d tasks on %s", s->n,
                     p->gpu->name);
    return best;
}

typedef struct node_ctx {
    const far_plan *p;
    int node;
} node_ctx;

static int cmp_at_node(const void *a, const void *b, void *arg)
{
    const node_ctx *c = arg;
    int x = *(const int *)a, y = *(const int *)b;
    double tx = far_time(c->p, x, c->node), ty = far_time(c->p, y, c->node);
    return tx > ty ? -1 : tx < ty ? 1 : (x > y) - (x < y);
}

/* A node that also ran a smaller size's tasks (four_runs_three) got them in that size's
 * LPT order; its list is put back in decreasing time at its own size, as refinement needs
 * (the instance's end does not change). */
static void sort_mixed_lists(far_plan *p, int b)
{
    for (int g = 0; g < p->gpus; g++)
        for (int v = 0; v < p->tree.n; v++)
            if (p->tree.extra[v]) {
                far_list *l = far_plan_list(p, b, g, v);
                if (l->n < 2)
                    continue; /* an empty list may have no array yet */
                node_ctx c = {p, v};
                qsort_r(l->task, (size_t)l->n, sizeof *l->task, cmp_at_node, &c);
            }
}

int far_search_run(far_search *s, far_plan *p, int b, int first, int n, bool whole_gpu,
                   int *allocations, int *evaluated, ms_error *err)
{
    if (reserve(s, n))
        return ms_error_set(err, MS_ENOMEM, "out of memory for %d tasks", n);
    s->w = p->w, s->tree = &p->tree, s->gpu = p->gpu, s->gpus = p->gpus;
    s->first = first, s->n = n;
    *allocations = *evaluated = 1;
    if (whole_gpu) {
        int rc = whole_gpu_search(s, err);
        if (rc)
            return rc;
    } else if (!(family_search(s, p, allocations, evaluated, err) < INFINITY)) {
        return err ? err->code : MS_EINFEASIBLE;
    }
    for (int k = 0; k < n; k++) {
        int task = s->best_order[k], key = s->best_node_of[k];
        int g = key / MS_MAX_TREE_NODES, v = key % MS_MAX_TREE_NODES;
        far_list *l = far_plan_list(p, b, g, v);
        if (far_list_push(l, first + task, far_time(p, first + task, v)))
            return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    sort_mixed_lists(p, b);
    return MS_OK;
}
