/* test_hier_solve.c: covers of job windows (paper 004 IV-A): the set-partition DP against
 * brute force over every set partition, every policy's plans checked, determinism. */
#include <stdio.h>
#include <string.h>

#include "migsched/hier.h"
#include "support.h"

/* Every test plans on the modelled catalogue with the model's co-run times. */
static ms_hier_catalog cat;
static ms_hier_corun *cr;

static int setup(void **state)
{
    (void)state;
    ms_error err;
    cr = ms_hier_corun_model(NULL);
    return !cr || ms_hier_catalog_builtin(&cat, &err);
}

static int teardown(void **state)
{
    (void)state;
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return 0;
}

/* Brute force: every partition of jobs[0..n-1] into blocks of <= cmax, each block at its
 * best setup; returns the least total. */
static double brute(const ms_hier_window *w, int cmax, int fam, int *block, int n, int next,
                    int nblocks)
{
    if (next == n) {
        double total = 0;
        for (int b = 0; b < nblocks; b++) {
            int jobs[MS_HIER_MAX_C], c = 0;
            for (int j = 0; j < n; j++)
                if (block[j] == b)
                    jobs[c++] = j;
            ms_hier_group g;
            if (ms_hier_group_best(w, cr, jobs, c, fam, MS_HIER_NOMIG, &g))
                return INFINITY;
            total += g.corun;
        }
        return total;
    }
    double best = INFINITY;
    for (int b = 0; b <= nblocks; b++) {
        int size = 0;
        for (int j = 0; j < next; j++)
            size += block[j] == b;
        if (size == cmax)
            continue;
        block[next] = b;
        double v = brute(w, cmax, fam, block, n, next + 1, b == nblocks ? nblocks + 1 : nblocks);
        best = fmin(best, v);
    }
    return best;
}

static void test_dp_matches_brute_force(void **state)
{
    (void)state;
    ms_error err;
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    for (int trial = 0; trial < 12; trial++) {
        size_t n = 3 + (size_t)(trial % 4); /* 3..6 jobs */
        int cmax = 2 + trial % 3;
        ms_hier_window w;
        assert_int_equal(ms_hier_window_mix(&cat, trial % MS_HIER_NMIX, n, -1, &rng, &w, &err), 0);
        for (ms_hier_policy p = MS_HIER_MIG2; p <= MS_HIER_OPTIMAL; p++) {
            if (p == MS_HIER_RL || p == MS_HIER_DEFAULT)
                continue;
            int fam = p == MS_HIER_MIG2  ? MS_HIER_FAM_MIG
                      : p == MS_HIER_MPS ? MS_HIER_FAM_MPS
                                         : MS_HIER_FAM_TABLE7;
            int cm = p == MS_HIER_MIG2 ? 2 : cmax;
            ms_hier_plan plan;
            assert_int_equal(ms_hier_solve(&w, cr, cmax, p, MS_HIER_NOMIG, &plan, &err), 0);
            assert_int_equal(ms_hier_plan_check(&plan, &w, cr, cm, &err), 0);
            int block[16];
            double want = brute(&w, cm, fam, block, (int)n, 0, 0);
            assert_near(plan.total, want, 1e-9 * want);
            ms_hier_plan_fini(&plan);
        }
        ms_hier_window_fini(&w);
    }
}

/* Property: on random mixes every policy's plan passes the checks, the optimum is no worse
 * than the baselines whose setups it includes, and time sharing has throughput 1. */
static void test_policies_property(void **state)
{
    (void)state;
    ms_error err;
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    for (int trial = 0; trial < 8; trial++) {
        ms_hier_window w;
        assert_int_equal(ms_hier_window_mix(&cat, trial % MS_HIER_NMIX, 8, -1, &rng, &w, &err), 0);
        double total[MS_HIER_NPOLICY];
        for (ms_hier_policy p = 0; p < MS_HIER_NPOLICY; p++) {
            if (p == MS_HIER_RL)
                continue;
            ms_hier_plan plan;
            assert_int_equal(ms_hier_solve(&w, cr, 4, p, (ms_hier_layout)(trial % 3), &plan, &err),
                             0);
            assert_int_equal(ms_hier_plan_check(&plan, &w, cr, 4, &err), 0);
            ms_hier_metrics m;
            double sd[16];
            ms_hier_plan_metrics(&plan, &w, &m, sd);
            assert_true(m.fairness > 0 && m.fairness <= 1);
            assert_true(m.mean_slowdown >= 1 - 1e-9);
            if (p == MS_HIER_TIMESHARE) {
                assert_near(m.throughput, 1.0, 1e-12);
                assert_near(m.fairness, 1.0, 1e-12);
            }
            total[p] = plan.total;
            ms_hier_plan_fini(&plan);
        }
        assert_true(total[MS_HIER_OPTIMAL] <= total[MS_HIER_MPS] + 1e-9);
        assert_true(total[MS_HIER_OPTIMAL] <= total[MS_HIER_MIG2] + 1e-9);
        assert_true(total[MS_HIER_OPTIMAL] <= total[MS_HIER_TIMESHARE] + 1e-9);
        ms_hier_window_fini(&w);
    }
}

