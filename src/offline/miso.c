/* miso.c: MISO-OPT (paper 000 6.5, after Li et al. SoCC'22): FIFO rounds, each on the
 * partition that maximises the summed speedups of the next |P| tasks; only the instances
 * that change are destroyed/created, one at a time. Readings in docs/baselines.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/offline.h"

#define MAX_STATES 256 /* prod(count of each size + 1) over a partition's sizes */

/* Speedup t(1)/t(s); a task that cannot run on 1 slice uses its smallest runnable size s0
 * as s0 * t(s0) for t(1) (linear extrapolation). 0 where it cannot run. */
static double speedup(const ms_task *t, const ms_gpu_model *gpu, int s)
{
    if (!isfinite(t->time[s]))
        return 0.0;
    for (int k = 0; k < gpu->nsizes; k++) {
        int s0 = gpu->sizes[k];
        if (isfinite(t->time[s0]))
            return s0 * t->time[s0] / t->time[s];
    }
    return 0.0;
}

/* One round's decision for one partition. */
typedef struct choice {
    int part;
    int m;                       /* window tasks placed */
    bool full;                   /* the whole window was placed */
    int group[MS_MAX_INSTANCES]; /* window task j -> size group */
    double score, reconfig;
} choice;

/* Size groups of a partition's instances that are free (not running a task at time t):
 * distinct sizes, and their instances in slot order. */
typedef struct groups {
    int n, total;
    int size[MS_MAX_INSTANCES];
    int count[MS_MAX_INSTANCES];
    int inst[MS_MAX_INSTANCES][MS_MAX_INSTANCES];
} groups;

/* Best assignment of tasks[0..m) to the partition's size groups (max summed speedup) by a
 * DP over tasks x used-counts; keeps the longest placeable prefix. */
static void best_assignment(const ms_workload *w, const ms_gpu_model *gpu, const groups *g,
                            int first, int m, choice *c)
{
    static const double NONE = -1.0;
    double f[MS_MAX_INSTANCES + 1][MAX_STATES];
    signed char how[MS_MAX_INSTANCES + 1][MAX_STATES];
    int mult[MS_MAX_INSTANCES], nstates = 1;
    for (int x = 0; x < g->n; x++) {
        mult[x] = nstates;
        nstates *= g->count[x] + 1;
    }
    for (int j = 0; j <= m; j++)
        for (int st = 0; st < nstates; st++)
            f[j][st] = NONE;
    f[0][0] = 0.0;
    int placed = 0;
    for (int j = 0; j < m; j++) {
        const ms_task *t = &w->tasks[first + j];
        for (int st = 0; st < nstates; st++) {
            if (f[j][st] < 0)
                continue;
            for (int x = 0; x < g->n; x++) {
                double sp = speedup(t, gpu, g->size[x]);
                if ((st / mult[x]) % (g->count[x] + 1) == g->count[x] || sp <= 0)
                    continue;
                int nx = st + mult[x];
                if (f[j][st] + sp > f[j + 1][nx]) {
                    f[j + 1][nx] = f[j][st] + sp;
                    how[j + 1][nx] = (signed char)x;
                }
            }
        }
        bool reached = false;
        for (int st = 0; st < nstates && !reached; st++)
            reached = f[j + 1][st] >= 0;
        if (!reached)
            break;
        placed = j + 1;
    }
    int best = -1;
    for (int st = 0; st < nstates; st++)
        if (f[placed][st] >= 0 && (best < 0 || f[placed][st] > f[placed][best]))
            best = st;
    c->m = placed;
    c->full = placed == m;
    c->score = best >= 0 ? f[placed][best] : NONE;
    for (int j = placed; j > 0; j--) {
        c->group[j - 1] = how[j][best];
        best -= mult[(int)how[j][best]];
    }
}

/* Per GPU: its alive instances, when each is busy until, when its last round ends and
 * when its reconfigurations are done (the driver runs them one at a time). */
typedef struct gpu_state {
    double free_at, reconf_at;
    int nalive;
    ms_placement alive[MS_MAX_INSTANCES];
    int alive_id[MS_MAX_INSTANCES];
    double busy_until[MS_MAX_INSTANCES];
} gpu_state;

static int find_alive(const gpu_state *g, ms_placement p)
{
    for (int a = 0; a < g->nalive; a++)
        if (g->alive[a].profile == p.profile && g->alive[a].start == p.start)
            return a;
    return -1;
}

static bool busy_at(const gpu_state *g, ms_placement p, double t)
{
    int a = find_alive(g, p);
    return a >= 0 && g->busy_until[a] > t;
}

static bool in_partition(const ms_partition *p, ms_placement pl)
{
    for (int k = 0; k < p->n; k++)
        if (p->inst[k].profile == pl.profile && p->inst[k].start == pl.start)
            return true;
    return false;
}

/* The partition's instances free at time t, by size; false when P would need an instance
 * that is running a task to go. */
