/* far_place.c: FAR phase 2, Algorithm 1 of paper 000: list scheduling of one allocation on
 * the repartitioning tree(s), a min-heap of instances by end time and one reconfiguration
 * clock per GPU.
 *
 * INVARIANTS, at the top of every iteration of far_place's loop (an instance is a key
 * k = g * MS_MAX_TREE_NODES + v: node v of the tree on GPU g):
 *
 *   1. st.heap[0 .. st.nh) is a binary min-heap of the alive instances by (end_small,
 *      tie); tie values are distinct, so the order is total. On each GPU no alive node is
 *      an ancestor of another: each GPU starts with its root, and a split replaces the top
 *      by its children.
 *   2. end_small[k] of an alive instance is when it is free next: the end of its last
 *      task, or, while it has run none (used_small[k] == 0: not yet created), the time its
 *      parent split (0 for a root).
 *   3. now = end_small[st.heap[0]] never decreases from one iteration to the next (a
 *      placement raises the top's end, a split hands it to the children), so whatever is
 *      still to run starts at or after now.
 *   4. cover = the sum of the alive nodes' sizes (exact: small integers), work = the sum of
 *      size * end_small over them (up to rounding), so bound = now * capacity + work -
 *      now * cover + area is capacity times a lower bound on the makespan.
 *   5. next[z] lies in [group[z].head, head + n]: group z's tasks before it are placed, in
 *      the group's (LPT) order; rem[z] = the total time of the others (up to rounding);
 *      area = the caller's area less z * time of every task placed from group z.
 *   6. clock_small[g] is when GPU g's creations and destructions so far end: they run one
 *      at a time, each once the instance it concerns is free.
 *   7. placed + remaining = s->n; s->order[0 .. placed) are the placed tasks in placement
 *      order and s->node_of their instances; makespan (0 before any) and max_end
 *      (-INFINITY before any) are the latest end among them.
 *   8. tr->bound[0 .. tr->events) does not decrease (each entry is the max with the one
 *      before); tr->end[i] is max_end after iteration i.
 *
 * Debug builds (MIGSCHED_DEBUG_CHECKS) check 1's heap order, 3, 4 and 7's count on every
 * iteration. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void far_trace_free(far_trace *t)
{
    free(t->bound);
    free(t->end);
    for (int z = 0; z <= MS_MAX_SLICES; z++)
        free(t->look[z]);
    memset(t, 0, sizeof *t);
}

void far_trace_changed(far_trace *t, int size, int position)
{
    if (position < t->changed[size])
        t->changed[size] = position;
}

/* Room for `events` iterations; false (and no trace) when memory runs out. */
static bool trace_reserve(far_trace *t, int events)
{
    t->events = 0;
    for (int z = 0; z <= MS_MAX_SLICES; z++) {
        t->nlook[z] = 0;
        t->changed[z] = INT_MAX;
        t->coef[z] = t->rise[z] = 0;
    }
    if (events <= t->cap)
        return true;
    double *b = realloc(t->bound, (size_t)events * sizeof *b);
    if (b)
        t->bound = b;
    double *e = realloc(t->end, (size_t)events * sizeof *e);
    if (e)
        t->end = e;
    if (!b || !e)
        return false;
    t->cap = events;
    return true;
}

/* Iteration `ev` looks at position r of group z (positions are looked at in order). */
static bool trace_look(far_trace *t, int z, int r, int ev)
{
    if (r < t->nlook[z])
        return true;
    if (t->nlook[z] == t->lookcap[z]) {
        int cap = t->lookcap[z] ? 2 * t->lookcap[z] : 64;
        int *l = realloc(t->look[z], (size_t)cap * sizeof *l);
        if (!l)
            return false;
        t->look[z] = l;
        t->lookcap[z] = cap;
    }
    t->look[z][t->nlook[z]++] = ev;
    return true;
}

