/* test_bounds.c: lower bounds by hand on small instances, and checked against the true
 * optimum found by exhaustive search over valid schedules (n <= 4, A30 and A100, 1 GPU). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "support.h"

#define EPS 1e-9

static ms_workload *make_workload(int n, const double times[][MS_MAX_SLICES + 1])
{
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(ms_workload_add(w, name, times[i], NULL, NULL, NULL), 0);
    }
    return w;
}

#define INF INFINITY

/* ---- hand-computed values ------------------------------------------------------------ */

/* A30, two perfectly scaling tasks (4 s on one slice). Partition 1-1-1-1 leaves nothing
 * idle for S = {1}: l_bound = (8 + 1 * 0.11) / 4, l_bound_paper = (8 + 1 * (0.11 + 0.10)) / 4. */
static void test_a30_hand(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A30-24GB");
    const double t[2][MS_MAX_SLICES + 1] = {{INF, 4, 2, INF, 1, INF, INF, INF, INF},
                                            {INF, 4, 2, INF, 1, INF, INF, INF, INF}};
    ms_workload *w = make_workload(2, t);
    assert_float_equal(ms_bound_baseline(w, g, 1), 2.0, EPS);
    assert_float_equal(ms_bound_lbound(w, g, 1), 8.11 / 4, EPS);
    assert_float_equal(ms_bound_lbound_paper(w, g, 1), 8.21 / 4, EPS);
    /* two GPUs: divide by 4 * 2 */
    assert_float_equal(ms_bound_baseline(w, g, 2), 1.0, EPS);
    assert_float_equal(ms_bound_lbound(w, g, 2), 8.11 / 8, EPS);
    /* a 1-slice instance present at the start is not charged a creation */
    assert_float_equal(ms_bound_lbound_present(w, g, 1, 1u << 1), 8.0 / 4, EPS);
    ms_workload_free(w);
}

/* A100, one task that only runs on 4 slices for 1 s. Idle(4, {4}) = 3 (every partition
 * with a 4g holds a 3g or 2g+1g or three 1g), so S = {4} gives (7 + 0.84) / 7, but
 * S = {1, 4} has Idle(4, S) = 0 via 4-1-1-1 and gives (4 + 4 * 0.21 + 1 * 0.16) / 7. */
static void test_a100_idle_hand(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A100-40GB");
    const double t[1][MS_MAX_SLICES + 1] = {{INF, INF, INF, INF, 1, INF, INF, INF, INF}};
    ms_workload *w = make_workload(1, t);
    assert_float_equal(ms_bound_baseline(w, g, 1), 4.0 / 7, EPS);
    assert_float_equal(ms_bound_lbound(w, g, 1), 5.0 / 7, EPS);
    /* paper: S = {1, 4}: 4 + 4 * (0.21 + 0.21) + 1 * (0.16 + 0.20) = 6.04 */
    assert_float_equal(ms_bound_lbound_paper(w, g, 1), 6.04 / 7, EPS);
    ms_workload_free(w);
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
 * never needed and are left out. Instances present at the start have no creation: their
 * (possibly empty) ordered task lists run from time 0 and are chosen first; they can be
 * destroyed like any live instance. Only base profiles are tried: a larger-memory profile of
 * the same compute size occupies a superset of the slots of the base profile at the same
 * start, with the same times, so replacing it keeps a schedule valid. Pruning uses only
 * sound bounds: every task not yet placed runs on an instance created after the current
 * end of the operation sequence R, so the makespan is at least R + min create time +
 * max over those tasks of their fastest time, and at least R + min create time + their
 * least total area / slices. Every complete candidate goes through the validator. */

typedef struct search {
    const ms_gpu_model *g;
    const ms_workload *w;
    int npl;
    ms_placement pl[MS_MAX_SLOTS * MS_MAX_PROFILES];
    uint32_t mask[MS_MAX_SLOTS * MS_MAX_PROFILES];
    ms_schedule *cur;
    int live[16], nlive;
    double free_at[16];  /* per instance id: when its last task ends */
    double min_create, best;
    bool prune;  /* off only to check that pruning loses nothing */
    int ninit;   /* instances 0..ninit-1 exist before the plan */
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
    int bad = ms_schedule_validate(b->cur, b->w, &v);
    for (int i = 0; i < v.n && bad; i++)
        print_message("candidate invalid: [%s] %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_free(&v);
    assert_int_equal(bad, 0);
    assert_float_equal(ms_schedule_makespan(b->cur), ms, 1e-12);
    b->leaves++;
    if (ms < b->best)
        b->best = ms;
}

static void seed(search *b, int j, unsigned rem, double ms);

/* Goes on once the task list of an instance is chosen: the next initial instance's
 * list (j < ninit), else the operation sequence. */
static void proceed(search *b, int j, unsigned rem, double R, double ms)
{
    if (j < b->ninit)
        seed(b, j, rem, ms);
    else
        dfs(b, rem, R, ms);
}

/* Appends remaining tasks one by one to instance id (free from t); after each append the
 * list may end (proceed with j) or grow. The bound holds only once every initial
 * instance has its list (remaining tasks then need a new instance). */
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
        if (j < b->ninit || lower(b, rem & ~(1u << i), R, ms2) < b->best) {
            proceed(b, j, rem & ~(1u << i), R, ms2);
            extend(b, id, rem & ~(1u << i), t + d, R, ms2, j);
        }
        b->free_at[id] = save;
        b->cur->ntasks--;
    }
}

