/* bruteforce.c: the test oracle: the optimal makespan of a tiny batch (n <= 4, one GPU)
 * by exhaustive search over valid schedules, and the random tiny workloads it is run on. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bruteforce.h"
#include "support.h"

#define INF INFINITY

ms_workload *bf_workload(int n, const double times[][MS_MAX_SLICES + 1])
{
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(ms_workload_add(w, name, times[i], NULL, NULL, NULL), 0);
    }
    return w;
}

void bf_layout(const ms_gpu_model *g, const ms_partition *p, ms_initial *out)
{
    ms_error err;
    ms_initial_init(out);
    for (int k = 0; p && k < p->n; k++)
        assert_int_equal(ms_initial_add(out, g, 0, p->inst[k], 0, &err), 0);
}

/* ---- exhaustive search ----------------------------------------------------------------
 * Why an optimal schedule is among the enumerated ones. Take any valid schedule and drop
 * its instances without tasks (fewer constraints). Its creations and destructions run one
 * at a time on the GPU, so they form a sequence; tasks on an instance form a sequence too.
 * Every validity rule is then a precedence: an operation starts after the previous one
 * ends; an instance's first task after its creation ends, each task after the previous
 * one on the instance, its destruction after its last task; an instance whose slots
 * overlap an earlier one's is created after that one's destruction (lifetimes disjoint,
 * so the destruction is earlier in the sequence). Durations only need to reach the model's
 * times. Starting every step as early as these precedences allow, with exact model
 * durations, gives a valid schedule whose every time is no later, so no larger makespan.
 * The search enumerates exactly these earliest schedules: a sequence of operations
 * "create placement p and run this ordered list of tasks on it" and "destroy live
 * instance I" (creations of instances that overlap a live one are not allowed), each
 * creation starting when the previous operation ends and each destruction at
 * max(previous operation end, last task end). Destructions after the last creation are
 * never needed and are left out. The layout's instances, present at the start, have no
 * creation: their (possibly empty) ordered task lists run from when they are free (time 0,
 * or their busy time) and are chosen first; they can be destroyed like any live instance
 * (not before they are free), and those never destroyed stay. Only base profiles are
 * created: a larger-memory profile of
 * the same compute size occupies a superset of the slots of the base profile at the same
 * start, with the same times, so replacing it keeps a schedule valid. Pruning uses only
 * sound bounds: every task not yet placed runs on an instance created after the current
 * end of the operation sequence R, so the makespan is at least R + min create time +
 * max over those tasks of their fastest time, and at least R + min create time + their
 * least total area / slices. Every complete candidate goes through the validator, with
 * the layout. */

typedef struct search {
    const ms_gpu_model *g;
    const ms_workload *w;
    int npl;
    ms_placement pl[MS_MAX_SLOTS * MS_MAX_PROFILES];
    uint32_t mask[MS_MAX_SLOTS * MS_MAX_PROFILES];
    ms_schedule *cur;
    int live[16], nlive;
    double free_at[16]; /* per instance id: when its last task ends */
    double min_create, best;
    bool prune; /* off only to check that pruning loses nothing */
    const ms_initial *init;
    int ninit; /* instances 0..ninit-1 are the layout's */
    long leaves;
} search;

static int inst_slices(const search *b, int id)
{
    return b->g->profiles[b->cur->inst[id].profile].slices;
}

static double lower(const search *b, unsigned rem, double R, double ms)
{
    if (!b->prune)
        return -INF;
    double fastest = 0, area = 0;
    for (int i = 0; i < b->w->n; i++) {
        if (!(rem & (1u << i)))
            continue;
        double f = INF;
        for (int k = 0; k < b->g->nsizes; k++)
            f = fmin(f, b->w->tasks[i].time[b->g->sizes[k]]);
        fastest = fmax(fastest, f);
        area += ms_task_min_area(&b->w->tasks[i], b->g, NULL);
    }
    double lb = R + b->min_create + fmax(fastest, area / b->g->slices);
    return fmax(ms, rem ? lb : ms);
}

static void dfs(search *b, unsigned rem, double R, double ms);