/* Two runs of Algorithm 1 whose groups agree below the changed positions take the same
 * steps until the first iteration that looks at a changed position: up to that iteration
 * the bound differs only by the total area and, in the idle-ahead terms, by coef times a
 * fall of a group's total time or rise times a rise (a term is never below 0, so it loses
 * at most that), and the task ends are the same. */
bool far_place_gives_up(const far_search *s, double area, double cutoff)
{
    const far_trace *t = &s->trace;
    if (t->events == 0)
        return false;
    int d = t->events - 1;
    bool same_step = true; /* iteration d also places the same task */
    for (int z = 1; z <= MS_MAX_SLICES; z++)
        if (t->changed[z] < t->nlook[z] && t->look[z][t->changed[z]] <= d) {
            d = t->look[z][t->changed[z]];
            same_step = false;
        }
    double capacity = (double)s->gpu->slices * s->gpus, drop = 0;
    for (int z = 1; z <= MS_MAX_SLICES; z++)
        if (t->coef[z] > 0 || t->rise[z] > 0)
            drop += t->coef[z] * fmin(0, s->group[z].sum - t->sum0[z]) -
                    t->rise[z] * fmax(0, s->group[z].sum - t->sum0[z]);
    if (t->bound[d] + drop + area >= cutoff * (1 + 1e-9) * capacity)
        return true;
    double end = same_step ? t->end[d] : d > 0 ? t->end[d - 1] : -INFINITY;
    return end >= cutoff;
}

#ifdef MIGSCHED_DEBUG_CHECKS
/* Invariants 1 (heap order), 3, 4 and 7 (the count); *last_now: the previous top time. */
static void check_place(const place_state *st, const far_tree *t, double work, double cover,
                        int placed, int remaining, int n, double *last_now)
{
    double sizes = 0, sum = 0, scale = 1;
    for (int i = 0; i < st->nh; i++) {
        int k = st->heap[i], size = t->size[k % MS_MAX_TREE_NODES];
        if (i > 0 && key_less(st, k, st->heap[(i - 1) / 2]))
            ms_invariant_failed("far_place", "heap entry %d is before its parent", i);
        sizes += size;
        sum += size * st->end[k];
        scale += fabs(size * st->end[k]);
    }
    if (sizes != cover || fabs(sum - work) > 1e-6 * scale)
        ms_invariant_failed("far_place", "cover %g and work %g, the heap holds %g and %g", cover,
                            work, sizes, sum);
    if (st->nh > 0 && st->end[st->heap[0]] < *last_now)
        ms_invariant_failed("far_place", "the top time went back from %g to %g", *last_now,
                            st->end[st->heap[0]]);
    if (placed + remaining != n)
        ms_invariant_failed("far_place", "%d placed and %d remaining of %d tasks", placed,
                            remaining, n);
    if (st->nh > 0)
        *last_now = st->end[st->heap[0]];
}
#endif

/* Slices a node holds idle while it is alive: a 3-slice instance on slots 0-3 of an A100
 * leaves slice 3 unused until it splits into two 2-slice ones. foot(v) = the most slices
 * v's slots can hold, max(size, sum of the children's foot); idle = foot - size. Alive
 * nodes form an antichain of the tree, whose feet add up to at most foot(root), so the
 * idle slices of alive nodes are free slices no alive instance uses, as long as
 * foot(root) <= slices (otherwise no node counts as idle). */
static void idle_slices(const far_tree *t, int slices, int *idle)
{
    int foot[MS_MAX_TREE_NODES] = {0};
    for (int v = t->n - 1; v >= 0; v--) { /* preorder ids: children come after parents */
        if (foot[v] < t->size[v])
            foot[v] = t->size[v];
        idle[v] = foot[v] - t->size[v];
        if (v > 0)
            foot[t->parent[v]] += foot[v];
    }
    if (foot[0] > slices)
        memset(idle, 0, sizeof(int) * (size_t)t->n);
}

