/* far_place.c: FAR phase 2, Algorithm 1 of paper 000: list scheduling of one allocation on
 * the repartitioning tree(s), a min-heap of instances by end time and one reconfiguration
 * clock per GPU. */
#include <math.h>

#include "far_internal.h"

/* Heap entries are instance keys gpu * MS_MAX_TREE_NODES + node; ties on end time go to
 * the smaller tie value (lower GPU, then the node's rank: its preorder position, or the
 * right-branch-first one). */
typedef struct place_state {
    double *end;
    const int *tie;
    int *heap;
    int nh;
} place_state;

static bool key_less(const place_state *st, int a, int b)
{
    return st->end[a] < st->end[b] || (st->end[a] == st->end[b] && st->tie[a] < st->tie[b]);
}

static void push(place_state *st, int k)
{
    int i = st->nh++;
    while (i > 0) {
        int up = (i - 1) / 2;
        if (!key_less(st, k, st->heap[up]))
            break;
        st->heap[i] = st->heap[up];
        i = up;
    }
    st->heap[i] = k;
}

/* Replaces the top with k (k's end may have grown) and restores the heap. */
static void replace_top(place_state *st, int k)
{
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= st->nh)
            break;
        if (c + 1 < st->nh && key_less(st, st->heap[c + 1], st->heap[c]))
            c++;
        if (!key_less(st, st->heap[c], k))
            break;
        st->heap[i] = st->heap[c];
        i = c;
    }
    st->heap[i] = k;
}

static void pop(place_state *st)
{
    int last = st->heap[--st->nh];
    if (st->nh > 0)
        replace_top(st, last);
}

double far_place(far_search *s, double area, double cutoff)
{
    const far_tree *t = s->tree;
    enum { CAP = 64 * MS_MAX_TREE_NODES };
    double end_small[CAP], clock_small[64];
    int heap_small[CAP], tie[CAP];
    unsigned char used_small[CAP];
    int total = s->gpus * MS_MAX_TREE_NODES;
    /* Callers keep gpus small (the CLI caps it); larger counts would need heap buffers. */
    if (total > CAP)
        return INFINITY;
    for (int g = 0; g < s->gpus; g++)
        for (int v = 0; v < t->n; v++)
            tie[g * MS_MAX_TREE_NODES + v] = g * MS_MAX_TREE_NODES + t->rank[v];
    place_state st = {end_small, tie, heap_small, 0};
    int next[MS_MAX_SLICES + 1];
    for (int sz = 1; sz <= MS_MAX_SLICES; sz++)
        next[sz] = s->group[sz].head;
    for (int g = 0; g < s->gpus; g++) {
        clock_small[g] = 0;
        int k = g * MS_MAX_TREE_NODES;
        end_small[k] = 0;
        used_small[k] = 0;
        push(&st, k);
    }
    int remaining = s->n, placed = 0;
    double makespan = 0;
    /* Everything still to run starts at or after the heap's top time `now`: the open
     * instances' busy slice-seconds past now plus the unplaced area, spread over all slices,
     * bound the makespan from below. work = sum of size * end over the heap, cover = sum of
     * sizes; the margin keeps the running sums' rounding from cutting a winner. */
    double capacity = (double)s->gpu->slices * s->gpus, work = 0, cover = t->size[0] * s->gpus;
    double stop = cutoff * (1 + 1e-9) * capacity;
    while (st.nh > 0 && remaining > 0) {
        int k = st.heap[0], g = k / MS_MAX_TREE_NODES, v = k % MS_MAX_TREE_NODES;
        int size = t->size[v];
        double now = end_small[k];
        if (now * capacity + work - now * cover + area >= stop)
            return INFINITY;
        int z = size; /* the allocation size served: the node's own, or its extra size */
        const far_group *grp = &s->group[size];
        if (next[size] == grp->head + grp->n && t->extra[v]) {
            const far_group *gx = &s->group[t->extra[v]];
            if (next[t->extra[v]] < gx->head + gx->n &&
                far_search_time(s, gx->task[next[t->extra[v]]], size) < INFINITY)
                z = t->extra[v], grp = gx;
        }
        if (next[z] < grp->head + grp->n) {
            if (!used_small[k]) { /* lines 8-11: the instance's creation on the clock */
                clock_small[g] = fmax(clock_small[g], end_small[k]) + s->gpu->create_s[size];
                work += size * (clock_small[g] - end_small[k]);
                end_small[k] = clock_small[g];
                used_small[k] = 1;
            }
            int task = grp->task[next[z]++];
            double d = far_search_time(s, task, size);
            end_small[k] += d;
            work += size * d;
            area -= z == size ? size * d : z * far_search_time(s, task, z);
            if (end_small[k] >= cutoff)
                return INFINITY;
            if (end_small[k] > makespan)
                makespan = end_small[k];
            s->node_of[task] = k;
            s->order[placed++] = task;
            remaining--;
            replace_top(&st, k);
        } else { /* lines 17-24: repartition into the children */
            pop(&st);
            work -= size * end_small[k];
            cover -= size;
            if (used_small[k])
                clock_small[g] = fmax(clock_small[g], end_small[k]) + s->gpu->destroy_s[size];
            for (int c = v + 1; c < t->n; c++)
                if (t->parent[c] == v) {
                    int ck = g * MS_MAX_TREE_NODES + c;
                    end_small[ck] = end_small[k];
                    used_small[ck] = 0;
                    work += t->size[c] * end_small[k];
                    cover += t->size[c];
                    push(&st, ck);
                }
        }
    }
    return remaining == 0 ? makespan : INFINITY;
}
