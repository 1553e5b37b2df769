/* far_refine.c: FAR phase 3, Algorithm 2 of paper 000: move or swap tasks of critical
 * instances (from the leaves towards the root) to the alternative instance of the same size
 * that ends first, iteration by iteration while the makespan improves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "far_internal.h"

/* The least relative gain an iteration must make; far above the rounding of the running
 * sums, so that an accepted iteration also shortens the exactly summed schedule. */
#define FAR_MIN_GAIN 1e-9

int far_pick_move(const far_plan *p, const far_list *l, int node, double margin)
{
    int first = far_list_bound(p, l, node, margin, false, 0); /* time < margin */
    double half = margin / 2;
    int lo = far_list_bound(p, l, node, half, true, first); /* then time <= half */
    int best = -1;
    double dist = INFINITY;
    for (int c = lo - 1; c <= lo; c++) { /* the neighbours of margin / 2; ties: the longer */
        if (c < first || c >= l->n)
            continue;
        double d = fabs(far_time(p, l->task[c], node) - half);
        if (d < dist)
            dist = d, best = c;
    }
    return best;
}

bool far_pick_swap(const far_plan *p, const far_list *li, const far_list *la, int node,
                   double margin, int *pk, int *pj)
{
    double half = margin / 2, dist = INFINITY;
    *pk = *pj = -1;
    for (int k = 0; k < li->n; k++) {
        double tk = far_time(p, li->task[k], node), target = tk - half;
        int lo = far_list_bound(p, la, node, target, true, 0); /* time <= target */
        for (int j = lo - 1; j <= lo; j++) {
            if (j < 0 || j >= la->n)
                continue;
            double diff = tk - far_time(p, la->task[j], node);
            if (!(diff > 0 && diff < margin))
                continue;
            double d = fabs(diff - half);
            if (d < dist)
                dist = d, *pk = k, *pj = j;
        }
    }
    return *pk >= 0;
}

int far_do_swap(far_plan *p, far_list *li, far_list *la, int node, int k, int j)
{
    int tk = li->task[k], tj = la->task[j];
    far_list_remove_at(p, li, node, k);
    far_list_remove_at(p, la, node, j);
    if (far_list_insert_sorted(p, la, node, tk) || far_list_insert_sorted(p, li, node, tj))
        return MS_ENOMEM;
    return MS_OK;
}

int far_view_init(far_view *rv, const far_plan *p, int nbatches)
{
    rv->end = malloc((size_t)nbatches * p->gpus * p->tree.n * sizeof *rv->end);
    rv->slot_end = malloc((size_t)p->gpus * MS_MAX_SLOTS * sizeof *rv->slot_end);
    return rv->end && rv->slot_end ? MS_OK : MS_ENOMEM;
}

void far_view_free(far_view *rv)
{
    free(rv->end);
    free(rv->slot_end);
}

int far_view_update(far_view *rv, far_engine *e, far_plan *p, int b0, int b1)
{
    if (far_engine_run(e, p, b0, b1, false, false))
        return MS_ENOMEM;
    int nn = p->tree.n;
    for (int i = 0; i < (b1 - b0) * p->gpus * nn; i++)
        rv->end[i] = -1;
    for (int i = 0; i < p->gpus * MS_MAX_SLOTS; i++)
        rv->slot_end[i] = 0;
    for (int i = 0; i < e->n; i++) {
        const far_inst *in = &e->inst[i];
        rv->end[((in->batch - b0) * p->gpus + in->gpu) * nn + in->node] = in->end;
        for (int c = 0; c < MS_MAX_SLOTS; c++)
            if ((p->tree.slots[in->node] & (1u << c)) &&
                in->end > rv->slot_end[in->gpu * MS_MAX_SLOTS + c])
                rv->slot_end[in->gpu * MS_MAX_SLOTS + c] = in->end;
    }
    rv->makespan = e->makespan;
    return MS_OK;
}

/* When node v's slots are all free: memory slots, not compute slices, decide occupancy
 * (3g@0 holds slots 0-3 but slices 0-2, so 1g@3 must wait for it). */
static double region_end(const far_view *rv, const far_tree *t, int g, int v)
{
    double m = 0;
    for (int c = 0; c < MS_MAX_SLOTS; c++)
        if ((t->slots[v] & (1u << c)) && rv->slot_end[g * MS_MAX_SLOTS + c] > m)
            m = rv->slot_end[g * MS_MAX_SLOTS + c];
    return m;
}

