/* test_optimal.c: the exact scheduler (--algo optimal): from the layout before the plan
 * (empty, a partition, part of one, busy instances) its proved makespan equals the
 * brute-force optimum (bruteforce.c) on tiny batches of every built-in model, its schedules
 * validate against the layout and end no earlier than baseline and l_bound, it is never
 * worse than a heuristic when it proves optimality, and its node-limited mode is
 * deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/offline/optimal_internal.h"
#include "bruteforce.h"
#include "migsched/offline.h"
#include "support.h"

#define EPS 1e-9

static const char *const heuristics[] = {"far", "fixpartbest", "miso", "miso-eager", "nomig"};

/* Runs optimal from `initial` (NULL: empty) with the given limits and checks the schedule
 * against the validator and the layout, and the bounds against its makespan. */
static ms_schedule *run_optimal(const ms_workload *w, const ms_gpu_model *g,
                                const ms_initial *initial, long node_limit, double budget_ms)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.initial = initial;
    o.optimal.node_limit = node_limit;
    o.optimal.time_budget_ms = budget_ms;
    ms_schedule *s = NULL;
    ms_error err;
    int rc = ms_offline_schedule("optimal", w, g, 1, &o, &s, &err);
    if (rc)
        fail_msg("optimal failed: %s", err.msg);
    ms_validation v = {0};
    int bad = ms_schedule_validate_initial(s, w, initial, &v);
    for (int i = 0; i < v.n && bad; i++)
        print_message("invalid: [%s] %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    assert_int_equal(bad, 0);
    double ms = ms_schedule_makespan(s);
    assert_true(ms_schedule_stat(s, "lower_bound") <= ms + EPS);
    assert_true(ms_schedule_stat(s, "nodes") >= 0);
    assert_true(ms >= ms_bound_baseline(w, g, 1) - EPS);
    assert_true(ms >= ms_bound_lbound_present(w, g, 1, ms_initial_present_sizes(initial, g)) - EPS);
    return s;
}

/* A random layout of g: empty, a whole partition, or part of one; some instances busy for
 * a while (the case's number picks the kind). */
static void random_layout(const ms_gpu_model *g, int c, ms_rng *r, ms_initial *out)
{
    ms_error err;
    ms_initial_init(out);
    int kind = c % 5;
    if (kind == 0)
        return;
    const ms_partition *p = &g->partitions[ms_rng_below(r, (uint64_t)g->npartitions)];
    for (int k = 0; k < p->n; k++) {
        if (kind == 3 && ms_rng_below(r, 2))
            continue;
        double busy = kind == 4 && ms_rng_below(r, 2) ? 0.5 * (double)(1 + ms_rng_below(r, 4))
                                                      : 0.0;
        assert_int_equal(ms_initial_add(out, g, 0, p->inst[k], busy, &err), 0);
    }
}

/* Every built-in model, n = 1..4, from random layouts: the proved makespan is the
 * exhaustive optimum over the valid schedules from that layout. */
static void check_bruteforce(const char *model, int cases, uint64_t seed)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    long leaves = 0, nodes = 0;
    for (int c = 0; c < cases; c++) {
        ms_workload *w = bf_random_workload(g, 1 + c / 5 % 4, &r);
        ms_initial layout;
        random_layout(g, c, &r, &layout);
        long l;
        double opt = bf_optimum(g, w, true, &layout, &l);
        leaves += l;
        ms_schedule *s = run_optimal(w, g, &layout, 0, 0);
        nodes += (long)ms_schedule_stat(s, "nodes");
        assert_near(ms_schedule_stat(s, "proved"), 1, 0);
        if (fabs(ms_schedule_makespan(s) - opt) > EPS) {
            char text[128];
            ms_initial_format(&layout, g, 1, text, sizeof text);
            print_message("case %d from %s: optimal %.9g, brute force %.9g\n", c, text,
                          ms_schedule_makespan(s), opt);
            for (int i = 0; i < w->n; i++)
                print_message("  t%d: %g %g %g %g %g\n", i, w->tasks[i].time[1],
                              w->tasks[i].time[2], w->tasks[i].time[3], w->tasks[i].time[4],
                              w->tasks[i].time[7]);
        }
        assert_near(ms_schedule_makespan(s), opt, EPS);
        /* stopped after a few nodes: still valid, never better than the optimum, and its
         * lower bound below it */
        ms_schedule *q = run_optimal(w, g, &layout, 2, 0);
        assert_true(ms_schedule_makespan(q) >= opt - EPS);
        assert_true(ms_schedule_stat(q, "lower_bound") <= opt + EPS);
        ms_schedule_free(q);
        ms_schedule_free(s);
        ms_initial_fini(&layout);
        ms_workload_free(w);
    }
    print_message("%s: %d batches, %ld brute-force candidates, %ld branch-and-bound nodes\n", model,
                  cases, leaves, nodes);
}

