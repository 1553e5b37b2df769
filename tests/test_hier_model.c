/* test_hier_model.c: paper 004's setups (Table VII counts, V-A5 notation), the catalogue's
 * classes (Table IV by V-A2's rule) and the co-run model's limits. */
#include <stdio.h>
#include <string.h>

#include "migsched/hier.h"
#include "support.h"

static size_t count(int c, int fam) { return ms_hier_setups_for(c, fam, NULL, 0); }

/* Counted by hand from Table VII: MPS only, splits at 10% steps without order plus the
 * equal split when it is off the grid: C=2 1/9..5/5 (5); C=3 the 8 partitions of 10 into 3
 * parts + 34/33/33 (9); C=4 the 9 partitions of 10 into 4 parts + 25x4 (10). MIG only: 3g+4g
 * shared and private (2, C=2 only). Hierarchical: C=3 3g alone + 4g split 1/9..5/5, private
 * and shared (5+5); C=4 both CIs split 1/9..5/5, every pair, private and shared (25+25). */
static void test_table7_counts(void **state)
{
    (void)state;
    assert_int_equal(count(2, MS_HIER_FAM_MPS), 5);
    assert_int_equal(count(3, MS_HIER_FAM_MPS), 9);
    assert_int_equal(count(4, MS_HIER_FAM_MPS), 10);
    assert_int_equal(count(2, MS_HIER_FAM_MIG), 2);
    assert_int_equal(count(3, MS_HIER_FAM_MIG), 0);
    assert_int_equal(count(2, MS_HIER_FAM_HIER), 0);
    assert_int_equal(count(3, MS_HIER_FAM_HIER), 10);
    assert_int_equal(count(4, MS_HIER_FAM_HIER), 50);
    assert_int_equal(count(2, MS_HIER_FAM_TABLE7), 7);
    assert_int_equal(count(3, MS_HIER_FAM_TABLE7), 19);
    assert_int_equal(count(4, MS_HIER_FAM_TABLE7), 60);
    assert_int_equal(count(1, MS_HIER_FAM_SOLO), 1);
    assert_int_equal(count(5, MS_HIER_FAM_TABLE7), 0);
    /* default MPS: one layout without MIG, c-1 splits of the jobs over 3g/4g otherwise */
    assert_int_equal(ms_hier_default_setups(4, MS_HIER_NOMIG, NULL, 0), 1);
    assert_int_equal(ms_hier_default_setups(4, MS_HIER_PRIVATE, NULL, 0), 3);
}

/* Every setup: shares sum to the CI, ids unique and found again, 1..C clients per CI. */
static void test_setups_consistent(void **state)
{
    (void)state;
    for (int c = 1; c <= MS_HIER_MAX_C; c++) {
        ms_hier_setup s[128];
        size_t n = ms_hier_setups_for(
            c, MS_HIER_FAM_SOLO | MS_HIER_FAM_TABLE7 | MS_HIER_FAM_DEFAULT, s, 128);
        assert_true(n > 0 && n <= 128);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(s[i].c, c);
            int sum[2] = {0, 0}, fixed[2] = {0, 0};
            for (int k = 0; k < c; k++) {
                sum[s[i].slot[k].ci] += s[i].slot[k].pct;
                fixed[s[i].slot[k].ci] |= s[i].slot[k].pct > 0;
            }
            for (int ci = 0; ci < s[i].n_ci; ci++)
                assert_true(!fixed[ci] || sum[ci] == 100);
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(s[i].id, s[j].id);
            ms_hier_setup back;
            assert_int_equal(ms_hier_setup_by_id(s[i].id, &back), 0);
            assert_memory_equal(&back, &s[i], sizeof back);
        }
    }
    ms_hier_setup x;
    assert_int_equal(ms_hier_setup_by_id("mps:15+85", &x), -1);
}