/* A broken plan is caught: a job twice, a job missing, a wrong time, a set over C_max. */
static void test_plan_check_rejects(void **state)
{
    (void)state;
    ms_error err;
    const char *names[] = {"lavaMD", "stream", "kmeans"};
    ms_hier_window w;
    assert_int_equal(ms_hier_window_from_names(&cat, names, 3, &w, &err), 0);
    ms_hier_plan plan;
    assert_int_equal(ms_hier_solve(&w, cr, 3, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &plan, &err), 0);
    assert_int_equal(ms_hier_plan_check(&plan, &w, cr, 3, &err), 0);
    plan.groups[0].time[0] *= 1.01;
    assert_int_not_equal(ms_hier_plan_check(&plan, &w, cr, 3, &err), 0);
    plan.groups[0].time[0] /= 1.01;
    assert_int_not_equal(ms_hier_plan_check(&plan, &w, cr, plan.groups[0].c - 1, &err), 0);
    ms_hier_plan_fini(&plan);
    /* an explicit plan: every job alone but one twice */
    ms_hier_setup solo;
    assert_int_equal(ms_hier_setup_by_id("solo", &solo), 0);
    int j0 = 0, j1 = 1;
    assert_int_equal(ms_hier_plan_add(&plan, &w, cr, &j0, &solo, &err), 0);
    assert_int_equal(ms_hier_plan_add(&plan, &w, cr, &j1, &solo, &err), 0);
    assert_int_not_equal(ms_hier_plan_check(&plan, &w, cr, 1, &err), 0);
    assert_non_null(strstr(err.msg, "kmeans"));
    assert_int_equal(ms_hier_plan_add(&plan, &w, cr, &j1, &solo, &err), 0);
    assert_int_not_equal(ms_hier_plan_check(&plan, &w, cr, 1, &err), 0);
    ms_hier_plan_fini(&plan);
    /* two memory-bound jobs on 10/90 MPS are slower than time sharing: refused */
    ms_hier_setup s;
    assert_int_equal(ms_hier_setup_by_id("mps:10+90", &s), 0);
    const char *mi[] = {"stream", "randomaccess"};
    ms_hier_window w2;
    assert_int_equal(ms_hier_window_from_names(&cat, mi, 2, &w2, &err), 0);
    int both[2] = {0, 1};
    assert_int_equal(ms_hier_plan_add(&plan, &w2, cr, both, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "time sharing"));
    ms_hier_plan_fini(&plan);
    ms_hier_window_fini(&w2);
    ms_hier_window_fini(&w);
}

/* Same inputs, same plan, byte for byte; mixes from the same seed are the same. */
static void test_deterministic(void **state)
{
    (void)state;
    ms_error err;
    ms_hier_window a, b;
    ms_rng r1, r2;
    ms_rng_seed(&r1, 9);
    ms_rng_seed(&r2, 9);
    assert_int_equal(ms_hier_window_mix(&cat, MS_HIER_MIX_BALANCED, 10, 0, &r1, &a, &err), 0);
    assert_int_equal(ms_hier_window_mix(&cat, MS_HIER_MIX_BALANCED, 10, 0, &r2, &b, &err), 0);
    assert_memory_equal(a.jobs, b.jobs, a.n * sizeof *a.jobs);
    for (size_t j = 0; j < a.n; j++)
        assert_int_equal(a.jobs[j].unseen, 0);
    ms_hier_plan p1, p2;
    assert_int_equal(ms_hier_solve(&a, cr, 4, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &p1, &err), 0);
    assert_int_equal(ms_hier_solve(&b, cr, 4, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &p2, &err), 0);
    assert_int_equal(p1.n, p2.n);
    assert_memory_equal(p1.groups, p2.groups, p1.n * sizeof *p1.groups);
    ms_hier_plan_fini(&p1);
    ms_hier_plan_fini(&p2);
    ms_hier_window_fini(&a);
    ms_hier_window_fini(&b);
}

/* Every chosen plan maps to valid MIG placements: rendered on the A100-40GB it passes the
 * schedule validator, uses 7g or side-by-side 4g + 3g instances, and the MPS shares in an
 * instance add up to at most 100%. */
