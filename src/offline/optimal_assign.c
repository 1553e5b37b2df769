/* optimal_assign.c: the exact scheduler's slot-assignment bound (docs/optimal.md, Bounds).
 * Once every remaining task runs on an instance still to be created, each memory slot holds
 * one instance at a time and each instance runs one task at a time: the tasks on instances
 * holding a slot run one after another between the earliest moment a new instance holding
 * it can run one and the cut-off, with a destruction and a creation between two instances.
 * The bound looks for a placement of every remaining task that fits every slot that way;
 * when there is none, no completion ends before the cut-off. */
#include <math.h>
#include <string.h>

#include "optimal_internal.h"

/* Tries in the search for an assignment before it gives up (and cuts nothing): the result
 * depends only on the node, never on the clock. */
#define ASSIGN_TRIES 2048

typedef struct assign {
    const opt_problem *o;
    int ntasks;
    int task[OPT_MAX_TASKS];             /* the remaining tasks, largest least slot-area first */
    bool same[OPT_MAX_TASKS];            /* identical to the previous one in that order */
    double rest_area[OPT_MAX_TASKS + 1]; /* least slot-area of the tasks from each on */
    int nopt[OPT_MAX_TASKS];
    int opt[OPT_MAX_TASKS][OPT_MAX_PL]; /* placements each can end on before the cut-off */
    double cap[MS_MAX_SLOTS];           /* per slot: the time from its earliest new instance to c */
    double load[MS_MAX_SLOTS];
    uint64_t used[MS_MAX_SLOTS]; /* the placements with a task on each slot */
    double gap;                  /* least destruction plus creation between two instances */
    long tries;
} assign;

/* The free time left on the slots, each its window less its load. */
static double free_time(const assign *a)
{
    double f = 0;
    for (int b = 0; b < a->o->g->slots; b++)
        if (a->cap[b] > a->load[b])
            f += a->cap[b] - a->load[b];
    return f;
}

/* Places tasks k.. (in the order of a->task); true when all fit (or the tries ran out:
 * then nothing is claimed). `from`: the least placement index task k may take (identical
 * tasks take placements in ascending order). */
static bool fits(assign *a, int k, int from)
{
    if (k == a->ntasks || ++a->tries > ASSIGN_TRIES)
        return true;
    if (a->rest_area[k] > free_time(a))
        return false;
    const opt_problem *o = a->o;
    const double *t = o->t[a->task[k]];
    for (int j = 0; j < a->nopt[k]; j++) {
        int p = a->opt[k][j];
        if (p < from)
            continue;
        double len = t[o->size[p]];
        uint64_t bit = 1ull << p;
        bool ok = true;
        for (uint32_t m = o->mask[p]; m && ok; m &= m - 1) {
            int b = __builtin_ctz(m);
            ok = a->load[b] + len + (a->used[b] && !(a->used[b] & bit) ? a->gap : 0) < a->cap[b];
        }
        if (!ok)
            continue;
        double saved[MS_MAX_SLOTS];
        uint64_t saved_used[MS_MAX_SLOTS];
        for (uint32_t m = o->mask[p]; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            saved[b] = a->load[b];
            saved_used[b] = a->used[b];
            a->load[b] += len + (a->used[b] && !(a->used[b] & bit) ? a->gap : 0);
            a->used[b] |= bit;
        }
        bool done = fits(a, k + 1, k + 1 < a->ntasks && a->same[k + 1] ? p : 0);
        for (uint32_t m = o->mask[p]; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            a->load[b] = saved[b];
            a->used[b] = saved_used[b];
        }
        if (done)
            return true;
    }
    return false;
}

bool opt_assign_cuts(const opt_problem *o, const double *chain, uint64_t rem, double c)
{
    if (o->ncand > 64 || !isfinite(c))
        return false; /* the placements on a slot are a 64-bit set; no cut-off yet */
    assign a = {.o = o};
    double dmin = INFINITY, cmin = INFINITY;
    for (int b = 0; b < o->g->slots; b++)
        a.cap[b] = -INFINITY;
    /* a task may end just below c by the search's arithmetic, a little above it by this
     * sum's: only a clear overflow cuts */
    double tol = 1e-9 * (c > 1 ? c : 1);
    for (int p = 0; p < o->ncand; p++) {
        double ready = chain[p] + o->create[p];
        for (uint32_t m = o->mask[p]; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            a.cap[b] = a.cap[b] > c - ready + tol ? a.cap[b] : c - ready + tol;
        }
        dmin = dmin < o->destroy[p] ? dmin : o->destroy[p];
        cmin = cmin < o->create[p] ? cmin : o->create[p];
    }
    a.gap = dmin + cmin;
    /* the remaining tasks by least slot-area, largest first (stable: identical tasks end
     * up next to each other) */
    double area[OPT_MAX_TASKS];
    for (uint64_t r = rem; r; r &= r - 1) {
        int i = __builtin_ctzll(r), k = a.ntasks++;
        area[k] = INFINITY;
        for (int p = 0; p < o->ncand; p++)
            area[k] = fmin(area[k], o->nslots[p] * o->t[i][o->size[p]]);
        for (; k > 0 && area[k - 1] < area[k]; k--) {
            double x = area[k];
            area[k] = area[k - 1];
            area[k - 1] = x;
            a.task[k] = a.task[k - 1];
        }
        a.task[k] = i;
    }
    a.rest_area[a.ntasks] = 0;
    for (int k = a.ntasks - 1; k >= 0; k--) {
        const double *t = o->t[a.task[k]];
        double least = INFINITY;
        a.nopt[k] = 0;
        for (int p = 0; p < o->ncand; p++) {
            double len = t[o->size[p]];
            if (isfinite(len) && chain[p] + o->create[p] + len < c + tol) {
                a.opt[k][a.nopt[k]++] = p;
                least = fmin(least, o->nslots[p] * len);
            }
        }
        if (!a.nopt[k])
            return true; /* it cannot end before c anywhere */
        a.rest_area[k] = a.rest_area[k + 1] + least;
        a.same[k] = k > 0 && !memcmp(t, o->t[a.task[k - 1]], sizeof o->t[0]);
    }
    return !fits(&a, 0, 0);
}
