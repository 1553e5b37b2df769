/* optimal_search.c: the exact scheduler's branch and bound. A node is a prefix of the
 * decision sequence of docs/optimal.md: first the task set (maybe empty) of each instance
 * of the layout before the plan, then creations, each preceded by the destruction of the
 * live instances it overlaps. Pruning: lower bounds on the remaining work (l_bound, per-task
 * earliest finish, slice and slot area), equal tasks taken in index order, and geometry
 * symmetries that fix the layout or the live instances. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "optimal_internal.h"

#define CHECK_EVERY 1024 /* nodes between clock reads */

typedef struct state {
    double R;      /* when the last reconfiguration ends */
    double ms;     /* latest task end so far */
    uint64_t rem;  /* tasks not yet on an instance */
    int init_next; /* the layout's next instance to get its tasks (ninit: all have) */
    /* the last creation, when it destroyed instances: its slots and theirs, the R it
     * started from, and the latest R that would not have delayed it */
    uint32_t last_block;
    double R_prev, slack;
    int nlive;
    opt_live live[MS_MAX_SLOTS]; /* by finish, ties by step: the order of a destruction chain */
} state;

/* fmin/fmax without NaN handling (no NaN reaches here), which the compiler inlines */
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

double opt_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Only schedules shorter than this are looked for: ties with the best known, within a
 * relative 1e-9, do not count as improvements. */
static double cutoff(const opt_problem *o) { return o->best - 1e-9 * dmax(1.0, o->best); }

/* ---- tables --------------------------------------------------------------------------- */

/* Of placements with the same size, one whose slots include another's is never created:
 * the other holds a subset of its slots for the same times (ties: the lower index). */
static void find_placements(opt_problem *o)
{
    const ms_gpu_model *g = o->g;
    ms_placement all[OPT_MAX_PL];
    uint32_t m[OPT_MAX_PL];
    int na = 0;
    for (int pr = 0; pr < g->nprofiles; pr++)
        for (int k = 0; k < g->profiles[pr].nstarts && na < OPT_MAX_PL; k++) {
            all[na] = (ms_placement){pr, g->profiles[pr].starts[k]};
            m[na] = ms_gpu_slot_mask(g, all[na]);
            na++;
        }
    o->npl = 0;
    for (int a = 0; a < na; a++) {
        int sa = g->profiles[all[a].profile].slices;
        bool dominated = false;
        for (int b = 0; b < na && !dominated; b++)
            dominated = b != a && g->profiles[all[b].profile].slices == sa && !(m[b] & ~m[a]) &&
                        (m[b] != m[a] || b < a);
        if (dominated)
            continue;
        o->pl[o->npl] = all[a];
        o->mask[o->npl] = m[a];
        o->size[o->npl] = sa;
        o->npl++;
    }
    o->ncand = o->npl;
}

/* Each instance of the layout: its placement, added after the candidates when it is not
 * one of them. */
static int find_layout(opt_problem *o, const ms_initial *initial, ms_error *err)
{
    const ms_gpu_model *g = o->g;
    for (int i = 0; initial && i < initial->n; i++) {
        const ms_initial_inst *in = &initial->inst[i];
        if (in->gpu != 0)
            return ms_error_set(err, MS_EINVAL,
                                "optimal: the layout before the plan holds an instance on GPU "
                                "%d; the exact scheduler plans GPU 0 only",
                                in->gpu);
        if (!ms_gpu_placement_allowed(g, in->at))
            return ms_error_set(err, MS_EINVAL,
                                "optimal: the layout's instance at slot %d is not a placement "
                                "of %s",
                                in->at.start, g->name);
        int p = 0;
        while (p < o->npl && (o->pl[p].profile != in->at.profile || o->pl[p].start != in->at.start))
            p++;
        if (p == o->npl) {
            o->pl[p] = in->at;
            o->mask[p] = ms_gpu_slot_mask(g, in->at);
            o->size[p] = g->profiles[in->at.profile].slices;
            o->npl++;
        }
        int k = o->ninit++;
        o->init_pl[k] = p;
        o->init_busy[k] = in->busy_until;
        o->init_sizes[k] = 1u << ms_gpu_size_index(g, o->size[p]);
    }
    return MS_OK;
}