static void test_bruteforce_a30(void **st)
{
    (void)st;
    check_bruteforce("A30-24GB", 150, 41);
}

static void test_bruteforce_a100(void **st)
{
    (void)st;
    check_bruteforce("A100-40GB", 80, 42);
    check_bruteforce("A100-80GB", 30, 43);
}

static void test_bruteforce_h_b(void **st)
{
    (void)st;
    check_bruteforce("H100-80GB", 30, 44);
    check_bruteforce("H200-141GB", 30, 45);
    check_bruteforce("B200", 30, 46);
}

/* Generated batches (the papers' presets): when optimality is proved, no heuristic is
 * shorter. */
static void check_heuristics(const char *model, const char *const *presets, int npresets, int nmin,
                             int nmax, uint64_t seed)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    int proved = 0, total = 0;
    for (int k = 0; k < npresets; k++)
        for (int n = nmin; n <= nmax; n++) {
            ms_gen_params p;
            ms_workload *w = NULL;
            ms_error err;
            assert_int_equal(ms_gen_preset(g, presets[k], &p, &err), 0);
            assert_int_equal(ms_generate(g, &p, n, &r, &w, &err), 0);
            ms_schedule *s = run_optimal(w, g, NULL, 2000000, 0);
            total++;
            if (ms_schedule_stat(s, "proved") == 1) {
                proved++;
                for (size_t h = 0; h < sizeof heuristics / sizeof heuristics[0]; h++) {
                    ms_schedule *b = NULL;
                    if (ms_offline_schedule(heuristics[h], w, g, 1, NULL, &b, &err))
                        continue; /* the policy cannot run this batch */
                    assert_true(ms_schedule_makespan(s) <= ms_schedule_makespan(b) + EPS);
                    ms_schedule_free(b);
                }
            }
            ms_schedule_free(s);
            ms_workload_free(w);
        }
    print_message("%s: optimality proved on %d of %d batches\n", model, proved, total);
    assert_true(proved > 0);
}

static void test_never_worse_a100(void **st)
{
    (void)st;
    static const char *const presets[] = {"POORSCALING", "MIXEDSCALING", "GOODSCALING",
                                          "MIXSCALINGEXTREME", "MIXEDSCALING,WIDETIMES"};
    check_heuristics("A100-40GB", presets, 5, 2, 7, 5);
}

static void test_never_worse_a30(void **st)
{
    (void)st;
    static const char *const presets[] = {"POORSCALING", "MIXEDSCALING", "GOODSCALING",
                                          "MIXSCALINGEXTREME", "MIXEDSCALING,WIDETIMES"};
    check_heuristics("A30-24GB", presets, 5, 2, 8, 6);
}

/* The dominance and symmetry rules (equal tasks, the lex-least of the layout's symmetric
 * task sets, symmetric placements, no same-placement replacement, creation order) lose
 * nothing: the same optimum as the search pruned by bounds alone, from random layouts, on
 * batches beyond the brute force's reach. */
static double search_optimum(const ms_workload *w, const ms_gpu_model *g, const ms_initial *initial,
                             bool no_rules, bool no_bins, long *nodes)
{
    opt_problem *o = malloc(sizeof *o);
    ms_error err;
    assert_non_null(o);
    assert_int_equal(opt_problem_init(o, w, g, initial, &err), 0);
    o->no_rules = no_rules;
    o->no_pack = o->no_assign = no_bins;
    opt_search(o);
    assert_false(o->stopped);
    double best = o->best;
    *nodes += o->nodes;
    opt_problem_free(o);
    free(o);
    return best;
}