static void expect_notation(const char *id, const char *want)
{
    ms_hier_setup s;
    char buf[256];
    assert_int_equal(ms_hier_setup_by_id(id, &s), 0);
    ms_hier_setup_notation(&s, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* The strings of Table VII and V-A5. */
static void test_notation(void **state)
{
    (void)state;
    expect_notation("mps:10+90", "[(0.1)+(0.9), 1m]");
    expect_notation("mps:34+33+33", "[(0.34)+(0.33)+(0.33), 1m]");
    expect_notation("mps:25+25+25+25", "[(0.25)+(0.25)+(0.25)+(0.25), 1m]");
    expect_notation("shared:3g(100)+4g(100)", "[{(0.375)} + {(0.5)}, 1m]");
    expect_notation("private:3g(100)+4g(100)", "[{(0.375)}, 0.5m] + [{(0.5)}, 0.5m]");
    expect_notation("private:3g(100)+4g(10+90)", "[{(0.375)}, 0.5m] + [(0.1)+(0.9), {0.5}, 0.5m]");
    expect_notation("private:3g(50+50)+4g(50+50)",
                    "[(0.5)+(0.5), {0.375}, 0.5m] + [(0.5)+(0.5), {0.5}, 0.5m]");
    expect_notation("shared:3g(10+90)+4g(10+90)", "[(0.1)+(0.9){0.375} + (0.1)+(0.9){0.5}, 1m]");
}

/* V-A2's rule on the modelled catalogue gives Table IV's classes; nine are held out. */
static void test_catalogue_classes(void **state)
{
    (void)state;
    static const char *ci[] = {"lavaMD",    "huffman",     "hotspot3D",   "hotspot",
                               "heartwall", "bt_solver_A", "bt_solver_B", "bt_solver_C"};
    static const char *mi[] = {"lud_A",       "lud_B",        "lud_C", "sp_solver_A", "sp_solver_B",
                               "sp_solver_C", "randomaccess", "cfd",   "gaussian",    "stream"};
    static const char *us[] = {"kmeans",      "dwt2d",        "needle",
                               "pathfinder",  "backprop",     "qs_Coral_P1",
                               "qs_Coral_P2", "qs_NoFission", "qs_NoCollisions"};
    ms_hier_catalog cat;
    ms_error err;
    assert_int_equal(ms_hier_catalog_builtin(&cat, &err), 0);
    assert_int_equal(cat.n, 27);
    assert_true(cat.modelled);
    ms_hier_params par = ms_hier_params_default();
    const char **lists[3] = {ci, mi, us};
    size_t sizes[3] = {8, 10, 9};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < sizes[k]; i++) {
            const ms_hier_profile *p = ms_hier_catalog_find(&cat, lists[k][i]);
            assert_non_null(p);
            assert_int_equal(p->cls, k);
            assert_int_equal(ms_hier_classify(p, &par), k);
            assert_int_equal(ms_hier_profile_check(p, &err), 0);
        }
    int unseen = 0;
    for (size_t i = 0; i < cat.n; i++)
        unseen += cat.jobs[i].unseen;
    assert_int_equal(unseen, 9);
    /* Table V's mixes are catalogue jobs with the class counts of their category */
    for (int q = 0; q < 12; q++) {
        int per[3] = {0, 0, 0};
        ms_hier_window w;
        assert_int_equal(ms_hier_window_from_names(&cat, ms_hier_table5_mix(q, NULL), 12, &w, &err),
                         0);
        for (size_t j = 0; j < w.n; j++)
            per[w.jobs[j].cls]++;
        int dom = q / 3;
        for (int k = 0; k < 3; k++)
            assert_int_equal(per[k], dom == 3 ? 4 : k == dom ? 6 : 3);
        ms_hier_window_fini(&w);
    }
    /* a measured 1-GPC time overrides the model: 5% slower makes any job unscalable */
    ms_hier_profile p = *ms_hier_catalog_find(&cat, "lavaMD");
    p.t_1gpc = p.solo * 1.05;
    assert_int_equal(ms_hier_classify(&p, &par), MS_HIER_US);
    ms_hier_catalog_fini(&cat);
}

static ms_hier_profile job(const char *name, double solo, double s, double m)
{
    ms_hier_profile p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.solo = solo;
    p.serial = s;
    p.mem = m;
    p.cache = 1;
    return p;
}

/* Limits of the model: alone on the whole GPU a job takes its solo time; a fully parallel
 * compute job with 50% of the SMs takes twice as long; private memory removes interference. */
static void test_model_limits(void **state)
{
    (void)state;
    ms_hier_params par = ms_hier_params_default();
    ms_hier_setup s;
    double t[MS_HIER_MAX_C];
    ms_hier_profile a = job("a", 10, 0.0, 0.0), b = job("b", 20, 0.0, 0.0);
    const ms_hier_profile *ab[2] = {&a, &b};
    assert_int_equal(ms_hier_setup_by_id("mps:50+50", &s), 0);
    ms_hier_model_times(&par, ab, &s, t);
    assert_near(t[0], 20, 1e-9);
    assert_near(t[1], 40, 1e-9);
    /* default MPS is work-conserving: a finishes at 20, b then runs on the whole GPU */
    assert_int_equal(ms_hier_setup_by_id("mps:def+def", &s), 0);
    ms_hier_model_times(&par, ab, &s, t);
    assert_near(t[0], 20, 1e-9);
    assert_near(t[1], 30, 1e-9);
    /* two memory-bound jobs: shared memory interferes, private memory does not */
    ms_hier_profile m1 = job("m1", 10, 0.5, 0.9), m2 = job("m2", 10, 0.5, 0.9);
    const ms_hier_profile *mm[2] = {&m1, &m2};
    double shared[2], priv[2];
    assert_int_equal(ms_hier_setup_by_id("shared:3g(100)+4g(100)", &s), 0);
    ms_hier_model_times(&par, mm, &s, shared);
    assert_int_equal(ms_hier_setup_by_id("private:3g(100)+4g(100)", &s), 0);
    ms_hier_model_times(&par, mm, &s, priv);
    assert_true(priv[0] < shared[0] && priv[1] < shared[1]);
    assert_near(priv[1], fmax(10 * (0.5 + 0.5 / 0.5), 10 * 0.9 / 0.5), 1e-9);
    /* the solo setup gives the solo time, whatever the profile */
    const ms_hier_profile *one[1] = {&m1};
    assert_int_equal(ms_hier_setup_by_id("solo", &s), 0);
    ms_hier_model_times(&par, one, &s, t);
    assert_near(t[0], 10, 1e-9);
}

/* Choices counted by hand for 3 jobs, C_max 2: 3 singletons; each of the 3 pairs on 5 MPS
 * splits (10/90..40/60 in two orders, 50/50 in one: 9) and 2 MIG setups in two orders (4). */
static void test_choices(void **state)
{
    (void)state;
    assert_int_equal(ms_hier_choices(07, 2, MS_HIER_FAM_TABLE7, NULL, 0), 3 + 3 * 13);
    ms_hier_choice ch[64];
    size_t n = ms_hier_choices(05, 2, MS_HIER_FAM_TABLE7, ch, 64); /* jobs 0 and 2 */
    assert_int_equal(n, 2 + 13);
    assert_int_equal(ch[0].c, 1);
    assert_int_equal(ch[0].job[0], 0);
    assert_int_equal(ch[1].job[0], 2);
    for (size_t i = 2; i < n; i++) {
        assert_int_equal(ch[i].c, 2);
        assert_true((ch[i].job[0] == 0 && ch[i].job[1] == 2) ||
                    (ch[i].job[0] == 2 && ch[i].job[1] == 0));
        assert_true(ch[i].setup >= 0 && ch[i].setup < 7);
    }
    /* the written prefix is the same whatever the capacity */
    ms_hier_choice few[4];
    assert_int_equal(ms_hier_choices(05, 2, MS_HIER_FAM_TABLE7, few, 4), n);
    assert_memory_equal(few, ch, sizeof few);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table7_counts), cmocka_unit_test(test_setups_consistent),
        cmocka_unit_test(test_notation),      cmocka_unit_test(test_catalogue_classes),
        cmocka_unit_test(test_model_limits),  cmocka_unit_test(test_choices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
