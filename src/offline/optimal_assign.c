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
#define ASSIGN_TRIES (1L << 20)
#define ASSIGN_SYMS  64 /* symmetries kept (a subset prunes less, never wrongly) */

/* One slot's time line so far: the tasks' lengths, and what the placements they run on cost
 * at least (each placement is at least one instance: every creation, and every destruction
 * but the last one's). */
typedef struct slot_line {
    double tasks;
    uint64_t used;
    double create, create_max, destroy, destroy_max;
} slot_line;

typedef struct assign {
    const opt_problem *o;
    double limit; /* every task ends below it */
    int ntasks;
    int task[OPT_MAX_TASKS];             /* the remaining tasks, largest least slot-area first */
    bool same[OPT_MAX_TASKS];            /* identical to the previous one in that order */
    double rest_area[OPT_MAX_TASKS + 1]; /* least slot-area of the tasks from each on */
    int nopt[OPT_MAX_TASKS];
    int opt[OPT_MAX_TASKS][OPT_MAX_PL]; /* placements each can end on before the cut-off */
    /* per slot, over the placements holding it: the least destruction chain, and the
     * earliest a new instance runs a task there (chain and creation) */
    double chain_least[MS_MAX_SLOTS], ready[MS_MAX_SLOTS];
    slot_line line[MS_MAX_SLOTS];
    long tries;
    /* geometry symmetries (not the identity) that fix every chain end, each with its slot
     * permutation: those that also fix the slots' lines map assignments onto assignments */
    int nsym;
    int sym[ASSIGN_SYMS];
    uint8_t sym_slot[ASSIGN_SYMS][MS_MAX_SLOTS];
} assign;

/* When slot b's last task ends at the earliest: its first instance waits for a destruction
 * chain and its creation, each later one for the destruction before it and its own
 * creation. Never less when the line grows (the search prunes on it): the first instance's
 * chain is the least over every placement holding b, not only over those on the line. */
static double line_end(const assign *a, int b, const slot_line *l)
{
    double first = fmax(a->chain_least[b] + l->create, a->ready[b] + l->create - l->create_max);
    return first + l->destroy - l->destroy_max + l->tasks;
}

/* The slot's line with one more task of length len at placement p. */
static slot_line line_add(const opt_problem *o, const slot_line *l, int p, double len)
{
    slot_line n = *l;
    n.tasks += len;
    if (!(n.used & 1ull << p)) {
        n.create += o->create[p];
        n.create_max = fmax(n.create_max, o->create[p]);
        n.destroy += o->destroy[p];
        n.destroy_max = fmax(n.destroy_max, o->destroy[p]);
        n.used |= 1ull << p;
    }
    return n;
}

/* The time left on the slots before the limit, each from its line's end (from its earliest
 * new instance while it has none). */
static double free_time(const assign *a)
{
    double f = 0;
    for (int b = 0; b < a->o->g->slots; b++) {
        double end = a->line[b].used ? line_end(a, b, &a->line[b]) : a->ready[b];
        if (end < a->limit)
            f += a->limit - end;
    }
    return f;
}

/* The image of a set of placements under symmetry `a`. */
static uint64_t map_placements(const opt_problem *o, int a, uint64_t set)
{
    uint64_t r = 0;
    for (; set; set &= set - 1)
        r |= 1ull << o->auto_pl[a][__builtin_ctzll(set)];
    return r;
}

/* Whether symmetry s maps every slot's line onto its image's. */
static bool sym_fixes_lines(const assign *a, int s)
{
    for (int b = 0; b < a->o->g->slots; b++) {
        const slot_line *x = &a->line[b], *y = &a->line[a->sym_slot[s][b]];
        if (x->tasks != y->tasks || x->create != y->create || x->destroy != y->destroy ||
            x->create_max != y->create_max || x->destroy_max != y->destroy_max ||
            map_placements(a->o, a->sym[s], x->used) != y->used)
            return false;
    }
    return true;
}

/* The symmetries of a->sym, from the geometry's: those fixing every candidate's chain end,
 * each with the slot permutation that maps the placements holding a slot onto the
 * placements holding its image. */