/* Lower bound on the time T at which a node of size `size` splits (or the makespan, if
 * it never does), given that group `size` still holds tasks of total time `rem`, the longest
 * `tmax`, at top time `now`. Such a node splits only when it is the top and its group is
 * empty (no larger node runs this size: the caller checks runs_on), so every task left in
 * the group is placed on one of the `m` nodes of this size at an iteration whose top time
 * is <= T, and starts by T + D (D = every creation and destruction of a GPU's tree: the
 * clock is at most that far ahead of the top), so it ends by T + D + tmax; each node j
 * takes its share after max(now, end_j). Hence rem <= m (T + D + tmax - now) - sum over
 * the alive nodes of this size of (end_j - now). `slack`: the idle slices of those. */
static double split_time(const place_state *st, const far_tree *t, const int *idle, int size, int m,
                         double D, double now, double rem, double tmax, int *slack)
{
    double late = 0;
    *slack = 0;
    for (int h = 0; h < st->nh; h++) {
        int v = st->heap[h] % MS_MAX_TREE_NODES;
        if (t->size[v] == size) {
            late += st->end[st->heap[h]] - now;
            *slack += idle[v];
        }
    }
    return now + (rem + late) / m - D - tmax;
}

/* Time at `size` of position pos of group gz, which a node of that size also runs: read
 * beside the group (no cache miss into the workload) unless another size is the one
 * recorded there (a custom model with two such nodes). */