static uint32_t map_mask(const uint32_t *perm, uint32_t m)
{
    uint32_t r = 0;
    for (int b = 0; m; b++, m >>= 1)
        if (m & 1)
            r |= 1u << perm[b];
    return r;
}

/* A candidate's image among the candidates, a layout's placement's among those. */
static int find_image(const opt_problem *o, int p, uint32_t image)
{
    bool cand = p < o->ncand;
    for (int q = cand ? 0 : o->ncand; q < (cand ? o->ncand : o->npl); q++)
        if (o->mask[q] == image && o->size[q] == o->size[p])
            return q;
    return -1;
}

/* Slot permutations mapping every candidate placement onto one of the same size, and the
 * layout's other placements among themselves, built slot by slot: a placement is checked
 * as soon as all its slots have an image. */
static void find_autos(opt_problem *o, uint32_t *perm, int k, uint32_t taken)
{
    int slots = o->g->slots;
    for (int p = 0; p < o->npl && k > 0; p++)
        if (!(o->mask[p] >> k) && (o->mask[p] >> (k - 1) & 1) &&
            find_image(o, p, map_mask(perm, o->mask[p])) < 0)
            return;
    if (k == slots) {
        if (o->nauto == OPT_MAX_AUTO)
            return;
        for (int p = 0; p < o->npl; p++)
            o->auto_pl[o->nauto][p] = find_image(o, p, map_mask(perm, o->mask[p]));
        o->nauto++;
        return;
    }
    for (int v = 0; v < slots; v++)
        if (!(taken & (1u << v))) {
            perm[k] = (uint32_t)v;
            find_autos(o, perm, k + 1, taken | (1u << v));
        }
}

/* The symmetries that map the layout onto itself (placements and busy times), but the
 * identity, each as the inverse permutation of the layout's instances. */
static void find_layout_autos(opt_problem *o)
{
    for (int a = 1; a < o->nauto; a++) {
        int *inv = o->init_perm[o->ninit_auto];
        bool ok = true;
        for (int k = 0; k < o->ninit && ok; k++) {
            int q = o->auto_pl[a][o->init_pl[k]], r = 0;
            while (r < o->ninit && (o->init_pl[r] != q || o->init_busy[r] != o->init_busy[k]))
                r++;
            ok = r < o->ninit;
            if (ok)
                inv[r] = k;
        }
        o->ninit_auto += ok;
    }
}

int opt_problem_init(opt_problem *o, const ms_workload *w, const ms_gpu_model *g,
                     const ms_initial *initial, ms_error *err)
{
    if (w->n > OPT_MAX_TASKS)
        return ms_error_set(err, MS_EINVAL,
                            "optimal: %d tasks; the exact scheduler takes at most %d", w->n,
                            OPT_MAX_TASKS);
    memset(o, 0, sizeof *o);
    o->g = g;
    o->w = w;
    o->n = w->n;
    o->best = INFINITY;
    o->best_len = -1;
    find_placements(o);
    int rc = find_layout(o, initial, err);
    if (rc)
        return rc;
    o->auto_pl = calloc(OPT_MAX_AUTO, sizeof *o->auto_pl);
    o->init_perm = calloc(OPT_MAX_AUTO, sizeof *o->init_perm);
    o->nsets = 1u << g->nsizes;
    o->coef = calloc((size_t)(w->n ? w->n : 1), sizeof *o->coef);
    if (!o->auto_pl || !o->init_perm || !o->coef) {
        opt_problem_free(o);
        return ms_error_set(err, MS_ENOMEM, "optimal: out of memory");
    }
    uint32_t perm[MS_MAX_SLOTS];
    find_autos(o, perm, 0, 0);
    find_layout_autos(o);
    for (int p = 0; p < o->npl; p++) {
        o->nslots[p] = __builtin_popcount(o->mask[p]);
        o->create[p] = ms_gpu_create_time(g, o->size[p]);
        o->destroy[p] = ms_gpu_destroy_time(g, o->size[p]);
        for (int q = 0; q < o->npl; q++)
            if (o->mask[q] & o->mask[p])
                o->overlap[p][o->noverlap[p]++] = (uint8_t)q;
    }

    o->min_create_area = INFINITY;
    for (int p = 0; p < o->ncand; p++) {
        int sl = o->nslots[p];
        if (!o->size_slots[o->size[p]] || sl < o->size_slots[o->size[p]])
            o->size_slots[o->size[p]] = sl;
        o->min_create_area = fmin(o->min_create_area, o->size[p] * o->create[p]);
    }
    opt_pack_init(o);
    for (int i = 0; i < w->n; i++) {
        memcpy(o->t[i], w->tasks[i].time, sizeof o->t[i]);
        o->same_prev[i] = o->same_next[i] = -1;
        for (int j = i - 1; j >= 0 && o->same_prev[i] < 0; j--)
            if (!memcmp(o->t[i], o->t[j], sizeof o->t[i])) {
                o->same_prev[i] = j;
                o->same_next[j] = i;
            }
    }
    for (unsigned S = 1; S < o->nsets; S++) {
        double weight[MS_MAX_SLICES + 1];
        o->set_create[S] = ms_bound_lbound_set(g, S, 0, weight);
        for (int i = 0; i < w->n; i++) {
            double m = INFINITY;
            for (int k = 0; k < g->nsizes; k++)
                if (S & (1u << k))
                    m = fmin(m, weight[g->sizes[k]] * o->t[i][g->sizes[k]]);
            o->coef[i][S] = m;
        }
    }
    return MS_OK;
}

