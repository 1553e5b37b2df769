/* search_local.c: iterated local search over one batch's FAR plan (which tree node, hence
 * which size and which reconfigurations, runs each task), FAR's timing engine as the
 * evaluator, with a budget counted in work units so that results do not depend on the
 * machine's speed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/parallel.h"
#include "search_internal.h"

#define NOWHERE (-1)

typedef struct ls_move {
    int task, from, to; /* task -1: the batch's reversal toggled; -2: ranks of nodes from
                           and to exchanged; -3: the node at position from of the creation
                           order moved to position to */
    int run;            /* > 1: one of `run` moves from -> to made (and undone) together */
} ls_move;

typedef struct ls_worker {
    far_plan cur, best;
    far_engine e;
    ms_rng rng;
    int *loc; /* key (gpu * tree nodes + node) per task, NOWHERE if out */
    int *scratch;
    ls_move *undo;
    int nundo, undo_cap;
    int crit[MS_MAX_TREE_NODES];
    int ncrit; /* keys on the critical chain of the current plan */
    double mk, sec, best_mk, best_sec;
    long evals;
    double units, budget;
    int rc;
    bool one_batch;
    const far_plan *seed;
} ls_worker;

static int nkeys(const far_plan *p) { return p->gpus * p->tree.n; }
static int ntasks(const far_plan *p) { return p->w->n; }
static int node_of(const far_plan *p, int key) { return key % p->tree.n; }
static bool fits(const far_plan *p, int task, int key)
{
    return isfinite(far_time(p, task, node_of(p, key)));
}

static int copy_plan(far_plan *dst, const far_plan *src)
{
    dst->reversed[0] = src->reversed[0];
    memcpy(dst->tree.rank, src->tree.rank, sizeof dst->tree.rank);
    memcpy(dst->tree.order, src->tree.order, sizeof dst->tree.order);
    return far_plan_copy_batch(dst, 0, src, 0);
}

static void locate(ls_worker *wk)
{
    for (int k = 0; k < nkeys(&wk->cur); k++)
        for (int i = 0; i < wk->cur.list[k].n; i++)
            wk->loc[wk->cur.list[k].task[i]] = k;
}

/* Moves task between lists (NOWHERE = out of every list), without undo record. */
static int shift(ls_worker *wk, int task, int from, int to)
{
    far_plan *p = &wk->cur;
    if (from != NOWHERE) {
        far_list *l = &p->list[from];
        far_list_remove_at(p, l, node_of(p, from), far_list_find(p, l, node_of(p, from), task));
    }
    if (to != NOWHERE && far_list_insert_sorted(p, &p->list[to], node_of(p, to), task))
        return MS_ENOMEM;
    wk->loc[task] = to;
    return MS_OK;
}

/* Moves seq[0..k) (tasks of list `from`, in this order) to `to` with the result of k calls
 * of shift, in time linear in the lists (k single moves would take O(k n)). */
static int shift_seq(ls_worker *wk, const int *seq, int k, int from, int to)
{
    far_plan *p = &wk->cur;
    far_list *l = &p->list[from];
    for (int i = 0; i < k; i++) {
        l->sum -= far_time(p, seq[i], node_of(p, from));
        wk->loc[seq[i]] = to;
    }
    int n = 0;
    for (int i = 0; i < l->n; i++)
        if (wk->loc[l->task[i]] == from)
            l->task[n++] = l->task[i];
    l->n = n;
    if (n == 0)
        l->sum = 0; /* as far_list_remove_at leaves an empty list */
    return far_list_insert_seq(p, &p->list[to], node_of(p, to), seq, k) ? MS_ENOMEM : MS_OK;
}

static int record(ls_worker *wk, ls_move m)
{
    if (wk->nundo == wk->undo_cap) {
        int cap = wk->undo_cap ? wk->undo_cap * 2 : 64;
        ls_move *u = realloc(wk->undo, (size_t)cap * sizeof *u);
        if (!u)
            return MS_ENOMEM;
        wk->undo = u;
        wk->undo_cap = cap;
    }
    wk->undo[wk->nundo++] = m;
    return MS_OK;
}