static void leaf(search *b, double ms)
{
    ms_validation v;
    int bad = ms_schedule_validate_initial(b->cur, b->w, b->init, &v);
    for (int i = 0; i < v.n && bad; i++)
        print_message("candidate invalid: [%s] %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    assert_int_equal(bad, 0);
    assert_float_equal(ms_schedule_makespan(b->cur), ms, 1e-12);
    b->leaves++;
    if (ms < b->best)
        b->best = ms;
}

#define OPS INT_MAX /* the next step is the operation sequence */

static void seed(search *b, int j, unsigned rem, double ms);

/* Whether j (what follows the current task list) is still in the initial phase. */
static bool seeding(const search *b, int j) { return j != OPS && j < b->ninit; }

/* Goes on once the task list of an instance is chosen: the next initial instance's list,
 * else the operation sequence. */
static void proceed(search *b, int j, unsigned rem, double R, double ms)
{
    if (!seeding(b, j))
        dfs(b, rem, R, ms);
    else
        seed(b, j, rem, ms);
}

/* Appends remaining tasks one by one to instance id (free from t); after each append the
 * list may end (proceed with j) or grow. The bound on the remaining tasks holds only once
 * every initial instance has its list (remaining tasks then need a new instance). */
static void extend(search *b, int id, unsigned rem, double t, double R, double ms, int j)
{
    int sl = inst_slices(b, id);
    for (int i = 0; i < b->w->n; i++) {
        double d = b->w->tasks[i].time[sl];
        if (!(rem & (1u << i)) || !isfinite(d))
            continue;
        ms_schedule_add_task(b->cur, i, id, t, t + d);
        double save = b->free_at[id];
        b->free_at[id] = t + d;
        double ms2 = fmax(ms, t + d);
        /* while seeding, remaining tasks may still go on initial instances: only the
         * makespan so far bounds */
        if (seeding(b, j) ? !b->prune || ms2 < b->best
                          : lower(b, rem & ~(1u << i), R, ms2) < b->best) {
            proceed(b, j, rem & ~(1u << i), R, ms2);
            extend(b, id, rem & ~(1u << i), t + d, R, ms2, j);
        }
        b->free_at[id] = save;
        b->cur->ntasks--;
    }
}

/* The task list of initial instance j (possibly empty), running from when it is free. */
static void seed(search *b, int j, unsigned rem, double ms)
{
    proceed(b, j + 1, rem, 0.0, ms);
    extend(b, j, rem, b->free_at[j], 0.0, ms, j + 1);
}

static bool overlaps_live(const search *b, int p)
{
    uint32_t used = 0;
    for (int k = 0; k < b->nlive; k++) {
        const ms_sched_instance *in = &b->cur->inst[b->live[k]];
        used |= ms_gpu_slot_mask(b->g, (ms_placement){in->profile, in->start_slot});
    }
    return (used & b->mask[p]) != 0;
}

static void try_create(search *b, int p, unsigned rem, double R, double ms)
{
    if (overlaps_live(b, p))
        return;
    double c = ms_gpu_create_time(b->g, b->g->profiles[b->pl[p].profile].slices);
    int id = ms_schedule_add_instance(b->cur, 0, b->pl[p].profile, b->pl[p].start, R, R + c, NAN,
                                      NAN);
    b->live[b->nlive++] = id;
    b->free_at[id] = R + c;
    extend(b, id, rem, R + c, R + c, ms, OPS);
    b->nlive--;
    b->cur->ninst--;
}

static void try_destroy(search *b, int k, unsigned rem, double R, double ms)
{
    int id = b->live[k];
    ms_sched_instance *in = &b->cur->inst[id];
    double start = fmax(R, b->free_at[id]);
    double end = start + ms_gpu_destroy_time(b->g, inst_slices(b, id));
    in->destroy_start = start;
    in->destroy_end = end;
    b->live[k] = b->live[--b->nlive];
    dfs(b, rem, end, ms);
    b->live[b->nlive++] = b->live[k];
    b->live[k] = id;
    in->destroy_start = in->destroy_end = NAN;
}

static void dfs(search *b, unsigned rem, double R, double ms)
{
    if (!rem) {
        leaf(b, ms);
        return;
    }
    if (lower(b, rem, R, ms) >= b->best)
        return;
    for (int p = 0; p < b->npl; p++)
        try_create(b, p, rem, R, ms);
    for (int k = 0; k < b->nlive; k++)
        try_destroy(b, k, rem, R, ms);
}

double bf_optimum(const ms_gpu_model *g, const ms_workload *w, bool prune, const ms_initial *init,
                  long *leaves)
{
    search b = {.g = g, .w = w, .best = INF, .min_create = INF, .prune = prune, .init = init};
    for (int k = 0; k < g->nsizes; k++) {
        int prof = g->base_profile[g->sizes[k]];
        const ms_profile *pr = &g->profiles[prof];
        for (int i = 0; i < pr->nstarts; i++) {
            b.pl[b.npl] = (ms_placement){prof, pr->starts[i]};
            b.mask[b.npl] = ms_gpu_slot_mask(g, b.pl[b.npl]);
            b.npl++;
        }
        b.min_create = fmin(b.min_create, ms_gpu_create_time(g, pr->slices));
    }
    b.cur = ms_schedule_new(g, 1, "exhaustive");
    for (int k = 0; init && k < init->n; k++) {
        assert_int_equal(init->inst[k].gpu, 0);
        int id = ms_schedule_add_instance(b.cur, 0, init->inst[k].at.profile,
                                          init->inst[k].at.start, NAN, NAN, NAN, NAN);
        b.live[b.nlive++] = id;
        b.free_at[id] = init->inst[k].busy_until;
    }
    b.ninit = b.nlive;
    proceed(&b, 0, (1u << w->n) - 1, 0.0, 0.0);
    ms_schedule_free(b.cur);
    *leaves = b.leaves;
    return b.best;
}

ms_workload *bf_random_workload(const ms_gpu_model *g, int n, ms_rng *r)
{
    double t[4][MS_MAX_SLICES + 1];
    for (int i = 0; i < n; i++) {
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            t[i][s] = INF;
        double prev = 1 + (double)ms_rng_below(r, 6);
        uint64_t kind = ms_rng_below(r, 5);
        if (kind == 0) { /* one size only */
            t[i][g->sizes[ms_rng_below(r, (uint64_t)g->nsizes)]] = prev;
            continue;
        }
        for (int k = kind == 1 ? 1 : 0; k < g->nsizes; k++) {
            int s = g->sizes[k];
            double lo = ceil(prev * g->sizes[k > 0 ? k - 1 : 0] / s);
            prev = lo + (double)ms_rng_below(r, (uint64_t)(prev - lo) + 1);
            t[i][s] = prev;
        }
    }
    return bf_workload(n, (const double(*)[MS_MAX_SLICES + 1]) t);
}