/* The task list of initial instance j (possibly empty), running from time 0. */
static void seed(search *b, int j, unsigned rem, double ms)
{
    proceed(b, j + 1, rem, 0.0, ms);
    extend(b, j, rem, 0.0, 0.0, ms, j + 1);
}

static void try_create(search *b, int p, unsigned rem, double R, double ms)
{
    uint32_t used = 0;
    for (int k = 0; k < b->nlive; k++) {
        const ms_sched_instance *in = &b->cur->inst[b->live[k]];
        used |= ms_gpu_slot_mask(b->g, (ms_placement){in->profile, in->start_slot});
    }
    if (used & b->mask[p])
        return;
    double c = ms_gpu_create_time(b->g, b->g->profiles[b->pl[p].profile].slices);
    int id = ms_schedule_add_instance(b->cur, 0, b->pl[p].profile, b->pl[p].start, R, R + c,
                                      NAN, NAN);
    b->live[b->nlive++] = id;
    b->free_at[id] = R + c;
    extend(b, id, rem, R + c, R + c, ms, b->ninit);
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

/* The optimal makespan; init (may be NULL) holds the instances present at the start. */
static double optimum(const ms_gpu_model *g, const ms_workload *w, bool prune,
                      const ms_partition *init, long *leaves)
{
    search b = {.g = g, .w = w, .best = INF, .min_create = INF, .prune = prune};
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
        int id = ms_schedule_add_instance(b.cur, 0, init->inst[k].profile, init->inst[k].start,
                                          NAN, NAN, NAN, NAN);
        b.live[b.nlive++] = id;
        b.free_at[id] = 0.0;
    }
    b.ninit = b.nlive;
    proceed(&b, 0, (1u << w->n) - 1, 0.0, 0.0);
    ms_schedule_free(b.cur);
    *leaves = b.leaves;
    return b.best;
}

/* Small integer times, non-increasing in the size and never better than linear; some
 * tasks do not fit the smallest size, some run on one size only. */
static ms_workload *random_workload(const ms_gpu_model *g, int n, ms_rng *r)
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
    return make_workload(n, (const double(*)[MS_MAX_SLICES + 1])t);
}

static void check_bounds_against_optimum(const char *model, int cases, int max_n, uint64_t seed)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    long leaves = 0;
    int paper_above = 0;
    for (int c = 0; c < cases; c++) {
        int n = 1 + c % max_n;
        ms_workload *w = random_workload(g, n, &r);
        long l;
        double opt = optimum(g, w, true, NULL, &l);
        leaves += l;
        double base = ms_bound_baseline(w, g, 1), lb = ms_bound_lbound(w, g, 1);
        if (base > opt + EPS || lb > opt + EPS) {
            print_message("%s case %d: opt %.6f baseline %.6f l_bound %.6f\n", model, c, opt,
                          base, lb);
            for (int i = 0; i < n; i++)
                print_message("  t%d: %g %g %g %g %g\n", i, w->tasks[i].time[1],
                              w->tasks[i].time[2], w->tasks[i].time[3], w->tasks[i].time[4],
                              w->tasks[i].time[7]);
        }
        assert_true(isfinite(opt));
        assert_true(base <= opt + EPS);
        assert_true(lb <= opt + EPS);
        paper_above += ms_bound_lbound_paper(w, g, 1) > opt + EPS;
        ms_workload_free(w);
    }
    print_message("%s: %d instances, %ld valid candidates validated, l_bound_paper above the "
                  "optimum in %d\n", model, cases, leaves, paper_above);
}

static void test_bruteforce_a30(void **st)
{
    (void)st;
    check_bounds_against_optimum("A30-24GB", 400, 4, 30);
}

static void test_bruteforce_a100(void **st)
{
    (void)st;
    check_bounds_against_optimum("A100-40GB", 400, 4, 100);
}

/* Instances present at the start: a random subset of a random valid partition. The
 * optimum may use them without creating them; l_bound then charges no creation for their
 * sizes (ms_bound_lbound_present). */
static void check_with_initial(const char *model, int cases, uint64_t seed_value)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed_value);
    long leaves = 0;
    int below_plain = 0;
    for (int c = 0; c < cases; c++) {
        const ms_partition *p = &g->partitions[ms_rng_below(&r, (uint64_t)g->npartitions)];
        ms_partition init = {0};
        unsigned present = 0;
        for (int k = 0; k < p->n; k++)
            if (ms_rng_below(&r, 2)) {
                init.inst[init.n++] = p->inst[k];
                present |= 1u << g->profiles[p->inst[k].profile].slices;
            }
        ms_workload *w = random_workload(g, 1 + c % 3, &r);
        long l;
        double opt = optimum(g, w, true, &init, &l);
        leaves += l;
        double lb = ms_bound_lbound_present(w, g, 1, present);
        if (lb > opt + EPS)
            print_message("%s case %d: opt %.6f l_bound %.6f\n", model, c, opt, lb);
        assert_true(lb <= opt + EPS);
        assert_true(ms_bound_baseline(w, g, 1) <= opt + EPS);
        /* the plain l_bound may exceed this optimum: count how often */
        below_plain += ms_bound_lbound(w, g, 1) > opt + EPS;
        ms_workload_free(w);
    }
    print_message("%s with initial instances: %d instances, %ld candidates validated, plain "
                  "l_bound above the optimum in %d\n", model, cases, leaves, below_plain);
}

