/* cluster_sim.c: the cluster simulator's loop: jobs arrive at Slurm, which admits them in
 * FIFO order with backfill (one reservation, for the oldest blocked job) to the node
 * select/cons_tres chooses by counts (cluster_slurm.c); each node is the online
 * simulator, fed its jobs as Slurm admits them, placing them itself and queueing those it
 * cannot place yet (a plugin wait). Events run in time order over the nodes (the earliest
 * node first, by a tree), and before an arrival at the same time. Slurm's delays
 * (ms_online_slurm_timing): a job holds its counts and instance `launch` past its work; an
 * arrival is scheduled at the next `tick` (a job's end schedules at once), after the node
 * events and arrivals of that time; with `backfill`, a pass at a job's end or a tick stops
 * at the first blocked job and the backfill runs at multiples of `backfill` alone. */
#include "cluster_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct mcl_node {
    msi_sim sim;
    ms_online_workload w; /* the jobs Slurm gave it, in admission order */
    ms_online_result r;
    int *global; /* cluster index of each of its jobs */
    int cap_global;
} mcl_node;

typedef struct mcl {
    const ms_online_workload *w;
    const ms_online_cluster_config *c;
    const int *res, *amount, *type;
    ms_online_cluster_result *r;
    int N;
    mcl_node *node;
    msi_frag_table *ft; /* shared by the nodes */
    mcs_slurm sl;
    msi_mintree next;                 /* each node's next event time */
    int *pnext, *pprev, phead, ptail; /* Slurm's pending jobs, oldest first */
    int *local;                       /* each job's index on its node, -1 before */
    bool *waited;                     /* queued on its node when admitted */
    int arrivals;
    int unseen; /* the first arrival no pass has run after */
    double now;
    double tick_due;      /* the tick that schedules the last arrivals; INFINITY: none */
    double backfill_last; /* the last backfill pass; -INFINITY before the first */
    bool changed;         /* an arrival or an end since the last backfill pass */
} mcl;

static double node_next(const mcl_node *nd) { return nd->sim.nheap ? nd->sim.heap[0].t : INFINITY; }

/* Times are >= 0, whose bit patterns order as the numbers do. */
static void rekey(mcl *x, int n)
{
    double t = node_next(&x->node[n]);
    uint64_t key = MSI_NONE;
    if (isfinite(t))
        memcpy(&key, &t, sizeof key);
    msi_mintree_set(&x->next, n, key);
}

static void pend(mcl *x, int j)
{
    x->pnext[j] = -1;
    x->pprev[j] = x->ptail;
    if (x->ptail >= 0)
        x->pnext[x->ptail] = j;
    else
        x->phead = j;
    x->ptail = j;
}

static void unpend(mcl *x, int j)
{
    if (x->pprev[j] >= 0)
        x->pnext[x->pprev[j]] = x->pnext[j];
    else
        x->phead = x->pnext[j];
    if (x->pnext[j] >= 0)
        x->pprev[x->pnext[j]] = x->pprev[j];
    else
        x->ptail = x->pprev[j];
}

static int oom(ms_error *err)
{
    return ms_error_set(err, MS_ENOMEM, "out of memory in the cluster simulator");
}

/* slurm-node (dynamic): node n's slice count as migschedd keeps it, the slices its jobs'
 * instances hold plus the largest instance it can place now, at least the largest profile
 * (the daemon's md_slurm_count); free is that less what Slurm gave the node's jobs. */
static bool slurm_node_count(mcl *x, int n)
{
    if (!x->c->slurm.node_count || x->c->policy != MS_CLUSTER_DYNAMIC)
        return false;
    const msi_sim *s = &x->node[n].sim;
    const ms_gpu_model *m = s->m;
    int held = 0, placeable = 0, floor = 0;
    for (int g = 0; g < s->G; g++)
        for (int k = 0; k < m->slots; k++) {
            const msi_inst *in = &s->gpu[g].inst[k];
            if (in->profile >= 0 && in->job >= 0)
                held += m->profiles[in->profile].slices;
        }
    for (int p = 0; p < m->nprofiles; p++) {
        int sl = m->profiles[p].slices;
        floor = sl > floor ? sl : floor;
        if (sl > placeable && msi_mintree_argmin(&s->place[p]) >= 0)
            placeable = sl;
    }
    int before = x->sl.node[n].free[0];
    mcs_set_count(&x->sl, n, 0, held + placeable > floor ? held + placeable : floor);
    return x->sl.node[n].free[0] != before;
}

/* How long job j holds what Slurm gave it: its work and Slurm's launch and end. */
static double held_for(const mcl *x, int j) { return x->w->jobs[j].work + x->c->slurm.launch; }

/* Job j's time limit as Slurm plans with it: what it holds, or with a limit unit U its work
 * in whole units plus one (sbatch --time in whole minutes). */