void opt_problem_free(opt_problem *o)
{
    free(o->auto_pl);
    free(o->init_perm);
    free(o->coef);
    o->auto_pl = NULL;
    o->init_perm = NULL;
    o->coef = NULL;
}

/* ---- the destructions before a creation ----------------------------------------------- */

/* Sorts idx[0..n) (indices into live) by finish, ties by step: earliest finish first
 * minimises when a chain of destructions ends (insertion sort: at most a few). */
static void sort_by_finish(const opt_live *live, int *idx, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0; b--) {
            const opt_live *x = &live[idx[b - 1]], *y = &live[idx[b]];
            if (x->f < y->f || (x->f == y->f && x->step < y->step))
                break;
            int tmp = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = tmp;
        }
}

double opt_clear(const opt_problem *o, const opt_live *live, int nlive, int p, double R,
                 opt_live *keep, int *nkeep, double *start, double *end)
{
    int idx[MS_MAX_SLOTS], nd = 0;
    if (nkeep)
        *nkeep = 0;
    for (int j = 0; j < nlive; j++) {
        if (o->mask[live[j].pl] & o->mask[p])
            idx[nd++] = j;
        else if (keep)
            keep[(*nkeep)++] = live[j];
    }
    sort_by_finish(live, idx, nd);
    double t = R;
    for (int a = 0; a < nd; a++) {
        const opt_live *x = &live[idx[a]];
        double s0 = dmax(t, x->f);
        t = s0 + o->destroy[x->pl];
        if (start)
            start[idx[a]] = s0;
        if (end)
            end[idx[a]] = t;
    }
    return t;
}

/* opt_clear's end time for placement p from R: st's live instances are kept in its order. */
static double chain_end(const opt_problem *o, const state *st, int p, double R)
{
    double t = R;
    for (int a = 0; a < st->nlive; a++) {
        const opt_live *x = &st->live[a];
        if (o->mask[x->pl] & o->mask[p])
            t = dmax(t, x->f) + o->destroy[x->pl];
    }
    return t;
}

/* ---- bounds --------------------------------------------------------------------------- */

/* l_bound of the remaining tasks, each size used created after now but those in `present`
 * (bit k: g->sizes[k]). Only whether it reaches `stop` matters to the search: the first set
 * of sizes below it is returned as is (a value < stop), and each set's sum stops once it
 * reaches the least so far. */
static double lbound_rem(const opt_problem *o, uint64_t rem, unsigned present, double stop)
{
    double best = INFINITY, below = isfinite(stop) ? stop * o->g->slices : -INFINITY;
    for (unsigned S = 1; S < o->nsets; S++) {
        double total = o->set_create[S & ~present]; /* the creation terms add up by size */
        for (uint64_t r = rem; r && total < best; r &= r - 1)
            total += o->coef[__builtin_ctzll(r)][S];
        if (total < below)
            return total / o->g->slices;
        best = dmin(best, total);
    }
    return best / o->g->slices;
}