static void test_render_valid(void **state)
{
    (void)state;
    ms_error err;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_rng rng;
    ms_rng_seed(&rng, 21);
    for (int trial = 0; trial < 8; trial++) {
        ms_hier_window w;
        assert_int_equal(ms_hier_window_mix(&cat, trial % MS_HIER_NMIX, 7, -1, &rng, &w, &err), 0);
        for (ms_hier_policy p = 0; p < MS_HIER_NPOLICY; p++) {
            if (p == MS_HIER_RL)
                continue;
            ms_hier_plan plan;
            assert_int_equal(
                ms_hier_solve(&w, cr, 4, p, (ms_hier_layout)(1 + trial % 2), &plan, &err), 0);
            ms_hier_exec x;
            assert_int_equal(ms_hier_render(&plan, &w, gpu, &x, &err), 0);
            ms_validation v = {0};
            int bad = ms_schedule_validate(x.schedule, x.workload, &v);
            if (bad)
                fail_msg("policy %s: %s: %s", ms_hier_policy_name(p), v.v[0].rule, v.v[0].msg);
            ms_validation_fini(&v);
            int expect = 0;
            for (size_t i = 0; i < plan.n; i++) {
                const ms_hier_setup *s = &plan.groups[i].setup;
                expect += s->layout == MS_HIER_PRIVATE ? 2 : 1;
                int sum[2] = {0, 0};
                for (int k = 0; k < s->c; k++)
                    sum[s->layout == MS_HIER_PRIVATE ? s->slot[k].ci : 0] += ms_hier_render_pct(s,
                                                                                                k);
                assert_true(sum[0] <= 100 && sum[1] <= 100);
            }
            assert_int_equal(x.schedule->ninst, expect);
            for (int k = 0; k < x.schedule->ninst; k++) {
                int slices = gpu->profiles[x.schedule->inst[k].profile].slices;
                assert_true(slices == 7 || slices == 4 || slices == 3);
            }
            ms_hier_exec_fini(&x);
            ms_hier_plan_fini(&plan);
        }
        ms_hier_window_fini(&w);
    }
    /* the A30 has no 3- and 7-slice profiles: refused with a reason */
    ms_hier_window w;
    const char *names[] = {"lavaMD"};
    assert_int_equal(ms_hier_window_from_names(&cat, names, 1, &w, &err), 0);
    ms_hier_plan plan;
    ms_hier_exec x;
    assert_int_equal(ms_hier_solve(&w, cr, 4, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &plan, &err), 0);
    assert_int_equal(ms_hier_render(&plan, &w, ms_gpu_builtin("A30-24GB"), &x, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "A100-class"));
    ms_hier_plan_fini(&plan);
    ms_hier_window_fini(&w);
}

/* ms_hier_plan_window: each exhaustive policy plans as ms_hier_solve does; default with no
 * layout given picks the window's best one and reports it, and keeps one given. */
static void test_plan_window(void **state)
{
    (void)state;
    ms_error err;
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    ms_hier_window w;
    assert_int_equal(ms_hier_window_mix(&cat, MS_HIER_MIX_BALANCED, 8, -1, &rng, &w, &err), 0);
    ms_hier_plan got, want;
    int layout = -1;
    assert_int_equal(
        ms_hier_plan_window(&w, cr, 4, MS_HIER_OPTIMAL, NULL, MS_HIER_GREEDY, &layout, &got, &err),
        0);
    assert_int_equal(layout, -1);
    assert_int_equal(ms_hier_solve(&w, cr, 4, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &want, &err), 0);
    assert_int_equal(got.n, want.n);
    assert_memory_equal(got.groups, want.groups, got.n * sizeof *got.groups);
    ms_hier_plan_fini(&got);
    ms_hier_plan_fini(&want);

    ms_hier_layout best;
    assert_int_equal(ms_hier_default_layout(&w, 1, cr, 4, &best, &err), 0);
    assert_int_equal(
        ms_hier_plan_window(&w, cr, 4, MS_HIER_DEFAULT, NULL, MS_HIER_GREEDY, &layout, &got, &err),
        0);
    assert_int_equal(layout, (int)best);
    ms_hier_plan_fini(&got);

    ms_hier_layout other = best == MS_HIER_SHARED ? MS_HIER_PRIVATE : MS_HIER_SHARED;
    layout = (int)other;
    assert_int_equal(
        ms_hier_plan_window(&w, cr, 4, MS_HIER_DEFAULT, NULL, MS_HIER_GREEDY, &layout, &got, &err),
        0);
    assert_int_equal(layout, (int)other);
    assert_int_equal(ms_hier_solve(&w, cr, 4, MS_HIER_DEFAULT, other, &want, &err), 0);
    assert_int_equal(got.n, want.n);
    assert_memory_equal(got.groups, want.groups, got.n * sizeof *got.groups);
    ms_hier_plan_fini(&got);
    ms_hier_plan_fini(&want);

    assert_int_equal(ms_hier_plan_window(&w, cr, 4, MS_HIER_RL, "no-such-model.bin", MS_HIER_GREEDY,
                                         &layout, &got, &err),
                     MS_EIO);
    assert_non_null(strstr(err.msg, "no-such-model.bin"));
    ms_hier_window_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dp_matches_brute_force), cmocka_unit_test(test_policies_property),
        cmocka_unit_test(test_plan_check_rejects),     cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_render_valid),           cmocka_unit_test(test_plan_window),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