static double limit_of(const mcl *x, int j)
{
    double u = x->c->slurm.limit_unit;
    return u > 0 ? u * (ceil(x->w->jobs[j].work / u) + 1) : held_for(x, j);
}

/* Slurm starts job j on node n: its counts are taken until its time limit (its work), and
 * the node's simulator receives it. */
static int admit(mcl *x, int j, int n, ms_error *err)
{
    mcl_node *nd = &x->node[n];
    int l = nd->w.n;
    if (!msi_reserve(&nd->w.jobs, l, &nd->w.cap, sizeof *nd->w.jobs, 16) ||
        !msi_reserve(&nd->global, l, &nd->cap_global, sizeof *nd->global, 16) ||
        mcs_allocate(&x->sl, n, j, x->res[j], x->amount[j], x->now + limit_of(x, j)))
        return oom(err);
    nd->w.jobs[nd->w.n++] = (ms_online_job){x->now, x->type[j], held_for(x, j), -1};
    nd->global[l] = j;
    x->local[j] = l;
    unpend(x, j);
    x->r->admitted[j] = x->now;
    x->r->node[j] = n;
    int rc = msi_sim_admit(&nd->sim, l, x->now, err);
    x->waited[j] = nd->sim.job[l].state == MSI_J_QUEUED;
    rekey(x, n);
    slurm_node_count(x, n);
    return rc;
}

/* One scheduling pass over the pending jobs, oldest first: each starts on the node
 * cons_tres picks while none is blocked; after the first blocked one (which gets the
 * reservation), a later job starts only where it does not delay that reservation: off the
 * reserved node or resource, ending before the reserved start, or within what the
 * reservation leaves free. */
static int schedule(mcl *x, bool backfill, ms_error *err)
{
    int blocked = -1;
    mcs_resv rv = {.node = -1};
    for (int j = x->phead, next; j >= 0; j = next) {
        next = x->pnext[j];
        if (!mcs_anything_free(&x->sl))
            break;
        int res = x->res[j], amt = x->amount[j], n;
        if (blocked < 0) {
            if ((n = mcs_select(&x->sl, res, amt, -1)) < 0) {
                if (!backfill)
                    break;
                blocked = j;
                mcs_reserve(&x->sl, res, amt, x->now, &rv);
                continue;
            }
        } else {
            bool bound = rv.node >= 0 && res == rv.res && x->now + limit_of(x, j) > rv.start;
            if ((n = mcs_select(&x->sl, res, amt, bound && amt > rv.extra ? rv.node : -1)) < 0)
                continue;
            if (bound && n == rv.node)
                rv.extra -= amt;
            x->r->backfilled++;
        }
        int rc = admit(x, j, n, err);
        if (rc)
            return rc;
    }
    for (; x->unseen < x->arrivals; x->unseen++)
        x->r->held += x->local[x->unseen] < 0;
    return MS_OK;
}

/* The first multiple of `period` at or after t. */
static double next_multiple(double t, double period)
{
    double v = ceil(t / period) * period;
    return v < t ? v + period : v;
}

/* The next backfill pass: while jobs are pending and anything may still change (an event
 * to come, or one since the last pass). */
static double backfill_next(const mcl *x, bool events_left)
{
    double b = x->c->slurm.backfill;
    if (b <= 0 || x->phead < 0 || (!events_left && !x->changed))
        return INFINITY;
    double t = next_multiple(x->now, b);
    return t > x->backfill_last ? t : t + b;
}

/* A pass at a tick: the main scheduler's for the arrivals it was due for, the backfill's
 * at its multiples. */
static int tick(mcl *x, double t, double tb, ms_error *err)
{
    x->now = t;
    bool backfill = t == tb;
    if (t == x->tick_due)
        x->tick_due = INFINITY;
    if (backfill) {
        x->backfill_last = t;
        x->changed = false;
    }
    return x->phead >= 0 ? schedule(x, backfill, err) : MS_OK;
}

/* The earliest event: a node's (before an arrival at the same time), an arrival, or a
 * tick (after both). */
static int step(mcl *x, ms_error *err)
{
    int n = msi_mintree_argmin(&x->next);
    double tn = n >= 0 ? node_next(&x->node[n]) : INFINITY;
    double ta = x->arrivals < x->w->n ? x->w->jobs[x->arrivals].arrival : INFINITY;
    double tb = backfill_next(x, isfinite(tn) || isfinite(ta));
    double tt = x->tick_due < tb ? x->tick_due : tb;
    bool no_backfill_at_once = x->c->slurm.backfill <= 0;
    if (tt < tn && tt < ta)
        return tick(x, tt, tb, err);
    if (tn <= ta) {
        mcl_node *nd = &x->node[n];
        int fin, rc;
        x->now = tn;
        if ((rc = msi_sim_step(&nd->sim, &fin, err)))
            return rc;
        if (nd->sim.failed)
            return oom(err);
        rekey(x, n);
        if (fin >= 0)
            mcs_release(&x->sl, n, nd->global[fin]);
        /* Slurm schedules at a job's end and at a node's new count (an update_node). */
        if (!slurm_node_count(x, n) && fin < 0)
            return MS_OK;
        x->changed = true;
        return x->phead >= 0 ? schedule(x, no_backfill_at_once, err) : MS_OK;
    }
    int j = x->arrivals++;
    x->now = ta;
    pend(x, j);
    x->changed = true;
    int rc = MS_OK;
    if (x->c->slurm.tick > 0) {
        if (!isfinite(x->tick_due))
            x->tick_due = next_multiple(ta, x->c->slurm.tick);
    } else {
        rc = schedule(x, no_backfill_at_once, err);
    }
    return rc;
}

