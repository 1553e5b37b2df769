/* far_batches.c: joining the FAR schedules of consecutive batches (paper 000 section 4):
 * trivial concatenation, reversal of every other batch (4.2) and the move/swap overlap
 * improvement (4.3); p_rev and p_move/swap as 6.7.1 defines them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "far_internal.h"

#define CONCAT_DEFAULT_OPS 64

static void set_reversed(far_plan *p, bool alternate)
{
    for (int b = 0; b < p->batches; b++)
        p->reversed[b] = alternate && (b % 2 == 1);
}

/* Moves the task at `pos` of list a (node va) to list b (node vb, same size). */
static int move_task(far_plan *p, far_list *a, int va, int pos, far_list *b, int vb)
{
    int task = a->task[pos];
    far_list_remove_at(p, a, va, pos);
    return far_list_insert_sorted(p, b, vb, task);
}

static int list_index(const far_list *l, int task)
{
    for (int i = 0; i < l->n; i++)
        if (l->task[i] == task)
            return i;
    return -1;
}

/* One improving move or swap of batch b's tasks for the pair (b - 1, b): each used instance
 * of b, latest end first, against its alternative (the same-size instance of b whose slices,
 * counting batch b - 1, are released first), with the makespan margin of the pair; a change
 * is kept only if the pair's makespan drops. Returns 1 = move, 2 = swap, 0 = none. */
static int improve_pair(far_plan *p, int b, far_engine *e, far_view *rv, int *err)
{
    int nn = p->tree.n, per = p->gpus * nn;
    if ((*err = far_view_update(rv, e, p, b - 1, b + 1)))
        return 0;
    double omega = rv->makespan;
    int cand[64 * MS_MAX_TREE_NODES], nc = 0;
    for (int k = 0; k < per && nc < 64 * MS_MAX_TREE_NODES; k++)
        if (rv->end[per + k] >= 0)
            cand[nc++] = k;
    for (int i = 1; i < nc; i++) /* latest end first (insertion sort: few instances) */
        for (int j = i; j > 0 && rv->end[per + cand[j]] > rv->end[per + cand[j - 1]]; j--) {
            int t = cand[j];
            cand[j] = cand[j - 1], cand[j - 1] = t;
        }
    for (int c = 0; c < nc; c++) {
        int key = cand[c], v = key % nn;
        double alt_end;
        int alt = far_alternative(rv, &p->tree, p->gpus, per, per + key, &alt_end);
        if (alt < 0 || !(alt_end < omega))
            continue;
        alt -= per;
        far_list *li = far_plan_list(p, b, key / nn, v);
        far_list *la = far_plan_list(p, b, alt / nn, alt % nn);
        double margin = omega - alt_end;
        int pos = far_pick_move(p, li, v, margin);
        if (pos >= 0) {
            int task = li->task[pos];
            if ((*err = move_task(p, li, v, pos, la, v)) ||
                (*err = far_engine_run(e, p, b - 1, b + 1, false, false)))
                return 0;
            if (e->makespan < omega)
                return 1;
            if ((*err = move_task(p, la, v, list_index(la, task), li, v)))
                return 0;
        }
        int k, j;
        if (far_pick_swap(p, li, la, v, margin, &k, &j)) {
            int tk = li->task[k], tj = la->task[j];
            if ((*err = far_do_swap(p, li, la, v, k, j)) ||
                (*err = far_engine_run(e, p, b - 1, b + 1, false, false)))
                return 0;
            if (e->makespan < omega)
                return 2;
            if ((*err = far_do_swap(p, li, la, v, list_index(li, tj), list_index(la, tk))))
                return 0;
        }
    }
    return 0;
}

/* Section 4.3 over every consecutive pair, at most max_ops changes per pair. */
static int overlap(far_plan *p, far_engine *e, int max_ops, int *moves, int *swaps)
{
    far_view rv;
    int rc = far_view_init(&rv, p, 2);
    for (int b = 1; b < p->batches && !rc; b++)
        for (int ops = 0; ops < max_ops && !rc; ops++) {
            int r = improve_pair(p, b, e, &rv, &rc);
            if (r == 1)
                ++*moves;
            else if (r == 2)
                ++*swaps;
            else
                break;
        }
    far_view_free(&rv);
    return rc;
}

int far_concat_run(far_plan *p, far_engine *e, const ms_offline_options *opt, ms_schedule *s,
                   ms_error *err)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    far_plan trivial;
    int rc = far_plan_init(&trivial, p->w, p->gpu, p->gpus, p->batches);
    for (int b = 0; b < p->batches && !rc; b++)
        rc = far_plan_copy_batch(&trivial, b, p, b);
    set_reversed(p, false);
    if (!rc)
        rc = far_engine_run(e, p, 0, p->batches, true, true);
    double w_trivial = e->makespan, w_reverse = NAN, w_overlap = NAN;
    int moves = 0, swaps = 0;
    if (!rc && opt->far.concat != MS_CONCAT_TRIVIAL) {
        set_reversed(p, true);
        rc = far_engine_run(e, p, 0, p->batches, false, true);
        w_reverse = e->makespan;
    }
    if (!rc && opt->far.concat == MS_CONCAT_OVERLAP) {
        int ops = opt->far.concat_max_ops > 0 ? opt->far.concat_max_ops : CONCAT_DEFAULT_OPS;
        rc = overlap(p, e, ops, &moves, &swaps);
        if (!rc)
            rc = far_engine_run(e, p, 0, p->batches, false, true);
        w_overlap = e->makespan;
    }
    /* The serial clock can make an overlapped plan lose: keep the best plan computed, in
     * the order overlap, reverse, trivial. */
    ms_concat_mode pick = opt->far.concat;
    if (pick == MS_CONCAT_OVERLAP && !(w_overlap <= w_reverse && w_overlap <= w_trivial))
        pick = MS_CONCAT_REVERSE;
    if (pick == MS_CONCAT_REVERSE && !(w_reverse <= w_trivial))
        pick = MS_CONCAT_TRIVIAL;
    if (!rc && pick != opt->far.concat) {
        for (int b = 0; b < p->batches && !rc; b++)
            rc = far_plan_copy_batch(p, b, &trivial, b);
        set_reversed(p, pick != MS_CONCAT_TRIVIAL);
        if (!rc)
            rc = far_engine_run(e, p, 0, p->batches, pick == MS_CONCAT_TRIVIAL, true);
    }
    if (!rc)
        rc = far_engine_emit(e, p, s);
    far_plan_free(&trivial);
    if (rc)
        return ms_error_set(err, rc, "out of memory concatenating %d batches", p->batches);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms_schedule_set_stat(s, "concat_seconds",
                         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    ms_schedule_set_stat(s, "batches", p->batches);
    ms_schedule_set_stat(s, "makespan_trivial", w_trivial);
    if (opt->far.concat != MS_CONCAT_TRIVIAL) {
        ms_schedule_set_stat(s, "makespan_reverse", w_reverse);
        ms_schedule_set_stat(s, "p_rev", (w_trivial / w_reverse - 1) * 100);
        ms_schedule_set_stat(s, "concat_used", pick);
    }
    if (opt->far.concat == MS_CONCAT_OVERLAP) {
        ms_schedule_set_stat(s, "makespan_overlap", w_overlap);
        ms_schedule_set_stat(s, "p_move_swap", (w_trivial / w_overlap - 1) * 100);
        ms_schedule_set_stat(s, "concat_moves", moves);
        ms_schedule_set_stat(s, "concat_swaps", swaps);
    }
    return MS_OK;
}