static bool make_groups(const ms_gpu_model *gpu, const ms_partition *p, const gpu_state *g,
                        double t, groups *gr)
{
    for (int a = 0; a < g->nalive; a++)
        if (g->busy_until[a] > t && !in_partition(p, g->alive[a]))
            return false;
    memset(gr, 0, sizeof *gr);
    for (int k = 0; k < p->n; k++) {
        if (busy_at(g, p->inst[k], t))
            continue;
        int s = gpu->profiles[p->inst[k].profile].slices, x = 0;
        while (x < gr->n && gr->size[x] != s)
            x++;
        if (x == gr->n)
            gr->size[gr->n++] = s;
        gr->inst[x][gr->count[x]++] = k;
        gr->total++;
    }
    return true;
}

/* Seconds of destroying what leaves and creating what arrives (tie-break only). */
static double reconfig_cost(const ms_gpu_model *gpu, const gpu_state *g, const ms_partition *p)
{
    double c = 0;
    for (int a = 0; a < g->nalive; a++)
        if (!in_partition(p, g->alive[a]))
            c += gpu->destroy_s[gpu->profiles[g->alive[a].profile].slices];
    for (int k = 0; k < p->n; k++)
        if (find_alive(g, p->inst[k]) < 0)
            c += gpu->create_s[gpu->profiles[p->inst[k].profile].slices];
    return c;
}

/* Better: places the whole window, then higher score, then cheaper reconfiguration;
 * equal keys keep the earlier partition. */
static bool better(const choice *a, const choice *b)
{
    if (a->full != b->full)
        return a->full;
    double tol = 1e-9 * fmax(1.0, fabs(b->score));
    if (fabs(a->score - b->score) > tol)
        return a->score > b->score;
    return a->reconfig < b->reconfig - 1e-12;
}

/* The best partition for the next tasks given what runs at time t; false when the next
 * task fits no free instance of any partition that keeps the running ones. */
static bool choose(const ms_workload *w, const ms_gpu_model *gpu, const gpu_state *g, double t,
                   int next, choice *out)
{
    bool found = false;
    for (int k = 0; k < gpu->npartitions; k++) {
        const ms_partition *p = &gpu->partitions[k];
        groups gr;
        if (!make_groups(gpu, p, g, t, &gr))
            continue;
        choice c = {.part = k};
        int m = w->n - next < gr.total ? w->n - next : gr.total;
        best_assignment(w, gpu, &gr, next, m, &c);
        if (c.m == 0)
            continue;
        c.reconfig = reconfig_cost(gpu, g, p);
        if (!found || better(&c, out)) {
            *out = c;
            found = true;
        }
    }
    return found;
}

/* Carries out a decision at time t on GPU gi: destroy the idle instances that leave,
 * create the used instances that are new (slot order, one at a time), start each task
 * when its instance exists. Returns the last end among the tasks started. */
static int apply(ms_schedule *s, const ms_workload *w, const ms_gpu_model *gpu, int gi,
                 gpu_state *g, double t, int next, const choice *c, double *last_end)
{
    const ms_partition *p = &gpu->partitions[c->part];
    groups gr;
    make_groups(gpu, p, g, t, &gr);
    double clock = fmax(t, g->reconf_at);
    gpu_state keep = *g;
    keep.nalive = 0;
    for (int a = 0; a < g->nalive; a++) {
        if (in_partition(p, g->alive[a])) {
            keep.alive[keep.nalive] = g->alive[a];
            keep.busy_until[keep.nalive] = g->busy_until[a];
            keep.alive_id[keep.nalive++] = g->alive_id[a];
            continue;
        }
        ms_sched_instance *in = &s->inst[g->alive_id[a]];
        in->destroy_start = clock;
        clock += gpu->destroy_s[gpu->profiles[g->alive[a].profile].slices];
        in->destroy_end = clock;
    }
    /* Per group, the instances used: alive ones first (ready now), then new ones. */
    int used[MS_MAX_INSTANCES] = {0}, order[MS_MAX_INSTANCES][MS_MAX_INSTANCES];
    bool create[MS_MAX_INSTANCES] = {false};
    for (int j = 0; j < c->m; j++)
        used[c->group[j]]++;
    for (int x = 0; x < gr.n; x++) {
        int n = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < gr.count[x]; i++) {
                int k = gr.inst[x][i];
                if ((find_alive(&keep, p->inst[k]) >= 0) == (pass == 0))
                    order[x][n++] = k;
            }
        for (int i = 0; i < used[x]; i++)
            create[order[x][i]] = find_alive(&keep, p->inst[order[x][i]]) < 0;
    }
    double ready[MS_MAX_INSTANCES];
    for (int k = 0; k < p->n; k++) {
        ready[k] = t;
        if (!create[k])
            continue;
        double t0 = clock;
        clock += gpu->create_s[gpu->profiles[p->inst[k].profile].slices];
        int id = ms_schedule_add_instance(s, gi, p->inst[k].profile, p->inst[k].start, t0, clock,
                                          NAN, NAN);
        if (id < 0)
            return MS_ENOMEM;
        ready[k] = clock;
        keep.alive[keep.nalive] = p->inst[k];
        keep.busy_until[keep.nalive] = -INFINITY;
        keep.alive_id[keep.nalive++] = id;
    }
    keep.reconf_at = clock;
    int taken[MS_MAX_INSTANCES] = {0};
    *last_end = t;
    for (int j = 0; j < c->m; j++) {
        int x = c->group[j], k = order[x][taken[x]++], a = find_alive(&keep, p->inst[k]);
        double dur = w->tasks[next + j].time[gr.size[x]];
        if (ms_schedule_add_task(s, next + j, keep.alive_id[a], ready[k], ready[k] + dur))
            return MS_ENOMEM;
        keep.busy_until[a] = ready[k] + dur;
        *last_end = fmax(*last_end, ready[k] + dur);
    }
    *g = keep;
    return MS_OK;
}