static int relocate(ls_worker *wk, int task, int to)
{
    int from = wk->loc[task];
    if (record(wk, (ls_move){task, from, to, 1}))
        return MS_ENOMEM;
    return shift(wk, task, from, to);
}

/* relocate for seq[0..k), every one of list `from`, undone together. */
static int relocate_seq(ls_worker *wk, const int *seq, int k, int from, int to)
{
    for (int i = 0; i < k; i++)
        if (record(wk, (ls_move){seq[i], from, to, k}))
            return MS_ENOMEM;
    return shift_seq(wk, seq, k, from, to);
}

static void swap_rank(far_tree *t, int a, int b)
{
    int r = t->rank[a];
    t->rank[a] = t->rank[b];
    t->rank[b] = r;
}

/* The node at position `from` of the current creation order moved to position `to`. */
static void move_in_order(far_plan *p, int from, int to)
{
    int *o = p->tree.order[p->reversed[0]], v = o[from];
    if (from < to)
        memmove(o + from, o + from + 1, (size_t)(to - from) * sizeof *o);
    else
        memmove(o + to + 1, o + to, (size_t)(from - to) * sizeof *o);
    o[to] = v;
}

static int undo_all(ls_worker *wk)
{
    while (wk->nundo > 0) {
        ls_move m = wk->undo[--wk->nundo];
        if (m.run > 1) { /* the run's moves undone last first, i.e. back in reverse order */
            wk->scratch[0] = m.task;
            for (int i = 1; i < m.run; i++)
                wk->scratch[i] = wk->undo[--wk->nundo].task;
            if (shift_seq(wk, wk->scratch, m.run, m.to, m.from))
                return MS_ENOMEM;
        } else if (m.task == -1)
            wk->cur.reversed[0] = !wk->cur.reversed[0];
        else if (m.task == -2)
            swap_rank(&wk->cur.tree, m.from, m.to);
        else if (m.task == -3)
            move_in_order(&wk->cur, m.to, m.from);
        else if (shift(wk, m.task, m.to, m.from))
            return MS_ENOMEM;
    }
    return MS_OK;
}

/* Makespan and, as a tie-break that rewards freeing slices early, the instances' ends
 * weighted by their slices (unweighted, one instance split into smaller ones side by side
 * always looked worse, however early it freed the slices). */
static int evaluate(ls_worker *wk, double *mk, double *sec)
{
    if (far_engine_run(&wk->e, &wk->cur, 0, 1, false, false))
        return MS_ENOMEM;
    wk->evals++;
    wk->units += nkeys(&wk->cur) + wk->e.n + wk->nundo;
    *mk = wk->e.makespan;
    *sec = 0;
    for (int i = 0; i < wk->e.n; i++)
        *sec += wk->cur.tree.size[wk->e.inst[i].node] * wk->e.inst[i].end;
    return MS_OK;
}

/* The instance that ends last and, back through its tree predecessors, those that held it up. */
static void find_critical(ls_worker *wk)
{
    const far_engine *e = &wk->e;
    int tn = wk->cur.tree.n, i = -1;
    for (int k = 0; k < e->n; k++)
        if (i < 0 || e->inst[k].end > e->inst[i].end)
            i = k;
    wk->ncrit = 0;
    while (i >= 0 && wk->ncrit < MS_MAX_TREE_NODES) {
        const far_inst *in = &e->inst[i];
        wk->crit[wk->ncrit++] = in->gpu * tn + in->node;
        int next = -1;
        for (int j = 0; j < in->npred; j++)
            if (next < 0 || e->inst[in->pred[j]].end > e->inst[next].end)
                next = in->pred[j];
        i = next;
    }
}

static int random_task(ls_worker *wk, bool critical)
{
    if (critical && wk->ncrit > 0) {
        const far_list *l = &wk->cur.list[wk->crit[ms_rng_below(&wk->rng, wk->ncrit)]];
        if (l->n > 0)
            return l->task[ms_rng_below(&wk->rng, l->n)];
    }
    return (int)ms_rng_below(&wk->rng, ntasks(&wk->cur));
}

/* A random key other than `not` where every task of `tasks` can run; -1 after a few misses. */
static int random_key(ls_worker *wk, const int *tasks, int n, int not )
{
    for (int tries = 0; tries < 8; tries++) {
        int k = (int)ms_rng_below(&wk->rng, nkeys(&wk->cur)), ok = k != not ;
        for (int i = 0; i < n && ok; i++)
            ok = fits(&wk->cur, tasks[i], k);
        if (ok)
            return k;
    }
    return -1;
}