static void check_rules(const char *model, const char *preset, int n, int cases, uint64_t seed)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    long with = 0, without = 0;
    for (int c = 0; c < cases; c++) {
        ms_workload *w = NULL;
        if (preset) {
            ms_gen_params p;
            ms_error err;
            assert_int_equal(ms_gen_preset(g, preset, &p, &err), 0);
            assert_int_equal(ms_generate(g, &p, n, &r, &w, &err), 0);
        } else {
            w = bf_random_workload(g, n, &r);
        }
        ms_initial layout;
        random_layout(g, c, &r, &layout);
        double a = search_optimum(w, g, &layout, false, false, &with);
        double b = search_optimum(w, g, &layout, true, false, &without);
        assert_near(a, b, EPS * b);
        ms_initial_fini(&layout);
        ms_workload_free(w);
    }
    print_message("%s %s n=%d: %ld nodes with the rules, %ld without\n", model,
                  preset ? preset : "tiny", n, with, without);
}

static void test_rules_lose_nothing(void **st)
{
    (void)st;
    check_rules("A30-24GB", NULL, 4, 40, 61);
    check_rules("A30-24GB", "MIXEDSCALING", 6, 8, 62);
    check_rules("A30-24GB", "POORSCALING,WIDETIMES", 6, 8, 63);
    check_rules("A100-40GB", NULL, 4, 20, 64);
    check_rules("A100-40GB", "MIXEDSCALING,WIDETIMES", 5, 6, 65);
    check_rules("A100-40GB", "MIXSCALINGEXTREME", 5, 6, 66);
    check_rules("A100-40GB", "POORSCALING", 6, 4, 67);
    check_rules("A100-40GB", "GOODSCALING,WIDETIMES", 6, 4, 68);
}

/* The packing bounds and the slot assignment never cut off an optimum: the same makespan
 * with them and without, on generated batches of 5 to 7 tasks, from an empty GPU and from
 * whole partitions. */
static void check_pack(const char *model, const char *layout_text, uint64_t seed)
{
    static const char *const presets[] = {"MIXEDSCALING", "POORSCALING,WIDETIMES", "GOODSCALING",
                                          "MIXSCALINGEXTREME,WIDETIMES"};
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    ms_initial layout;
    ms_error err;
    if (ms_initial_parse(layout_text, g, 1, &layout, &err))
        fail_msg("%s", err.msg);
    long with = 0, without = 0;
    for (int n = 5; n <= 7; n++)
        for (int k = 0; k < 4; k++) {
            ms_gen_params p;
            ms_workload *w = NULL;
            assert_int_equal(ms_gen_preset(g, presets[k], &p, &err), 0);
            assert_int_equal(ms_generate(g, &p, n, &r, &w, &err), 0);
            double a = search_optimum(w, g, &layout, false, false, &with);
            double b = search_optimum(w, g, &layout, false, true, &without);
            if (fabs(a - b) > EPS * b)
                fail_msg("%s from %s, n=%d %s: %.9f with the packing bounds and the slot "
                         "assignment, %.9f without",
                         model, layout_text, n, presets[k], a, b);
            ms_workload_free(w);
        }
    ms_initial_fini(&layout);
    print_message("%s from %s: %ld nodes with the packing bounds and the slot assignment, %ld "
                  "without\n",
                  model, layout_text, with, without);
}

static void test_pack_loses_nothing(void **st)
{
    (void)st;
    for (uint64_t seed = 0; seed < 3; seed++) {
        check_pack("A100-40GB", "empty", 70 + seed);
        check_pack("A100-40GB", "4-3", 73 + seed);
        check_pack("A100-40GB", "2-2-2-1", 76 + seed);
        check_pack("A30-24GB", "empty", 79 + seed);
        check_pack("A30-24GB", "2-1-1", 82 + seed);
    }
}

/* The slot assignment at the root from an empty GPU, on tiny random batches: it never cuts
 * at a cut-off above the brute-force optimum (a schedule ends below it), and it does cut
 * some cut-offs below it (it is a bound that can fail). */
