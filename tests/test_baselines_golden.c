/* test_baselines_golden.c: FIXPART / FIXPARTBEST / NOMIG / MISO-OPT on small instances
 * checked by hand. */
#include <math.h>
#include <string.h>

#include "support.h"
#include "migsched/offline.h"

#define INF INFINITY

static void near(double a, double b, double eps, int line)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("line %d: %.12g != %.12g (tolerance %g)", line, a, b, eps);
}
#define assert_double_equal(a, b, eps) near((a), (b), (eps), __LINE__)

static ms_workload *make(const char *const *names, const double (*t)[MS_MAX_SLICES + 1], int n)
{
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < n; i++)
        assert_int_equal(ms_workload_add(w, names[i], t[i], NULL, NULL, NULL), 0);
    return w;
}

static void assert_valid(const ms_schedule *s, const ms_workload *w)
{
    ms_validation v = {0};
    int n = ms_schedule_validate_initial(s, w, NULL, &v);
    for (int i = 0; i < v.n; i++)
        print_error("%s: [%s] %s\n", s->algorithm, v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    assert_int_equal(n, 0);
}

static const ms_sched_task *task_of(const ms_schedule *s, int index)
{
    for (int i = 0; i < s->ntasks; i++)
        if (s->task[i].index == index)
            return &s->task[i];
    fail_msg("task %d not scheduled", index);
    return NULL;
}

/* A30 sizes 1, 2, 4. Task 4 runs only on 2 or 4 slices. */
static const char *const NAMES[] = {"t0", "t1", "t2", "t3", "t4"};
static const double TIMES[][MS_MAX_SLICES + 1] = {
    {INF, 4, 2, INF, 1, INF, INF, INF, INF},   {INF, 3, 2, INF, 1, INF, INF, INF, INF},
    {INF, 5, 3, INF, 2, INF, INF, INF, INF},   {INF, 1, 1, INF, 1, INF, INF, INF, INF},
    {INF, INF, 4, INF, 2, INF, INF, INF, INF},
};

/* FIFO, each task on the first instance to become free that can run it (lowest slot on
 * ties). From an empty A30 the instances are created in slot order, one at a time: 1g@0
 * ready at 0.11, 1g@1 at 0.22, 2g@2 at 0.34; t0->1g@0 [0.11,4.11], t1->1g@1 [0.22,3.22],
 * t2->2g@2 [0.34,3.34], t3->1g@1 [3.22,4.22], t4->2g@2 [3.34,7.34]. */
static void check_tasks(const ms_schedule *s, const double *start, const double *end)
{
    const int slot[] = {0, 1, 2, 1, 2};
    for (int i = 0; i < 5; i++) {
        const ms_sched_task *t = task_of(s, i);
        assert_int_equal(s->inst[t->instance].start_slot, slot[i]);
        assert_double_equal(t->start, start[i], 1e-9);
        assert_double_equal(t->end, end[i], 1e-9);
    }
}

static void fixpart_first_free(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = make(NAMES, TIMES, 5);
    ms_schedule *s = NULL;
    ms_error err = {0};
    assert_int_equal(ms_baseline_schedule("fixpart:1-1-2", w, gpu, 1, NULL, &s, &err), 0);
    assert_string_equal(s->algorithm, "fixpart:1-1-2");
    assert_valid(s, w);
    check_tasks(s, (const double[]){0.11, 0.22, 0.34, 3.22, 3.34},
                (const double[]){4.11, 3.22, 3.34, 4.22, 7.34});
    assert_int_equal(s->ninst, 3);
    for (int k = 0; k < s->ninst; k++) /* created, never destroyed */
        assert_true(!isnan(s->inst[k].create_start) && isnan(s->inst[k].destroy_start));
    assert_double_equal(ms_schedule_makespan(s), 7.34, 1e-9);
    ms_schedule_free(s);
    /* From the very partition: nothing to create, every instance free at 0: t0->1g@0
     * [0,4], t1->1g@1 [0,3], t2->2g@2 [0,3], t3->1g@1 [3,4], t4->2g@2 [3,7]. */
    ms_initial init;
    assert_int_equal(ms_initial_parse("1-1-2", gpu, 1, &init, &err), 0);
    assert_int_equal(
        ms_fixpart_schedule(w, gpu, 1, &init, ms_partition_parse(gpu, "1-1-2"), &s, &err), 0);
    assert_int_equal(ms_schedule_validate_initial(s, w, &init, NULL), 0);
    check_tasks(s, (const double[]){0, 0, 0, 3, 3}, (const double[]){4, 3, 3, 4, 7});
    assert_int_equal(s->ninst, 3);
    ms_schedule_free(s);
    ms_initial_fini(&init);
    /* From 2-1-1: 2g@0 is in the way of 1g@0 and 1g@1 and is destroyed first [0,0.10];
     * 1g@2 and 1g@3 are in the way of 2g@2, destroyed [0.10,0.20], [0.20,0.30]; then 1g@0
     * [0.30,0.41], 1g@1 [0.41,0.52], 2g@2 [0.52,0.64] are created. */
    assert_int_equal(ms_initial_parse("2-1-1", gpu, 1, &init, &err), 0);
    assert_int_equal(
        ms_fixpart_schedule(w, gpu, 1, &init, ms_partition_parse(gpu, "1-1-2"), &s, &err), 0);
    assert_int_equal(ms_schedule_validate_initial(s, w, &init, NULL), 0);
    check_tasks(s, (const double[]){0.41, 0.52, 0.64, 3.52, 3.64},
                (const double[]){4.41, 3.52, 3.64, 4.52, 7.64});
    assert_int_equal(s->ninst, 6);
    ms_schedule_free(s);
    ms_initial_fini(&init);
    ms_workload_free(w);
}

static void fixpart_infeasible(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = make(NAMES, TIMES, 5);
    ms_schedule *s = NULL;
    ms_error err = {0};
    assert_int_equal(ms_baseline_schedule("fixpart:1-1-1-1", w, gpu, 1, NULL, &s, &err),
                     MS_EINFEASIBLE);
    assert_null(s);
    assert_non_null(strstr(err.msg, "t4"));
    int stale; /* a failure leaves NULL, never what *out held before */
    s = (ms_schedule *)&stale;
    assert_int_equal(ms_baseline_schedule("fixpart:3-1", w, gpu, 1, NULL, &s, &err), MS_EINVAL);
    assert_null(s);
    s = (ms_schedule *)&stale;
    assert_int_equal(ms_baseline_schedule("fixpart:9", w, gpu, 1, NULL, &s, &err), MS_EINVAL);
    assert_null(s);
    assert_int_equal(ms_baseline_schedule("fixpart:5", w, gpu, 1, NULL, &s, &err), MS_EINFEASIBLE);
    assert_false(ms_baseline_known("fixpartx"));
    ms_workload_free(w);
}

/* NOMIG: the whole GPU, created first (0.13 s), tasks back to back: makespan = 0.13 + sum
 * of t(4) = 1+1+2+1+2. */
static void nomig_sum(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = make(NAMES, TIMES, 5);
    ms_schedule *s = NULL;
    assert_int_equal(ms_nomig_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    assert_valid(s, w);
    assert_int_equal(s->ninst, 1);
    assert_int_equal(gpu->profiles[s->inst[0].profile].slices, 4);
    assert_double_equal(ms_schedule_makespan(s), 7.13, 1e-9);
    ms_schedule_free(s);
    /* Two GPUs, each creating its instance by 0.13: list scheduling of t(4) = 1,1,2,1,2:
     * GPU0 t0 [.13,1.13], GPU1 t1 [.13,1.13], GPU0 t2 [1.13,3.13], GPU1 t3 [1.13,2.13],
     * GPU1 t4 [2.13,4.13]: makespan 4.13. */
    assert_int_equal(ms_nomig_schedule(w, gpu, 2, NULL, &s, NULL), 0);
    assert_valid(s, w);
    assert_double_equal(ms_schedule_makespan(s), 4.13, 1e-9);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* FIXPARTBEST is the minimum over every feasible FIXPART(P), first partition on ties. */
static void fixpartbest_is_min(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = make(NAMES, TIMES, 5);
    ms_schedule *best = NULL;
    assert_int_equal(ms_fixpartbest_schedule(w, gpu, 1, NULL, &best, NULL), 0);
    assert_valid(best, w);
    double min = INFINITY;
    int argmin = -1;
    for (int k = 0; k < gpu->npartitions; k++) {
        ms_schedule *s = NULL;
        if (ms_fixpart_schedule(w, gpu, 1, NULL, k, &s, NULL))
            continue;
        if (ms_schedule_makespan(s) < min) {
            min = ms_schedule_makespan(s);
            argmin = k;
        }
        ms_schedule_free(s);
    }
    assert_double_equal(ms_schedule_makespan(best), min, 0);
    assert_int_equal((int)ms_schedule_stat(best, "partition"), argmin + 1);
    ms_schedule_free(best);
    ms_workload_free(w);
}

/* The Rodinia A30 tasks, by hand (docs/baselines.md walks through it):
 * round 1: 2-1-1 for particlefilter, nw (on 2g: speedup 1.84), lu; created one by one;
 * round 2: same partition (no reconfiguration) for lavaMD (2g), huffman, heartwall;
 * round 3: 4 for gaussian alone (speedup 3.49 beats any pair);
 * round 4: pathfinder alone: 2 slices (speedup 1.003), the cheapest such partition. */
static void miso_rodinia(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    static const char *const names[] = {"particlefilter", "nw",        "lu",       "lavaMD",
                                        "huffman",        "heartwall", "gaussian", "pathfinder"};
    static const double t[][MS_MAX_SLICES + 1] = {
        {INF, 1.26246, 1.1136, INF, 1.18849, INF, INF, INF, INF},
        {INF, 0.79506, 0.43174, INF, 0.501269, INF, INF, INF, INF},
        {INF, 8.59878, 8.10589, INF, 8.53057, INF, INF, INF, INF},
        {INF, INF, 21.697, INF, 17.3214, INF, INF, INF, INF},
        {INF, 0.314573, 0.24474, INF, 0.316071, INF, INF, INF, INF},
        {INF, 1.26794, 1.01038, INF, 1.01767, INF, INF, INF, INF},
        {INF, 22.3109, 11.517, INF, 6.38692, INF, INF, INF, INF},
        {INF, 20.5527, 20.4842, INF, 20.6617, INF, INF, INF, INF},
    };
    ms_workload *w = make(names, t, 8);
    ms_schedule *s = NULL;
    assert_int_equal(ms_miso_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    assert_valid(s, w);
    assert_int_equal((int)ms_schedule_stat(s, "rounds"), 4);
    assert_int_equal(s->ninst, 5);
    /* creations 0.12 + 0.11 + 0.11, lu, lavaMD, 3 destructions + 4g creation, gaussian,
     * 4g destruction + 2g creation, pathfinder. */
    double expect = 0.12 + 0.11 + 0.11 + 8.59878 + 21.697 + 0.30 + 0.13 + 6.38692 + 0.10 + 0.12 +
                    20.4842;
    assert_double_equal(ms_schedule_makespan(s), expect, 1e-9);
    assert_int_equal(s->inst[task_of(s, 1)->instance].profile,
                     s->inst[task_of(s, 3)->instance].profile); /* nw and lavaMD on the 2g */
    assert_int_equal(task_of(s, 1)->instance, task_of(s, 3)->instance);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* With 7 sub-linear tasks MISO takes 1-1-1-1-1-1-1 (sum of speedups 7); a super-linear
 * pair makes 2-2-... win instead. */
static void miso_prefers_speedup_sum(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < 7; i++) {
        double t[MS_MAX_SLICES + 1] = {INF, 10, 6, 5, 4, INF, INF, 3, INF};
        char name[8];
        snprintf(name, sizeof name, "s%d", i);
        assert_int_equal(ms_workload_add(w, name, t, NULL, NULL, NULL), 0);
    }
    ms_schedule *s = NULL;
    assert_int_equal(ms_miso_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    assert_valid(s, w);
    assert_int_equal(s->ninst, 7);
    assert_int_equal((int)ms_schedule_stat(s, "rounds"), 1);
    ms_schedule_free(s);
    ms_workload_free(w);
    /* Speedup 2.5 on 2 slices: 2-2-2-1 sums 8.5 (2-2-3: 7.86, 1x7: 7). */
    w = ms_workload_new();
    for (int i = 0; i < 4; i++) {
        double t[MS_MAX_SLICES + 1] = {INF, 10, 4, 3.5, 3, INF, INF, 2.5, INF};
        char name[8];
        snprintf(name, sizeof name, "p%d", i);
        assert_int_equal(ms_workload_add(w, name, t, NULL, NULL, NULL), 0);
    }
    assert_int_equal(ms_miso_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    assert_valid(s, w);
    int slices[MS_MAX_SLICES + 1] = {0};
    for (int i = 0; i < 4; i++)
        slices[gpu->profiles[s->inst[task_of(s, i)->instance].profile].slices]++;
    assert_int_equal(slices[2], 3);
    assert_int_equal(slices[1], 1);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* A30: a long poorly scaling task and four 1 s tasks. Both variants start with 1-1-1-1
 * (speedup sum 4) created one by one (0.11 s each): a [0.11, 10.11], b..d start at 0.22,
 * 0.33, 0.44. Rounds: e waits for a, then runs alone on 4 slices (speedup 1.25) after 4
 * destructions (0.10 each) and a creation (0.13): 10.11 + 0.40 + 0.13 + 0.8 = 11.44.
 * Eager: e takes b's freed instance at 1.22; the makespan is a's end, 10.11. */
static void miso_rounds_vs_eager(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    static const char *const names[] = {"a", "b", "c", "d", "e"};
    static const double t[][MS_MAX_SLICES + 1] = {
        {INF, 10, 9, INF, 8, INF, INF, INF, INF},    {INF, 1, 0.9, INF, 0.8, INF, INF, INF, INF},
        {INF, 1, 0.9, INF, 0.8, INF, INF, INF, INF}, {INF, 1, 0.9, INF, 0.8, INF, INF, INF, INF},
        {INF, 1, 0.9, INF, 0.8, INF, INF, INF, INF},
    };
    ms_workload *w = make(names, t, 5);
    ms_schedule *s = NULL;
    assert_int_equal(ms_miso_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    assert_valid(s, w);
    assert_double_equal(ms_schedule_makespan(s), 10.11 + 0.40 + 0.13 + 0.8, 1e-9);
    assert_int_equal((int)ms_schedule_stat(s, "rounds"), 2);
    ms_schedule_free(s);
    assert_int_equal(ms_miso_eager_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    assert_valid(s, w);
    assert_double_equal(ms_schedule_makespan(s), 10.11, 1e-9);
    assert_double_equal(task_of(s, 4)->start, 1.22, 1e-9);
    assert_int_equal(task_of(s, 4)->instance, task_of(s, 1)->instance);
    assert_int_equal(s->ninst, 4);
    ms_schedule_free(s);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixpart_first_free),
        cmocka_unit_test(fixpart_infeasible),
        cmocka_unit_test(nomig_sum),
        cmocka_unit_test(fixpartbest_is_min),
        cmocka_unit_test(miso_rodinia),
        cmocka_unit_test(miso_prefers_speedup_sum),
        cmocka_unit_test(miso_rounds_vs_eager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