static double up_time(const far_search *s, int gz, int pos, int size)
{
    const far_group *g = &s->group[gz];
    return s->tree->runs_on[gz] == size ? g->up[pos] : far_search_time(s, g->task[pos], size);
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
    far_trace *tr = &s->trace;
    bool rec = trace_reserve(tr, s->n + total + 2);
    if (total > CAP)
        return INFINITY;
    for (int g = 0; g < s->gpus; g++)
        for (int v = 0; v < t->n; v++)
            tie[g * MS_MAX_TREE_NODES + v] = g * MS_MAX_TREE_NODES + t->rank[v];
    place_state st = {end_small, tie, heap_small, 0};
    int next[MS_MAX_SLICES + 1], count[MS_MAX_SLICES + 1] = {0}, idle[MS_MAX_TREE_NODES];
    double rem[MS_MAX_SLICES + 1], D = 0;
    for (int sz = 1; sz <= MS_MAX_SLICES; sz++) {
        next[sz] = s->group[sz].head;
        rem[sz] = tr->sum0[sz] = s->group[sz].sum;
    }
    idle_slices(t, s->gpu->slices, idle);
    bool kid[MS_MAX_TREE_NODES] = {false}; /* some child has idle slices */
    for (int v = 1; v < t->n; v++)
        kid[t->parent[v]] |= idle[v] > 0;
    for (int v = 0; v < t->n; v++) {
        count[t->size[v]] += s->gpus;
        D += s->gpu->create_s[t->size[v]] + s->gpu->destroy_s[t->size[v]];
    }
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
    double stop = cutoff * (1 + 1e-9) * capacity, total_area = area, max_end = -INFINITY;
    double carry = -INFINITY; /* max of the earlier iterations' idle-ahead bounds, less
                                 total_area: recorded one iteration late, as they read the
                                 group position their iteration looks at */
#ifdef MIGSCHED_DEBUG_CHECKS
    double last_now = -INFINITY;
#endif
    for (int ev = 0; st.nh > 0 && remaining > 0; ev++) {
#ifdef MIGSCHED_DEBUG_CHECKS
        check_place(&st, t, work, cover, placed, remaining, s->n, &last_now);
#endif
        int k = st.heap[0], g = k / MS_MAX_TREE_NODES, v = k % MS_MAX_TREE_NODES;
        int size = t->size[v];
        double now = end_small[k];
        double bound = now * capacity + work - now * cover + area, ahead = 0;
        const far_group *grp = &s->group[size];
        /* Idle slices ahead (the margin covers the rounding of the running sums behind rem):
         * those of the alive nodes of the top's size, idle until they split, when the top
         * is one of them; else those of the top's children, alive from the top's split, by
         * now + D + rem[size] at the latest (it runs at most its whole group), until they
         * split in turn. Several terms in one iteration move together with the group
         * totals, so each of their sizes gets the sum of their rates (an overestimate is
         * safe). */
        double sens = 0, sens_rise = 0;
        unsigned sizes_used = 0;
        for (int c = v; c < (kid[v] ? t->n : v + 1); c++) {
            int cz = t->size[c], slack;
            const far_group *cg = &s->group[cz];
            if (!idle[c] || t->runs_on[cz] || next[cz] == cg->head + cg->n ||
                (c == v ? false : t->parent[c] != v || t->extra[v] || t->runs_on[size]))
                continue;
            rec = rec && trace_look(tr, cz, next[cz] - cg->head, ev);
            double T = split_time(&st, t, idle, cz, count[cz], D, now, rem[cz], cg->time[next[cz]],
                                  &slack);
            double from = c == v ? now : now + D + rem[size];
            int n_idle = c == v ? slack : idle[c];
            if (T > from) {
                ahead += n_idle * (T - from) * (1 - 1e-6);
                sens += n_idle * (1 - 1e-6) / count[cz];
                sizes_used |= 1u << cz;
                if (c != v)
                    sens_rise += n_idle * (1 - 1e-6);
            }
            if (c == v)
                break;
        }
        for (int z = 1; z <= MS_MAX_SLICES; z++)
            if (sizes_used >> z & 1)
                tr->coef[z] = fmax(tr->coef[z], sens);
        if (sens_rise > 0)
            tr->rise[size] = fmax(tr->rise[size], sens_rise);
        if (rec) {
            double b = fmax(bound - total_area, carry);
            tr->bound[ev] = ev > 0 && tr->bound[ev - 1] > b ? tr->bound[ev - 1] : b;
            tr->end[ev] = max_end;
            tr->events = ev + 1;
        }
        if (ahead > 0)
            carry = fmax(carry, bound + ahead - total_area);
        if (bound + ahead >= stop) {
            if (rec && bound < stop) { /* one more event carries this iteration's term */
                tr->bound[ev + 1] = fmax(tr->bound[ev], carry);
                tr->end[ev + 1] = tr->end[ev];
                tr->events = ev + 2;
            }
            return INFINITY;
        }
        int z = size; /* the allocation size served: the node's own, or its extra size */
        rec = rec && trace_look(tr, size, next[size] - grp->head, ev);
        if (next[size] == grp->head + grp->n && t->extra[v]) {
            const far_group *gx = &s->group[t->extra[v]];
            rec = rec && trace_look(tr, t->extra[v], next[t->extra[v]] - gx->head, ev);
            if (next[t->extra[v]] < gx->head + gx->n &&
                up_time(s, t->extra[v], next[t->extra[v]], size) < INFINITY)
                z = t->extra[v], grp = gx;
        }
        if (!rec)
            tr->events = 0;
        if (next[z] < grp->head + grp->n) {
            if (!used_small[k]) { /* lines 8-11: the instance's creation on the clock */
                clock_small[g] = fmax(clock_small[g], end_small[k]) + s->gpu->create_s[size];
                work += size * (clock_small[g] - end_small[k]);
                end_small[k] = clock_small[g];
                used_small[k] = 1;
            }
            int task = grp->task[next[z]];
            double d = z == size ? grp->time[next[z]] : up_time(s, z, next[z], size);
            rem[z] -= grp->time[next[z]];
            area -= z * grp->time[next[z]];
            next[z]++;
            end_small[k] += d;
            work += size * d;
            if (end_small[k] > max_end) {
                max_end = end_small[k];
                if (rec)
                    tr->end[ev] = max_end;
            }
            if (end_small[k] >= cutoff)
                return INFINITY;
            if (end_small[k] > makespan)
                makespan = end_small[k];
            s->node_of[placed] = k; /* by position: a store in order, not at the task */
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