static int move_one(ls_worker *wk, bool critical)
{
    int t = random_task(wk, critical);
    int to = random_key(wk, &t, 1, wk->loc[t]);
    return to < 0 ? MS_OK : relocate(wk, t, to);
}

static int swap_two(ls_worker *wk)
{
    int a = random_task(wk, true), b = random_task(wk, false);
    int ka = wk->loc[a], kb = wk->loc[b];
    if (ka == kb || !fits(&wk->cur, a, kb) || !fits(&wk->cur, b, ka))
        return MS_OK;
    int rc = relocate(wk, a, kb);
    return rc ? rc : relocate(wk, b, ka);
}

/* Every task of one list to another node (re-sizes a group), or two lists exchanged
 * (swaps sizes) when `exchange`. */
static int move_group(ls_worker *wk, bool exchange)
{
    far_plan *p = &wk->cur;
    int a = random_task(wk, true), ka = wk->loc[a];
    int na = p->list[ka].n;
    memcpy(wk->scratch, p->list[ka].task, (size_t)na * sizeof *wk->scratch);
    int kb = random_key(wk, wk->scratch, na, ka);
    if (kb < 0)
        return MS_OK;
    int nb = exchange ? p->list[kb].n : 0;
    for (int i = 0; i < nb; i++) {
        if (!fits(p, p->list[kb].task[i], ka))
            return MS_OK;
        wk->scratch[na + i] = p->list[kb].task[i];
    }
    int rc = relocate_seq(wk, wk->scratch, na, ka, kb);
    return rc || nb == 0 ? rc : relocate_seq(wk, wk->scratch + na, nb, kb, ka);
}

/* A node's whole list spread over its children, longest first, each task to the child
 * whose list then ends first: one instance traded for the smaller ones on its slots, side
 * by side (what moving the tasks one at a time rarely reaches: each step alone is worse). */
static int split_group(ls_worker *wk)
{
    far_plan *p = &wk->cur;
    int key = wk->loc[random_task(wk, true)], tn = p->tree.n;
    if (key == NOWHERE)
        return MS_OK;
    int v = node_of(p, key), base = key - v, kid[MS_MAX_TREE_NODES], nk = 0;
    for (int c = 0; c < tn; c++)
        if (p->tree.parent[c] == v)
            kid[nk++] = c;
    const far_list *l = &p->list[key];
    int n = l->n, *to = wk->scratch + ntasks(p);
    double load[MS_MAX_TREE_NODES];
    for (int c = 0; c < nk; c++)
        load[c] = p->list[base + kid[c]].sum;
    for (int i = 0; i < n && nk > 0; i++) { /* the list is in decreasing time: LPT */
        int t = l->task[i], pick = -1;
        for (int c = 0; c < nk; c++)
            if (fits(p, t, base + kid[c]) &&
                (pick < 0 ||
                 load[c] + far_time(p, t, kid[c]) < load[pick] + far_time(p, t, kid[pick])))
                pick = c;
        if (pick < 0)
            return MS_OK;
        load[pick] += far_time(p, t, kid[pick]);
        to[i] = pick;
    }
    int rc = MS_OK;
    for (int c = 0; c < nk && !rc; c++) { /* each child's tasks as one run */
        int k = 0, m = 0;
        for (int i = 0; i < n; i++) {
            if (to[i] == c)
                wk->scratch[k++] = l->task[i];
            else
                to[m++] = to[i]; /* the parent's list, once these leave it */
        }
        n = m;
        if (k > 0)
            rc = relocate_seq(wk, wk->scratch, k, key, base + kid[c]);
    }
    return rc;
}

/* Ruin and recreate: a few tasks (critical ones first) taken out, then put back one by one
 * where the plan ends earliest. */