static int setup(mcl *x, const ms_gpu_model *m, ms_error *err)
{
    const ms_online_cluster_config *c = x->c;
    int n = x->w->n, G = c->node.gpus;
    x->N = c->nodes;
    x->phead = x->ptail = -1;
    x->node = calloc((size_t)x->N, sizeof *x->node);
    x->pnext = malloc((size_t)n * sizeof *x->pnext);
    x->pprev = malloc((size_t)n * sizeof *x->pprev);
    x->local = malloc((size_t)n * sizeof *x->local);
    x->waited = calloc((size_t)n, sizeof *x->waited);
    x->ft = malloc(sizeof *x->ft);
    if (!x->node || !x->pnext || !x->pprev || !x->local || !x->waited || !x->ft ||
        msi_mintree_init(&x->next, x->N))
        return oom(err);
    for (int j = 0; j < n; j++)
        x->local[j] = -1;
    msi_frag_table_init(x->ft, m);
    int free[MS_MAX_PROFILES] = {0}, nres = 1;
    bool is_static = c->policy == MS_CLUSTER_STATIC;
    if (is_static) {
        nres = m->nprofiles;
        for (int g = 0; g < G; g++)
            for (int i = 0; i < c->layout[g].n; i++)
                free[c->layout[g].inst[i].profile]++;
    } else {
        free[0] = G * m->slices;
    }
    if (mcs_init(&x->sl, x->N, nres, free, c->node_cpus))
        return oom(err);
    for (int k = 0; k < x->N; k++)
        if (msi_sim_init(&x->node[k].sim, m, &x->node[k].w, &c->node, is_static ? c->layout : NULL,
                         true, x->ft, &x->node[k].r))
            return oom(err);
    for (int k = 0; k < x->N; k++)
        slurm_node_count(x, k);
    return MS_OK;
}

/* The nodes' results back in the workload's order. */
static int collect(mcl *x, ms_error *err)
{
    ms_online_cluster_result *r = x->r;
    for (int k = 0; k < x->N; k++) {
        mcl_node *nd = &x->node[k];
        int rc = msi_sim_finish(&nd->sim, err);
        if (rc)
            return rc;
        for (int l = 0; l < nd->w.n; l++) {
            int j = nd->global[l];
            r->start[j] = nd->r.start[l];
            r->end[j] = nd->r.end[l];
            r->type[j] = x->type[j];
            r->plugin_wait[j] = x->waited[j] ? nd->sim.job[l].placed - r->admitted[j] : 0.0;
        }
        r->creations += nd->r.creations;
        r->destructions += nd->r.destructions;
        r->migrations += nd->r.total_migrations;
        r->events += nd->r.events;
    }
    return MS_OK;
}

static void teardown(mcl *x)
{
    for (int k = 0; x->node && k < x->N; k++) {
        msi_sim_free(&x->node[k].sim);
        ms_online_result_fini(&x->node[k].r);
        ms_online_workload_fini(&x->node[k].w);
        free(x->node[k].global);
    }
    free(x->node);
    free(x->pnext);
    free(x->pprev);
    free(x->local);
    free(x->waited);
    free(x->ft);
    mcs_free(&x->sl);
    msi_mintree_free(&x->next);
}

int mcl_run(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_cluster_config *c,
            const int *res, const int *amount, const int *type, ms_online_cluster_result *r,
            ms_error *err)
{
    mcl x = {.w = w,
             .c = c,
             .res = res,
             .amount = amount,
             .type = type,
             .r = r,
             .tick_due = INFINITY,
             .backfill_last = -INFINITY};
    int rc = setup(&x, m, err);
    while (!rc && (x.arrivals < w->n || msi_mintree_argmin(&x.next) >= 0 || isfinite(x.tick_due) ||
                   isfinite(backfill_next(&x, false))))
        rc = step(&x, err);
    if (!rc && x.phead >= 0)
        rc = ms_error_set(err, MS_EINFEASIBLE, "job %d was never admitted to a node", x.phead);
    if (!rc)
        rc = collect(&x, err);
    teardown(&x);
    return rc;
}