static void test_bruteforce_initial(void **st)
{
    (void)st;
    /* DESIGN.md's task on an A100 that already holds a 7g: no creation, optimum 10 */
    const ms_gpu_model *g = ms_gpu_builtin("A100-40GB");
    const double t[1][MS_MAX_SLICES + 1] = {{INF, INF, INF, INF, INF, INF, INF, 10, INF}};
    ms_workload *w = make_workload(1, t);
    ms_partition whole = {1, {{g->base_profile[7], 0}}};
    long leaves;
    assert_float_equal(optimum(g, w, true, &whole, &leaves), 10.0, EPS);
    assert_float_equal(ms_bound_lbound_present(w, g, 1, 1u << 7), 10.0, EPS);
    assert_true(ms_bound_lbound(w, g, 1) > 10.0);
    ms_workload_free(w);
    check_with_initial("A30-24GB", 200, 31);
    check_with_initial("A100-40GB", 200, 101);
}

/* H100 has other reconfiguration times (larger creations), same geometry. */
static void test_bruteforce_h100(void **st)
{
    (void)st;
    check_bounds_against_optimum("H100-80GB", 200, 4, 200);
}

/* DESIGN.md: one 10 s task needing 7 slices on an A100 ends at 0.24 + 10 = 10.24 s, below
 * l_bound_paper = (70 + 7 * (0.24 + 0.22)) / 7 = 10.46 s; l_bound = 10.24 s is tight. */
static void test_paper_bound_exceeds_optimum(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A100-40GB");
    const double t[1][MS_MAX_SLICES + 1] = {{INF, INF, INF, INF, INF, INF, INF, 10, INF}};
    ms_workload *w = make_workload(1, t);
    long leaves;
    double opt = optimum(g, w, true, NULL, &leaves);
    assert_float_equal(opt, 10.24, EPS);
    assert_float_equal(ms_bound_lbound_paper(w, g, 1), 10.46, EPS);
    assert_float_equal(ms_bound_lbound(w, g, 1), 10.24, EPS);
    assert_true(ms_bound_lbound_paper(w, g, 1) > opt);
    ms_workload_free(w);
}

/* The search itself on a case with a known answer: two 1-slice-only tasks of 1 s on an
 * A30 run side by side on 1g@0 and 1g@1 created one after the other: 0.11 + 0.11 + 1. */
static void test_search_known(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A30-24GB");
    const double t[2][MS_MAX_SLICES + 1] = {{INF, 1, INF, INF, INF, INF, INF, INF, INF},
                                            {INF, 1, INF, INF, INF, INF, INF, INF, INF}};
    ms_workload *w = make_workload(2, t);
    long leaves;
    assert_float_equal(optimum(g, w, true, NULL, &leaves), 1.22, EPS);
    ms_workload_free(w);
}

/* Pruning only cuts candidates that cannot beat the best: same optimum without it. */
static void test_pruning_sound(void **st)
{
    (void)st;
    static const char *models[2] = {"A30-24GB", "A100-40GB"};
    static const int max_n[2] = {3, 3};
    for (int m = 0; m < 2; m++) {
        const ms_gpu_model *g = ms_gpu_builtin(models[m]);
        ms_rng r;
        ms_rng_seed(&r, 7 + m);
        long all = 0, pruned = 0;
        for (int c = 0; c < 12; c++) {
            ms_workload *w = random_workload(g, 1 + c % max_n[m], &r);
            long l1, l2;
            /* on the A30, every other case starts from a whole valid partition (on the
             * A100 the unpruned search from seven 1g instances runs far too long) */
            const ms_partition *init =
                m == 0 && c % 2 ? &g->partitions[c % g->npartitions] : NULL;
            double a = optimum(g, w, true, init, &l1), b = optimum(g, w, false, init, &l2);
            assert_float_equal(a, b, 1e-12);
            pruned += l1;
            all += l2;
            ms_workload_free(w);
        }
        print_message("%s: %ld candidates without pruning, %ld with\n", models[m], all, pruned);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a30_hand),
        cmocka_unit_test(test_a100_idle_hand),
        cmocka_unit_test(test_search_known),
        cmocka_unit_test(test_paper_bound_exceeds_optimum),
        cmocka_unit_test(test_pruning_sound),
        cmocka_unit_test(test_bruteforce_a30),
        cmocka_unit_test(test_bruteforce_a100),
        cmocka_unit_test(test_bruteforce_h100),
        cmocka_unit_test(test_bruteforce_initial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