static int ruin_recreate(ls_worker *wk)
{
    int k = 2 + (int)ms_rng_below(&wk->rng, 3), n = 0, rc = MS_OK;
    if (k > ntasks(&wk->cur))
        k = ntasks(&wk->cur);
    for (int i = 0; i < k && !rc; i++) {
        int t = random_task(wk, i == 0);
        if (wk->loc[t] == NOWHERE)
            continue;
        wk->scratch[n++] = t;
        rc = relocate(wk, t, NOWHERE);
    }
    for (int i = 0; i < n && !rc; i++) {
        int t = wk->scratch[i], best = -1;
        double bmk = INFINITY, bsec = INFINITY;
        for (int key = 0; key < nkeys(&wk->cur) && !rc; key++) {
            if (!fits(&wk->cur, t, key))
                continue;
            /* t tried on key: the estimate (exact = false) reads only the lists' counts
             * and running sums, so t is counted in and out as insertion and removal
             * would, without moving the list. */
            far_list *l = &wk->cur.list[key];
            double d = far_time(&wk->cur, t, node_of(&wk->cur, key)), mk, sec;
            l->sum += d;
            l->n++;
            rc = evaluate(wk, &mk, &sec);
            l->n--;
            l->sum = l->n == 0 ? 0 : l->sum - d;
            if (rc)
                break;
            if (mk < bmk || (mk == bmk && sec < bsec))
                bmk = mk, bsec = sec, best = key;
        }
        if (!rc)
            rc = relocate(wk, t, best);
    }
    return rc;
}

/* A used node (one of a critical task's, with priority) moved to another position of the
 * creation order: an instance created before or after the instances it overlaps, which
 * mixes the tree's directions (a parent created after its children, say). */
static int move_node_in_order(ls_worker *wk)
{
    far_plan *p = &wk->cur;
    int key = wk->loc[random_task(wk, true)], tn = p->tree.n;
    if (key == NOWHERE)
        return MS_OK;
    const int *o = p->tree.order[p->reversed[0]];
    int from = 0, to = (int)ms_rng_below(&wk->rng, tn);
    while (o[from] != node_of(p, key))
        from++;
    if (from == to)
        return MS_OK;
    move_in_order(p, from, to);
    return record(wk, (ls_move){-3, from, to, 1});
}

static int random_move(ls_worker *wk)
{
    double r = ms_rng_uniform(&wk->rng);
    if (r < 0.33)
        return move_one(wk, true);
    if (r < 0.56)
        return swap_two(wk);
    if (r < 0.66)
        return move_group(wk, false);
    if (r < 0.74)
        return move_group(wk, true);
    if (r < 0.76)
        return split_group(wk);
    if (r < 0.90)
        return ruin_recreate(wk);
    if (wk->one_batch && r < 0.92) {
        wk->cur.reversed[0] = !wk->cur.reversed[0];
        return record(wk, (ls_move){-1, 0, 0, 1});
    }
    if (wk->one_batch && r < 0.96) { /* which of two instances ready together is created first */
        int a = (int)ms_rng_below(&wk->rng, wk->cur.tree.n);
        int b = (int)ms_rng_below(&wk->rng, wk->cur.tree.n);
        if (a == b)
            return MS_OK;
        swap_rank(&wk->cur.tree, a, b);
        return record(wk, (ls_move){-2, a, b, 1});
    }
    if (wk->one_batch)
        return move_node_in_order(wk);
    return move_one(wk, false);
}

static bool no_worse(double mk, double sec, double cmk, double csec)
{
    double eps = 1e-9 * cmk;
    return mk < cmk - eps || (mk <= cmk + eps && sec <= csec + eps);
}

static bool better(double mk, double sec, double cmk, double csec)
{
    double eps = 1e-9 * cmk;
    return mk < cmk - eps || (mk <= cmk + eps && sec < csec - eps);
}

static int restart_from_best(ls_worker *wk)
{
    int rc = copy_plan(&wk->cur, &wk->best);
    if (rc)
        return rc;
    locate(wk);
    int k = 2 + (int)ms_rng_below(&wk->rng, 4);
    for (int i = 0; i < k && !rc; i++)
        rc = move_one(wk, i == 0);
    wk->nundo = 0;
    if (!rc && !(rc = evaluate(wk, &wk->mk, &wk->sec)))
        find_critical(wk);
    return rc;
}