static int no_fit(const ms_workload *w, const ms_gpu_model *gpu, int next, const char *algo,
                  ms_error *err)
{
    return ms_error_set(err, MS_EINFEASIBLE, "%s: task %d (%s) fits no partition of %s", algo, next,
                        w->tasks[next].name, gpu->name);
}

/* A new schedule named algo on gpus GPUs, each holding its initial instances (listed
 * without creation; a busy one stays until it is free). */
static int begin(const ms_gpu_model *gpu, int gpus, const ms_initial *initial, const char *algo,
                 ms_schedule **s, gpu_state **st, ms_error *err)
{
    if (gpus < 1)
        return ms_error_set(err, MS_EINVAL, "%s: need at least one GPU (got %d)", algo, gpus);
    *s = ms_schedule_new(gpu, gpus, algo);
    *st = calloc((size_t)gpus, sizeof **st);
    bool oom = !*s || !*st;
    for (int g = 0; g < gpus && !oom; g++) {
        gpu_state *x = &(*st)[g];
        x->nalive = ms_initial_on_gpu(initial, g, x->alive, x->busy_until);
        for (int a = 0; a < x->nalive && !oom; a++) {
            x->alive_id[a] = ms_schedule_add_instance(*s, g, x->alive[a].profile, x->alive[a].start,
                                                      NAN, NAN, NAN, NAN);
            oom = x->alive_id[a] < 0;
        }
    }
    if (oom) {
        ms_schedule_free(*s);
        free(*st);
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", algo);
    }
    return MS_OK;
}

/* Frees the GPU states; hands out the normalized schedule, or frees it if rc is an error. */
static int finish(ms_schedule *s, gpu_state *st, int rc, ms_schedule **out)
{
    free(st);
    if (rc) {
        ms_schedule_free(s);
        return rc;
    }
    ms_schedule_normalize(s);
    *out = s;
    return MS_OK;
}

int ms_miso_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                     const ms_initial *initial, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    ms_schedule *s = NULL;
    gpu_state *st = NULL;
    int rc = begin(gpu, gpus, initial, "miso", &s, &st, err), rounds = 0;
    if (rc)
        return rc;
    for (int next = 0; next < w->n; rounds++) {
        int gi = 0;
        for (int x = 1; x < gpus; x++)
            if (st[x].free_at < st[gi].free_at)
                gi = x;
        choice c;
        if (!choose(w, gpu, &st[gi], st[gi].free_at, next, &c)) {
            rc = no_fit(w, gpu, next, "miso", err);
            goto done;
        }
        double end;
        if (apply(s, w, gpu, gi, &st[gi], st[gi].free_at, next, &c, &end)) {
            rc = ms_error_set(err, MS_ENOMEM, "miso: out of memory");
            goto done;
        }
        st[gi].free_at = end; /* the next round waits for this one */
        next += c.m;
    }
    ms_schedule_set_stat(s, "rounds", rounds);
done:
    return finish(s, st, rc, out);
}

/* The next time a task ends on any GPU after t (INFINITY if none runs). */
static double next_event(const gpu_state *st, int gpus, double t)
{
    double nt = INFINITY;
    for (int gi = 0; gi < gpus; gi++)
        for (int a = 0; a < st[gi].nalive; a++)
            if (st[gi].busy_until[a] > t)
                nt = fmin(nt, st[gi].busy_until[a]);
    return nt;
}

int ms_miso_eager_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_initial *initial, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    ms_schedule *s = NULL;
    gpu_state *st = NULL;
    int rc = begin(gpu, gpus, initial, "miso-eager", &s, &st, err), decisions = 0, next = 0;
    if (rc)
        return rc;
    for (double t = 0; next < w->n; t = next_event(st, gpus, t)) {
        if (isinf(t)) { /* nothing runs and the next task fits nowhere */
            rc = no_fit(w, gpu, next, "miso-eager", err);
            goto done;
        }
        for (int gi = 0; gi < gpus && next < w->n; gi++) {
            choice c;
            double end;
            if (!choose(w, gpu, &st[gi], t, next, &c))
                continue;
            if (apply(s, w, gpu, gi, &st[gi], t, next, &c, &end)) {
                rc = ms_error_set(err, MS_ENOMEM, "miso-eager: out of memory");
                goto done;
            }
            next += c.m;
            decisions++;
        }
    }
    ms_schedule_set_stat(s, "decisions", decisions);
done:
    return finish(s, st, rc, out);
}