static void find_syms(assign *a, const double *chain)
{
    const opt_problem *o = a->o;
    uint64_t holders[MS_MAX_SLOTS] = {0};
    for (int p = 0; p < o->ncand; p++)
        for (uint32_t m = o->mask[p]; m; m &= m - 1)
            holders[__builtin_ctz(m)] |= 1ull << p;
    for (int s = 1; s < o->nauto && a->nsym < ASSIGN_SYMS; s++) {
        bool ok = true;
        for (int p = 0; p < o->ncand && ok; p++)
            ok = chain[o->auto_pl[s][p]] == chain[p];
        for (int b = 0; b < o->g->slots && ok; b++) {
            uint64_t image = map_placements(o, s, holders[b]);
            int q = 0;
            while (q < o->g->slots && holders[q] != image)
                q++;
            ok = q < o->g->slots;
            a->sym_slot[a->nsym][b] = (uint8_t)q;
        }
        if (ok)
            a->sym[a->nsym++] = s;
    }
}

/* Places tasks k.. (in the order of a->task); true when all fit (or the tries ran out:
 * then nothing is claimed). `from`: the least placement index task k may take (identical
 * tasks take placements in ascending order). */
static bool fits(assign *a, int k, int from, const int *stab, int nstab)
{
    if (k == a->ntasks || ++a->tries > ASSIGN_TRIES)
        return true;
    if (a->rest_area[k] > free_time(a))
        return false;
    const opt_problem *o = a->o;
    const double *t = o->t[a->task[k]];
    for (int j = 0; j < a->nopt[k]; j++) {
        int p = a->opt[k][j];
        bool twin = p < from;
        for (int s = 0; s < nstab && !twin; s++)
            twin = o->auto_pl[a->sym[stab[s]]][p] < p; /* its image is tried instead */
        if (twin)
            continue;
        double len = t[o->size[p]];
        slot_line next[MS_MAX_SLOTS];
        bool ok = true;
        for (uint32_t m = o->mask[p]; m && ok; m &= m - 1) {
            int b = __builtin_ctz(m);
            next[b] = line_add(o, &a->line[b], p, len);
            ok = line_end(a, b, &next[b]) < a->limit;
        }
        if (!ok)
            continue;
        slot_line saved[MS_MAX_SLOTS];
        for (uint32_t m = o->mask[p]; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            saved[b] = a->line[b];
            a->line[b] = next[b];
        }
        int child[ASSIGN_SYMS], nchild = 0;
        for (int s = 0; s < nstab; s++)
            if (sym_fixes_lines(a, stab[s]))
                child[nchild++] = stab[s];
        bool done = fits(a, k + 1, k + 1 < a->ntasks && a->same[k + 1] ? p : 0, child, nchild);
        for (uint32_t m = o->mask[p]; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            a->line[b] = saved[b];
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
    /* a task may end just below c by the search's arithmetic, a little above it by this
     * sum's: only a clear overflow cuts */
    assign a = {.o = o, .limit = c + 1e-9 * (c > 1 ? c : 1)};
    for (int b = 0; b < o->g->slots; b++)
        a.chain_least[b] = a.ready[b] = INFINITY;
    for (int p = 0; p < o->ncand; p++)
        for (uint32_t m = o->mask[p]; m; m &= m - 1) {
            int b = __builtin_ctz(m);
            a.chain_least[b] = fmin(a.chain_least[b], chain[p]);
            a.ready[b] = fmin(a.ready[b], chain[p] + o->create[p]);
        }
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
            if (isfinite(len) && chain[p] + o->create[p] + len < a.limit) {
                a.opt[k][a.nopt[k]++] = p;
                least = fmin(least, o->nslots[p] * len);
            }
        }
        if (!a.nopt[k])
            return true; /* it cannot end before c anywhere */
        a.rest_area[k] = a.rest_area[k + 1] + least;
        a.same[k] = k > 0 && !memcmp(t, o->t[a.task[k - 1]], sizeof o->t[0]);
    }
    /* identical tasks already take placements in order: the symmetries only without them
     * (both at once could skip every image of a solution) */
    bool identical = false;
    for (int k = 0; k < a.ntasks; k++)
        identical |= a.same[k];
    if (!identical)
        find_syms(&a, chain);
    int all[ASSIGN_SYMS];
    for (int s = 0; s < a.nsym; s++)
        all[s] = s;
    return !fits(&a, 0, 0, all, a.nsym);
}