static int run_worker(ls_worker *wk)
{
    int rc;
    if ((rc = copy_plan(&wk->cur, wk->seed)) || (rc = copy_plan(&wk->best, wk->seed)))
        return rc;
    locate(wk);
    if ((rc = evaluate(wk, &wk->mk, &wk->sec)))
        return rc;
    find_critical(wk);
    wk->best_mk = wk->mk, wk->best_sec = wk->sec;
    /* Restarts pay off more often on small batches (measured on n = 5 to 14, EXPERIMENTS.md):
     * patience grows with the neighbourhood, about n^2 moves. */
    long n = ntasks(&wk->cur), since_best = 0, patience = 8 + 4 * n * n / 5;
    while (wk->units < wk->budget && ntasks(&wk->cur) > 0) {
        wk->nundo = 0;
        double mk, sec;
        if ((rc = random_move(wk)))
            return rc;
        if (wk->nundo == 0)
            continue;
        if ((rc = evaluate(wk, &mk, &sec)))
            return rc;
        if (!no_worse(mk, sec, wk->mk, wk->sec)) {
            if ((rc = undo_all(wk)))
                return rc;
        } else {
            wk->mk = mk, wk->sec = sec;
            find_critical(wk);
        }
        if (better(wk->mk, wk->sec, wk->best_mk, wk->best_sec)) {
            if ((rc = copy_plan(&wk->best, &wk->cur)))
                return rc;
            wk->best_mk = wk->mk, wk->best_sec = wk->sec;
            since_best = 0;
        } else if (++since_best > patience) {
            if ((rc = restart_from_best(wk)))
                return rc;
            since_best = 0;
        }
    }
    return MS_OK;
}

static void worker_main(int t, void *ctx)
{
    ls_worker *wk = (ls_worker *)ctx + t;
    wk->rc = run_worker(wk);
}

static void worker_free(ls_worker *wk)
{
    far_plan_free(&wk->cur);
    far_plan_free(&wk->best);
    far_engine_free(&wk->e);
    free(wk->loc);
    free(wk->scratch);
    free(wk->undo);
}

static int worker_init(ls_worker *wk, const far_plan *like, const ms_initial *initial)
{
    memset(wk, 0, sizeof *wk);
    int n = like->w->n > 0 ? like->w->n : 1;
    int a = far_plan_init(&wk->cur, like->w, like->gpu, like->gpus, 1);
    int b = far_plan_init(&wk->best, like->w, like->gpu, like->gpus, 1);
    wk->e.initial = initial;
    wk->loc = malloc((size_t)n * sizeof *wk->loc);
    wk->scratch = malloc((size_t)2 * n * sizeof *wk->scratch);
    return a || b || !wk->loc || !wk->scratch ? MS_ENOMEM : MS_OK;
}

int search_improve(far_plan *best, far_plan *const *seeds, int nseeds, const ms_initial *initial,
                   uint64_t seed, double budget_units, int threads, bool one_batch,
                   long *evaluations, double *units)
{
    if (threads < 1)
        threads = 1;
    if (threads > SEARCH_MAX_THREADS)
        threads = SEARCH_MAX_THREADS;
    ls_worker *wk = calloc((size_t)threads, sizeof *wk);
    int rc = wk ? MS_OK : MS_ENOMEM;
    ms_rng root;
    ms_rng_seed(&root, seed);
    for (int t = 0; t < threads && !rc; t++) {
        rc = worker_init(&wk[t], best, initial);
        wk[t].rng = ms_rng_split(&root, (uint64_t)t);
        wk[t].budget = budget_units;
        wk[t].one_batch = one_batch;
        wk[t].seed = seeds[t % nseeds];
    }
    if (!rc)
        ms_parallel_for(threads, threads, worker_main, wk);
    int pick = -1;
    *evaluations = 0;
    *units = 0;
    for (int t = 0; t < threads && wk; t++) {
        if (!rc)
            rc = wk[t].rc;
        *evaluations += wk[t].evals;
        *units += wk[t].units;
        if (!rc && (pick < 0 || wk[t].best_mk < wk[pick].best_mk))
            pick = t;
    }
    if (!rc && pick >= 0)
        rc = copy_plan(best, &wk[pick].best);
    for (int t = 0; t < threads && wk; t++)
        worker_free(&wk[t]);
    free(wk);
    return rc;
}
