/* test_optimal.c: the exact scheduler (--algo optimal): its proved makespan equals the
 * brute-force optimum (bruteforce.c) on tiny batches of every built-in model, its schedules
 * validate, it is never worse than a heuristic when it proves optimality, and its
 * node-limited mode is deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/offline/optimal_internal.h"
#include "bruteforce.h"
#include "migsched/offline.h"
#include "support.h"

#define EPS 1e-9

static const char *const heuristics[] = {"far", "fixpartbest", "miso", "miso-eager", "nomig"};

/* Runs optimal with the given limits and checks the schedule against the validator. */
static ms_schedule *run_optimal(const ms_workload *w, const ms_gpu_model *g, long node_limit,
                                double budget_ms)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.node_limit = node_limit;
    o.time_budget_ms = budget_ms;
    ms_schedule *s = NULL;
    ms_error err;
    int rc = ms_offline_schedule("optimal", w, g, 1, &o, &s, &err);
    if (rc)
        fail_msg("optimal failed: %s", err.msg);
    ms_validation v = {0};
    int bad = ms_schedule_validate(s, w, &v);
    for (int i = 0; i < v.n && bad; i++)
        print_message("invalid: [%s] %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_free(&v);
    assert_int_equal(bad, 0);
    double lb = ms_schedule_stat(s, "lower_bound");
    assert_true(lb <= ms_schedule_makespan(s) + EPS);
    assert_true(ms_schedule_stat(s, "nodes") >= 0);
    return s;
}

/* Every built-in model, n = 1..4: the proved makespan is the exhaustive optimum over
 * schedules whose initial instances are free (as FIXPART and NOMIG assume). */
static void check_bruteforce(const char *model, int cases, uint64_t seed)
{
    const ms_gpu_model *g = ms_gpu_builtin(model);
    ms_rng r;
    ms_rng_seed(&r, seed);
    long leaves = 0, nodes = 0;
    for (int c = 0; c < cases; c++) {
        ms_workload *w = bf_random_workload(g, 1 + c % 4, &r);
        long l;
        double opt = bf_optimum(g, w, true, NULL, true, &l);
        leaves += l;
        ms_schedule *s = run_optimal(w, g, 0, 0);
        nodes += (long)ms_schedule_stat(s, "nodes");
        assert_near(ms_schedule_stat(s, "proved"), 1, 0);
        if (fabs(ms_schedule_makespan(s) - opt) > EPS)
            for (int i = 0; i < w->n; i++)
                print_message("  t%d: %g %g %g %g %g\n", i, w->tasks[i].time[1],
                              w->tasks[i].time[2], w->tasks[i].time[3], w->tasks[i].time[4],
                              w->tasks[i].time[7]);
        assert_near(ms_schedule_makespan(s), opt, EPS);
        /* stopped after a few nodes: still valid, never better than the optimum, and its
         * lower bound below it */
        ms_schedule *q = run_optimal(w, g, 2, 0);
        assert_true(ms_schedule_makespan(q) >= opt - EPS);
        assert_true(ms_schedule_stat(q, "lower_bound") <= opt + EPS);
        ms_schedule_free(q);
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    print_message("%s: %d batches, %ld brute-force candidates, %ld branch-and-bound nodes\n",
                  model, cases, leaves, nodes);
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
static void check_heuristics(const char *model, const char *const *presets, int npresets,
                             int nmin, int nmax, uint64_t seed)
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
            ms_schedule *s = run_optimal(w, g, 2000000, 0);
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

/* The dominance and symmetry rules (equal tasks, lex-least initial instances, symmetric
 * placements, creations on held slots only, no same-placement replacement, creation
 * order) lose nothing: the same optimum as the search pruned by bounds alone, on batches
 * beyond the brute force's reach. */
static double search_optimum(const ms_workload *w, const ms_gpu_model *g, bool no_rules,
                             long *nodes)
{
    opt_problem *o = malloc(sizeof *o);
    ms_error err;
    assert_non_null(o);
    assert_int_equal(opt_problem_init(o, w, g, &err), 0);
    o->no_rules = no_rules;
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
        double a = search_optimum(w, g, false, &with), b = search_optimum(w, g, true, &without);
        assert_near(a, b, EPS * b);
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
        ms_schedule *s = run_optimal(w, g, 5000, 0);
        assert_near(ms_schedule_stat(s, "proved"), 0, 0);
        assert_near(ms_schedule_stat(s, "nodes"), 5000, 0);
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
    ms_schedule_free(run_optimal(w, g, 0, 1));
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

/* One GPU and one batch only, with messages that say so. */
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
    ms_workload_free(w);
}

/* Three identical perfectly scaling tasks on an A30: the whole GPU from the start runs them
 * back to back in 3 s, which nothing beats (area 12 slice-seconds on 4 slices). */
static void test_equal_tasks_known(void **st)
{
    (void)st;
    const ms_gpu_model *g = ms_gpu_builtin("A30-24GB");
    ms_workload *w = three_equal_tasks();
    ms_schedule *s = run_optimal(w, g, 0, 0);
    assert_near(ms_schedule_makespan(s), 3.0, EPS);
    assert_near(ms_schedule_stat(s, "proved"), 1, 0);
    assert_near(ms_schedule_stat(s, "lower_bound"), 3.0, EPS);
    ms_schedule_free(s);
    ms_workload_free(w);
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
        cmocka_unit_test(test_never_worse_a30),
        cmocka_unit_test(test_never_worse_a100),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