int far_alternative(const far_view *rv, const far_tree *t, int gpus, int base, int key, double *end)
{
    int nn = t->n, best = -1;
    *end = INFINITY;
    for (int g = 0; g < gpus; g++)
        for (int v = 0; v < nn; v++) {
            int k = base + g * nn + v;
            if (k == key || t->size[v] != t->size[key % nn])
                continue;
            double re = region_end(rv, t, g, v);
            if (re < *end)
                *end = re, best = k;
        }
    return best;
}

/* Tries a move, then a swap, from instance `key` to its alternative. 1 = move, 2 = swap. */
static int improve_node(far_plan *p, int b, const far_view *rv, int key, double omega, int *err)
{
    int nn = p->tree.n, v = key % nn;
    far_list *li = far_plan_list(p, b, key / nn, v);
    double alt_end;
    int alt = far_alternative(rv, &p->tree, p->gpus, 0, key, &alt_end);
    if (li->n == 0 || alt < 0 || !(alt_end < omega))
        return 0;
    double margin = omega - alt_end;
    far_list *la = far_plan_list(p, b, alt / nn, alt % nn);
    int pos = far_pick_move(p, li, v, margin);
    if (pos >= 0) {
        int task = li->task[pos];
        far_list_remove_at(p, li, v, pos);
        *err = far_list_insert_sorted(p, la, v, task);
        return 1;
    }
    int k, j;
    if (far_pick_swap(p, li, la, v, margin, &k, &j)) {
        *err = far_do_swap(p, li, la, v, k, j);
        return 2;
    }
    return 0;
}

/* One iteration of Algorithm 2 (lines 5-30); returns MS_ENOMEM or MS_OK, sets *stop when
 * the root was opened. */
static int iterate(far_plan *p, int b, far_engine *e, far_view *rv, int *queue, bool *opened,
                   far_refine_stats *it, bool *stop)
{
    int nn = p->tree.n, total = p->gpus * nn, qh = 0, qt = 0, err = MS_OK;
    double omega = rv->makespan;
    memset(opened, 0, (size_t)total * sizeof *opened);
    for (int k = 0; k < total; k++)
        if (rv->end[k] == omega) { /* the instances whose slices reach the makespan */
            queue[qt++] = k;
            opened[k] = true;
        }
    while (qh < qt) {
        int key = queue[qh++], v = key % nn;
        if (p->tree.parent[v] < 0) {
            *stop = true;
            return MS_OK;
        }
        int r = improve_node(p, b, rv, key, omega, &err);
        if (err || (r && far_view_update(rv, e, p, b, b + 1)))
            return MS_ENOMEM;
        if (r == 1)
            it->moves++;
        else if (r == 2)
            it->swaps++;
        else {
            int parent = key - v + p->tree.parent[v];
            if (!opened[parent]) {
                opened[parent] = true;
                queue[qt++] = parent;
            }
        }
    }
    return MS_OK;
}

int far_refine_run(far_plan *p, int b, far_engine *e, const ms_offline_options *opt,
                   far_refine_stats *st)
{
    memset(st, 0, sizeof *st);
    int total = p->gpus * p->tree.n;
    far_plan undo;
    far_view rv;
    int *queue = malloc((size_t)total * sizeof *queue);
    bool *opened = malloc((size_t)total * sizeof *opened);
    int rc = far_plan_init(&undo, p->w, p->gpu, p->gpus, 1);
    if (rc | far_view_init(&rv, p, 1) || !queue || !opened)
        rc = MS_ENOMEM;
    else
        rc = far_view_update(&rv, e, p, b, b + 1);
    bool stop = false;
    int max_iters = opt->far.refine_max_iters;
    while (!rc && !stop && (max_iters <= 0 || st->iterations < max_iters)) {
        double before = rv.makespan;
        far_refine_stats it = {0, 0, 0};
        if ((rc = far_plan_copy_batch(&undo, 0, p, b)))
            break;
        if ((rc = iterate(p, b, e, &rv, queue, opened, &it, &stop)))
            break;
        /* No gain (beyond the rounding of running sums): undo this iteration and stop. */
        if (!(rv.makespan < before * (1 - FAR_MIN_GAIN))) {
            rc = far_plan_copy_batch(p, b, &undo, 0);
            break;
        }
        st->moves += it.moves;
        st->swaps += it.swaps;
        st->iterations++;
        if ((before - rv.makespan) / before < opt->far.refine_min_gain)
            break;
    }
    far_plan_free(&undo);
    far_view_free(&rv);
    free(queue);
    free(opened);
    return rc;
}