/* A lower bound on the makespan of every complete schedule below st; when none can end
 * before c, any value >= c. */
static double bound(const opt_problem *o, const state *st, double c)
{
    const ms_gpu_model *g = o->g;
    bool open = st->init_next < o->ninit;
    double live_slices = 0, live_slots = 0;
    for (int j = 0; j < st->nlive; j++) {
        const opt_live *x = &st->live[j];
        live_slices += o->size[x->pl] * dmax(0.0, x->f - st->R);
        live_slots += o->nslots[x->pl] * dmax(0.0, x->f - st->R);
    }
    /* earliest moment a new instance of each size can run a task: every placement's
     * chain_end at once, each live instance (in chain order) delaying those it overlaps */
    double chain[OPT_MAX_PL];
    for (int p = 0; p < o->npl; p++)
        chain[p] = st->R;
    for (int a = 0; a < st->nlive; a++) {
        const opt_live *x = &st->live[a];
        double f = x->f, d = o->destroy[x->pl];
        for (int k = 0; k < o->noverlap[x->pl]; k++) {
            int p = o->overlap[x->pl][k];
            chain[p] = dmax(chain[p], f) + d;
        }
    }
    double ready[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        ready[s] = INFINITY;
    for (int p = 0; p < o->ncand; p++)
        ready[o->size[p]] = dmin(ready[o->size[p]], chain[p] + o->create[p]);
    unsigned present = 0; /* the sizes of the layout's instances still open to tasks */
    for (int k = st->init_next; k < o->ninit; k++) {
        int s = o->size[o->init_pl[k]];
        ready[s] = dmin(ready[s], o->init_busy[k]);
        present |= o->init_sizes[k];
    }
    /* each task: its earliest end, and its least area over the sizes on which it can end
     * before c */
    double lb = st->ms, area = 0, slot_area = 0;
    for (uint64_t r = st->rem; r; r &= r - 1) {
        int i = __builtin_ctzll(r);
        double f = INFINITY, a = INFINITY, sa = INFINITY;
        for (int k = 0; k < g->nsizes; k++) {
            int s = g->sizes[k];
            double end = ready[s] + o->t[i][s];
            f = dmin(f, end);
            if (end < c) {
                a = dmin(a, s * o->t[i][s]);
                sa = dmin(sa, o->size_slots[s] * o->t[i][s]);
            }
        }
        lb = dmax(lb, f);
        area += a;
        slot_area += sa;
    }
    if (lb >= c)
        return lb;
    /* no remaining task runs before the first new instance can: from then on, the live
     * instances' remaining work and all of theirs share the slices (and the slots) */
    double first = INFINITY, after = 0, slots_after = 0;
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        first = dmin(first, ready[s]);
    for (int j = 0; j < st->nlive; j++) {
        const opt_live *x = &st->live[j];
        after += o->size[x->pl] * dmax(0.0, x->f - first);
        slots_after += o->nslots[x->pl] * dmax(0.0, x->f - first);
    }
    if (first + (after + area) / o->slice_cap >= c ||
        first + (slots_after + slot_area) / g->slots >= c)
        return c;
    if (!open) /* every remaining task is on an instance created from R on */
        area += o->min_create_area;
    if (st->R + (live_slices + area) / o->slice_cap >= c ||
        st->R + (live_slots + slot_area) / g->slots >= c)
        return c;
    lb = dmax(lb, st->R + lbound_rem(o, st->rem, present, c - st->R));
    /* the packing bounds cost most: tried only when no other bound prunes */
    if (lb < c && !o->no_pack && opt_pack_cuts(o, ready, st->rem, st->live, st->nlive, c))
        return c;
    /* the slot assignment, dearer still, once every remaining task waits for a creation */
    if (lb < c && !open && !o->no_assign && opt_assign_cuts(o, chain, st->rem, c))
        return c;
    return lb;
}

/* ---- search --------------------------------------------------------------------------- */

static void expand(opt_problem *o, const state *st);

/* The task set T up to identical tasks: per class of identical tasks, its first k members
 * for the k that T holds. */
static uint64_t class_key(const opt_problem *o, uint64_t T)
{
    uint64_t key = 0;
    for (uint64_t r = T; r; r &= r - 1) {
        int i = __builtin_ctzll(r);
        while (o->same_prev[i] >= 0)
            i = o->same_prev[i];
        while (key & (1ull << i))
            i = o->same_next[i];
        key |= 1ull << i;
    }
    return key;
}

/* The layout's task sets: of their images under the symmetries that map the layout onto
 * itself, only the one whose keys (by instance) are lexicographically least is explored;
 * false when some image is already known to be smaller. Instances up to `upto` are
 * decided. */
static bool lex_leader(const opt_problem *o, int upto)
{
    for (int a = 0; a < o->ninit_auto; a++)
        for (int q = 0; q < o->ninit; q++) {
            int r = o->init_perm[a][q];
            if (q > upto || r > upto)
                break;
            if (o->init_key[r] != o->init_key[q]) {
                if (o->init_key[r] < o->init_key[q])
                    return false;
                break;
            }
        }
    return true;
}

/* The child of base where the instance at placement p runs the tasks T, free from f. */
static void descend(opt_problem *o, const state *base, int p, bool initial, uint64_t T, double f)
{
    state c = *base;
    c.rem &= ~T;
    if (T)
        c.ms = dmax(c.ms, f);
    int k = c.nlive++; /* keep the chain order: by finish, ties by step */
    for (; k > 0 && (c.live[k - 1].f > f || (c.live[k - 1].f == f && c.live[k - 1].step > o->len));
         k--)
        c.live[k] = c.live[k - 1];
    c.live[k] = (opt_live){p, o->len, f};
    o->path[o->len++] = (opt_step){p, initial, T};
    if (!initial) {
        expand(o, &c);
    } else { /* the layout's instances are the first steps: step k is instance k */
        int at = o->len - 1;
        o->init_key[at] = class_key(o, T);
        if (o->no_rules || lex_leader(o, at))
            expand(o, &c);
        o->init_key[at] = 0;
    }
    o->len--;
}

/* Chooses the task set of an instance at placement p whose tasks start at e: tasks added
 * in ascending index from `from`, each non-empty set a child node. base holds the state
 * after the instance's creation (or, for the layout's, without it), before its tasks are
 * taken out of rem. */
static void choose(opt_problem *o, const state *base, int p, bool initial, double e, uint64_t T,
                   double load, int from)
{
    int s = o->size[p];
    for (int i = from; i < o->n && !o->stopped; i++) {
        uint64_t bit = 1ull << i;
        if (!(base->rem & bit) || !isfinite(o->t[i][s]))
            continue;
        int j = o->same_prev[i];
        if (j >= 0 && !o->no_rules && (base->rem & ~T & (1ull << j)))
            continue; /* an identical task of lower index is still free: take it first */
        double l2 = load + o->t[i][s], f = e + l2;
        if (dmax(base->ms, f) >= cutoff(o))
            continue; /* so would every larger set */
        descend(o, base, p, initial, T | bit, f);
        choose(o, base, p, initial, e, T | bit, l2, i + 1);
    }
}

/* The layout's next instance gets its tasks (none: it waits, free from its busy time, to
 * be destroyed before an overlapping creation or to stay). */
static void place_initial(opt_problem *o, const state *st)
{
    int k = st->init_next, p = o->init_pl[k];
    state base = *st;
    base.init_next = k + 1;
    base.nlive = 0;
    for (int j = 0; j < st->nlive; j++)
        if (st->live[j].step != k)
            base.live[base.nlive++] = st->live[j];
    descend(o, &base, p, true, 0, o->init_busy[k]);
    choose(o, &base, p, true, o->init_busy[k], 0, 0.0, 0);
}

/* A creation at candidate placement p, after the destruction of the live instances it
 * overlaps. */
static void place(opt_problem *o, const state *st, int p)
{
    state base = *st;
    double c = o->create[p];
    /* independent of the previous creation and done before that one would have started
     * waiting for its destructions: the order with this one first is no later anywhere */
    if (!o->no_rules && st->last_block && !(o->mask[p] & st->last_block) &&
        chain_end(o, st, p, st->R_prev) + c <= st->slack - 1e-9 * (st->slack > 1 ? st->slack : 1))
        return;
    double chain = st->R, destroy = 0.0; /* chain_end's loop, splitting the live set */
    base.last_block = o->mask[p];
    base.nlive = 0;
    for (int j = 0; j < st->nlive; j++) {
        const opt_live *x = &st->live[j];
        if (o->mask[x->pl] & o->mask[p]) {
            chain = dmax(chain, x->f) + o->destroy[x->pl];
            destroy += o->destroy[x->pl];
            base.last_block |= o->mask[x->pl];
        } else {
            base.live[base.nlive++] = *x;
        }
    }
    /* replacing the one instance at the same placement: its tasks could have run on it
     * without the destruction and creation */
    if (!o->no_rules && base.nlive == st->nlive - 1) {
        for (int j = 0; j < st->nlive; j++)
            if (st->live[j].pl == p)
                return;
    }
    if (base.nlive == st->nlive)
        base.last_block = 0; /* nothing to wait for: nothing fits before it */
    base.R_prev = st->R;
    base.slack = chain - destroy; /* a start up to here does not delay the chain */
    base.R = chain + c;
    choose(o, &base, p, false, base.R, 0, 0.0, 0);
}

/* Symmetries that keep every live instance (placement and finish): placements they map
 * onto each other lead to the same futures. */
static int stabilizer(const opt_problem *o, const state *st, int *out)
{
    int n = 0;
    for (int a = 0; a < o->nauto; a++) {
        bool ok = true;
        for (int j = 0; j < st->nlive && ok; j++) {
            int q = o->auto_pl[a][st->live[j].pl];
            ok = false;
            for (int k = 0; k < st->nlive && !ok; k++)
                ok = st->live[k].pl == q && st->live[k].f == st->live[j].f;
        }
        if (ok)
            out[n++] = a;
    }
    return n;
}

static void leaf(opt_problem *o, const state *st)
{
    if (st->ms >= cutoff(o))
        return;
    o->best = st->ms;
    o->best_len = o->len;
    memcpy(o->best_path, o->path, (size_t)o->len * sizeof o->path[0]);
}

static void expand(opt_problem *o, const state *st)
{
    if (o->stopped)
        return;
    if (!st->rem) {
        leaf(o, st);
        return;
    }
    double c = cutoff(o);
    if (bound(o, st, c) >= c)
        return;
    o->nodes++;
    if ((o->node_limit && o->nodes >= o->node_limit) ||
        (o->deadline && o->nodes % CHECK_EVERY == 0 && opt_now_s() > o->deadline)) {
        o->stopped = true;
        return;
    }
    if (st->init_next < o->ninit) {
        place_initial(o, st);
        return;
    }
    int stab[OPT_MAX_AUTO];
    int ns = o->no_rules ? 0 : stabilizer(o, st, stab);
    for (int p = 0; p < o->ncand && !o->stopped; p++) {
        bool twin = false;
        for (int a = 0; a < ns && !twin; a++)
            twin = o->auto_pl[stab[a]][p] < p;
        if (!twin)
            place(o, st, p);
    }
}

/* Depth-first branch and bound below the incumbent. (Iterative deepening on the makespan
 * from the root bound, tried first, expanded 2 to 8 times more nodes to the same proofs.) */
void opt_search(opt_problem *o)
{
    state root = {.rem = o->n == 64 ? ~0ull : (1ull << o->n) - 1};
    for (int k = 0; k < o->ninit; k++) { /* live from the start, in chain order */
        int j = root.nlive++;
        for (; j > 0 && root.live[j - 1].f > o->init_busy[k]; j--)
            root.live[j] = root.live[j - 1];
        root.live[j] = (opt_live){o->init_pl[k], k, o->init_busy[k]};
    }
    o->len = 0;
    o->nodes = 0;
    o->stopped = false;
    o->proved_below = bound(o, &root, INFINITY);
    expand(o, &root);
    if (!o->stopped)
        o->proved_below = o->best; /* everything shorter was looked at */
}