static void check_assign_root(const char *model, int cases, uint64_t seed)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    int cut = 0;
    for (int c = 0; c < cases; c++) {
        ms_workload *w = bf_random_workload(g, 1 + c % 4, &r);
        long leaves;
        double opt = bf_optimum(g, w, true, NULL, &leaves);
        opt_problem *o = malloc(sizeof *o);
        ms_error err;
        assert_non_null(o);
        assert_int_equal(opt_problem_init(o, w, g, NULL, &err), 0);
        double chain[OPT_MAX_PL] = {0}; /* nothing to destroy before any creation */
        uint64_t all = (1ull << w->n) - 1;
        if (opt_assign_cuts(o, chain, all, opt + 1e-6))
            fail_msg("%s case %d: the slot assignment cuts above the optimum %.9f", model, c, opt);
        cut += opt_assign_cuts(o, chain, all, opt - 1e-6 * opt);
        opt_problem_free(o);
        free(o);
        ms_workload_free(w);
    }
    print_message("%s: the slot assignment cut %d of %d batches just below the optimum\n", model,
                  cut, cases);
    assert_true(cut > 0);
}

static void test_assign_root_below_optimum(void **st)
{
    (void)st;
    check_assign_root("A30-24GB", 60, 91);
    check_assign_root("A100-40GB", 60, 92);
    check_assign_root("H100-80GB", 30, 93);
}

/* A node limit stops the search at the same place every time: same bytes. */
static void test_node_limit_deterministic(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A100-40GB");
    ms_rng r;
    ms_rng_seed(&r, 9);
    ms_gen_params p;
    ms_workload *w = NULL;
    ms_error err;
    assert_int_equal(ms_gen_preset(g, "MIXEDSCALING,WIDETIMES", &p, &err), 0);
    assert_int_equal(ms_generate(g, &p, 12, &r, &w, &err), 0);
    char *text[2];
    for (int k = 0; k < 2; k++) {
        ms_schedule *s = run_optimal(w, g, NULL, 300, 0); /* far below its proof's nodes */
        assert_near(ms_schedule_stat(s, "proved"), 0, 0);
        assert_near(ms_schedule_stat(s, "nodes"), 300, 0);
        ms_schedule *far = NULL;
        assert_int_equal(ms_offline_schedule("far", w, g, 1, NULL, &far, &err), 0);
        assert_true(ms_schedule_makespan(s) <= ms_schedule_makespan(far) + EPS);
        ms_schedule_free(far);
        ms_schedule_drop_timings(s);
        size_t len;
        FILE *f = open_memstream(&text[k], &len);
        assert_int_equal(ms_schedule_write_json(s, w, f, &err), 0);
        fclose(f);
        ms_schedule_free(s);
    }
    assert_string_equal(text[0], text[1]);
    free(text[0]);
    free(text[1]);
    /* a time budget also returns a valid schedule (how far it gets depends on the machine) */
    ms_schedule_free(run_optimal(w, g, NULL, 0, 1));
    ms_workload_free(w);
}

/* Three identical tasks that scale perfectly on an A30: 4, 2 and 1 s on 1, 2 and 4 slices. */
static ms_workload *three_equal_tasks(void)
{
    const double t[3][MS_MAX_SLICES + 1] = {{INFINITY, 4, 2, INFINITY, 1},
                                            {INFINITY, 4, 2, INFINITY, 1},
                                            {INFINITY, 4, 2, INFINITY, 1}};
    return bf_workload(3, t);
}

/* One GPU and one batch only, and a layout on that GPU, with messages that say so. */
static void test_refusals(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A30-24GB");
    ms_workload *w = three_equal_tasks();
    ms_offline_options o;
    ms_offline_options_init(&o);
    ms_schedule *s = NULL;
    ms_error err;
    assert_int_equal(ms_offline_schedule("optimal", w, g, 2, &o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "one GPU"));
    assert_null(s);
    o.batch = 2;
    assert_int_equal(ms_offline_schedule("optimal", w, g, 1, &o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "one batch"));
    /* a batch covering the whole workload is one batch */
    o.batch = 3;
    assert_int_equal(ms_offline_schedule("optimal", w, g, 1, &o, &s, &err), 0);
    ms_schedule_free(s);
    s = NULL;
    ms_initial two;
    assert_int_equal(ms_initial_parse("4,4", g, 2, &two, &err), 0);
    o.initial = &two;
    assert_int_equal(ms_offline_schedule("optimal", w, g, 1, &o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "GPU 1"));
    assert_null(s);
    ms_initial_fini(&two);
    ms_workload_free(w);
}

/* Three identical perfectly scaling tasks on an A30. Held from the start, the whole GPU
 * runs them back to back in 3 s, which nothing beats (area 12 slice-seconds on 4 slices).
 * From an empty GPU, creating it (0.13 s) first gives 3.13 s, which the brute force finds
 * optimal too. From 1-1-1-1, destroying the four 1g (0.40 s) and creating it gives 3.53 s:
 * a task on a 1g ends at 4 s or later, and a 2g is free at 0.32 s at the earliest (two
 * destructions, a creation), so two of the three tasks on 2g end at 4.32 s or later. */
static void test_equal_tasks_known(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A30-24GB");
    ms_workload *w = three_equal_tasks();
    static const char *const layouts[] = {"4", "empty", "1-1-1-1"};
    static const double expect[] = {3.0, 3.13, 3.53};
    for (int k = 0; k < 3; k++) {
        ms_initial layout;
        ms_error err;
        assert_int_equal(ms_initial_parse(layouts[k], g, 1, &layout, &err), 0);
        long leaves;
        assert_near(bf_optimum(g, w, true, &layout, &leaves), expect[k], EPS);
        ms_schedule *s = run_optimal(w, g, &layout, 0, 0);
        assert_near(ms_schedule_makespan(s), expect[k], EPS);
        assert_near(ms_schedule_stat(s, "proved"), 1, 0);
        assert_near(ms_schedule_stat(s, "lower_bound"), expect[k], EPS);
        ms_schedule_free(s);
        ms_initial_fini(&layout);
    }
    ms_workload_free(w);
}

/* Batches of A100 tasks where a bound once cut off the optimum: a valid plan (made then,
 * kept in tests/data/optimal) ends at 69.2705 s and 41.5336 s, and a proof claimed 69.4305
 * s and 41.7036 s (7 tasks each); bench_optimal's 10 tasks of MIXSCALINGEXTREME, 130.7271 s,
 * where a slot assignment whose slot lines could end earlier as they grew claimed 130.7371
 * s. A proved optimum is never above a valid plan of the same workload. */
static void test_never_above_a_valid_plan(void **st)
{
    (void)st;
    static const char *const cases[] = {"a100_extreme1", "a100_good31", "a100_extreme10"};
    const ms_gpu_model *g = ms_gpu_builtin("A100-40GB");
    for (int k = 0; k < 3; k++) {
        char path[128];
        ms_workload *w = NULL;
        ms_schedule *plan = NULL;
        ms_error err;
        snprintf(path, sizeof path, "tests/data/optimal/%s.csv", cases[k]);
        if (ms_workload_read(test_source_path(path), g, &w, &err))
            fail_msg("%s", err.msg);
        snprintf(path, sizeof path, "tests/data/optimal/%s.plan.json", cases[k]);
        if (ms_schedule_read_json(test_source_path(path), g, &plan, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(ms_schedule_validate_initial(plan, w, NULL, NULL), 0);
        ms_schedule *s = run_optimal(w, g, NULL, 0, 0);
        assert_true(ms_schedule_stat(s, "proved") == 1);
        if (!(ms_schedule_makespan(s) <= ms_schedule_makespan(plan) + EPS))
            fail_msg("%s: 'proved' %.9f above a valid plan's %.9f", cases[k],
                     ms_schedule_makespan(s), ms_schedule_makespan(plan));
        ms_schedule_free(s);
        ms_schedule_free(plan);
        ms_workload_free(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_tasks_known),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_node_limit_deterministic),
        cmocka_unit_test(test_bruteforce_a30),
        cmocka_unit_test(test_bruteforce_a100),
        cmocka_unit_test(test_bruteforce_h_b),
        cmocka_unit_test(test_rules_lose_nothing),
        cmocka_unit_test(test_pack_loses_nothing),
        cmocka_unit_test(test_never_worse_a30),
        cmocka_unit_test(test_never_worse_a100),
        cmocka_unit_test(test_never_above_a_valid_plan),
        cmocka_unit_test(test_assign_root_below_optimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
