/* test_cosched_algos.c: PLP against vertex enumeration, every algorithm's schedule through
 * the validator, and the paper's constructions (Theorem 2, Figs. 10 and 11). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"
#include "support.h"

/* Solves the n x n system M z = p by Gaussian elimination; 0 if singular. */
static int solve(int n, double *M, double *p, double *z)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(M[r * n + c]) > fabs(M[piv * n + c]))
                piv = r;
        if (fabs(M[piv * n + c]) < 1e-12)
            return 0;
        for (int k = 0; k < n; k++) {
            double t = M[c * n + k];
            M[c * n + k] = M[piv * n + k], M[piv * n + k] = t;
        }
        double t = p[c];
        p[c] = p[piv], p[piv] = t;
        for (int r = 0; r < n; r++) {
            if (r == c)
                continue;
            double f = M[r * n + c] / M[c * n + c];
            for (int k = 0; k < n; k++)
                M[r * n + k] -= f * M[c * n + k];
            p[r] -= f * p[c];
        }
    }
    for (int c = 0; c < n; c++)
        z[c] = p[c] / M[c * n + c];
    return 1;
}

/* Brute force for PLP: min sum(x) s.t. A x = p, x >= 0 over the columns of G(S). The
 * polyhedron is pointed (x >= 0), feasible (every task alone) and the objective is bounded
 * below by 0, so an optimum sits at a vertex; every vertex is the basic solution of some n
 * linearly independent columns (rank n: the loop columns form the identity). Enumerating
 * all n-subsets of columns, keeping the non-negative solutions, gives the exact optimum. */
static double plp_brute(const ms_cosched_instance *in)
{
    int n = in->n, m = 0, ca[32], cb[32];
    for (int i = 0; i < n; i++)
        ca[m] = i, cb[m++] = i;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (ms_cosched_is_edge(in, i, j))
                ca[m] = i, cb[m++] = j;
    double best = INFINITY;
    for (unsigned mask = 0; mask < (1u << m); mask++) {
        if (__builtin_popcount(mask) != n)
            continue;
        double M[16] = {0}, p[4], z[4];
        int col = 0;
        for (int k = 0; k < m; k++) {
            if (!(mask & (1u << k)))
                continue;
            int a = ca[k], b = cb[k];
            M[a * n + col] = ms_cosched_s(in, a, b == a ? a : b);
            if (a != b)
                M[b * n + col] = ms_cosched_s(in, b, a);
            col++;
        }
        memcpy(p, in->p, sizeof(double) * (size_t)n);
        if (!solve(n, M, p, z))
            continue;
        double total = 0;
        int ok = 1;
        for (int k = 0; k < n; k++)
            ok &= z[k] >= -1e-9, total += z[k];
        if (ok && total < best)
            best = total;
    }
    return best;
}

static ms_cosched_instance *random_tiny(ms_rng *r, int n)
{
    ms_cosched_instance *in = ms_cosched_instance_new(n);
    for (int i = 0; i < n; i++) {
        char name[8] = {(char)('a' + i), 0};
        in->names[i] = strdup(name);
        in->p[i] = 0.5 + 5 * ms_rng_uniform(r);
        for (int j = 0; j < n; j++)
            in->speed[i * n + j] = i == j ? 1 : ms_rng_uniform(r) < 0.2 ? 0 : ms_rng_uniform(r);
    }
    return in;
}

static void test_plp_brute_force(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 5);
    for (int trial = 0; trial < 300; trial++) {
        ms_cosched_instance *in = random_tiny(&r, 2 + trial % 3);
        ms_cosched_lp lp;
        assert_int_equal(ms_cosched_plp(in, &lp, NULL), 0);
        double want = plp_brute(in);
        assert_true(fabs(lp.makespan - want) <= 1e-7 * want);
        /* G(x*) is a pseudo-forest: no component has more edges than vertices. */
        assert_true(lp.nedges <= in->n);
        ms_cosched_lp_fini(&lp);
        ms_cosched_instance_free(in);
    }
}

/* Runs every algorithm, validates, and checks the makespan relations between them. */
static void check_all(const ms_cosched_instance *in, int with_direct)
{
    ms_cosched_lp lp;
    ms_error err;
    assert_int_equal(ms_cosched_plp(in, &lp, &err), 0);
    double sum = 0;
    for (int i = 0; i < in->n; i++)
        sum += in->p[i];
    for (int a = 0; a < MS_COSCHED_NALGOS; a++) {
        if (a == MS_COSCHED_DIRECT && !with_direct)
            continue;
        ms_cosched_schedule *s = NULL;
        int rc = ms_cosched_run(in, a, 2.0, &s, &err);
        if (rc)
            print_message("%s: %s\n", ms_cosched_algo_name(a), err.msg);
        assert_int_equal(rc, 0);
        int nonpre = a != MS_COSCHED_PLP && a != MS_COSCHED_CATERPILLAR;
        rc = ms_cosched_validate(in, s, nonpre, &err);
        if (rc)
            print_message("%s: %s\n", ms_cosched_algo_name(a), err.msg);
        assert_int_equal(rc, 0);
        double mk = ms_cosched_makespan(s);
        assert_true(mk >= lp.makespan * (1 - 1e-7));
        assert_true(mk <= sum * (1 + 1e-7));
        if (!nonpre)
            assert_true(fabs(mk - lp.makespan) <= 1e-7 * lp.makespan);
        if (a == MS_COSCHED_CATERPILLAR) /* at most n preemptions (paper 003 4.1) */
            assert_true(ms_cosched_preemptions(s, NULL) <= in->n);
        ms_cosched_schedule_free(s);
    }
    ms_cosched_lp_fini(&lp);
}

static void test_all_algorithms_validate(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 11);
    ms_cosched_instance *cat = ms_cosched_catalogue_synthetic(60, &r);
    /* 1500 generated instances; DIRECTALG (slower) on the small ones only. */
    for (int setting = 0; setting < 3; setting++)
        for (int trial = 0; trial < 500; trial++) {
            int n = 1 + (int)ms_rng_below(&r, trial % 10 ? 12 : 60);
            ms_cosched_instance *in;
            assert_int_equal(ms_cosched_generate(cat, setting, n, &r, &in, NULL), 0);
            check_all(in, n <= 8 && trial % 5 == 0);
            ms_cosched_instance_free(in);
        }
    for (int trial = 0; trial < 30; trial++) {
        ms_cosched_instance *in = random_tiny(&r, 2 + trial % 3);
        check_all(in, 1);
        ms_cosched_instance_free(in);
    }
    ms_cosched_instance_free(cat);
}

/* Theorem 2: a positive 3-PARTITION instance has a schedule of length 5mB, no preemption. */
static void test_three_partition_direct(void **state)
{
    (void)state;
    int a[] = {3, 3, 4, 2, 4, 4}; /* m = 2, B = 10: {3,3,4}, {2,4,4} */
    ms_cosched_instance *in;
    ms_cosched_schedule *s;
    ms_error err;
    assert_int_equal(ms_cosched_three_partition(a, 2, 10, &in, &err), 0);
    assert_int_equal(in->n, 16);
    double lower;
    int optimal;
    assert_int_equal(ms_cosched_direct(in, 20.0, &s, &lower, &optimal, &err), 0);
    assert_true(optimal);
    assert_true(fabs(lower - 100.0) < 1e-6);
    assert_int_equal(ms_cosched_validate(in, s, 1, &err), 0);
    assert_true(fabs(ms_cosched_makespan(s) - 100.0) < 1e-6);
    assert_int_equal(ms_cosched_preemptions(s, NULL), 0);
    ms_cosched_schedule_free(s);
    ms_cosched_instance_free(in);
    /* The sum must be m*B; a refused instance is NULL. */
    int bad[] = {3, 3, 4, 2, 4, 5};
    assert_int_not_equal(ms_cosched_three_partition(bad, 2, 10, &in, &err), 0);
    assert_non_null(strstr(err.msg, "sum"));
    assert_null(in);
}

/* Fig. 10: MAXPAIR needs 2k - 1 where k is optimal (ratio -> 2). */
static void test_fig10_maxpair(void **state)
{
    (void)state;
    for (int k = 2; k <= 12; k += 5) {
        ms_cosched_instance *in = ms_cosched_fig10(k);
        ms_cosched_schedule *s;
        assert_int_equal(ms_cosched_maxpair(in, &s, NULL), 0);
        assert_int_equal(ms_cosched_validate(in, s, 1, NULL), 0);
        assert_true(fabs(ms_cosched_makespan(s) - (2 * k - 1)) < 1e-9);
        ms_cosched_schedule_free(s);
        assert_int_equal(ms_cosched_run(in, MS_COSCHED_NONPREEMPTIVE, 0, &s, NULL), 0);
        assert_true(fabs(ms_cosched_makespan(s) - k) < 1e-9);
        ms_cosched_schedule_free(s);
        ms_cosched_instance_free(in);
    }
}

/* Fig. 11: two optimal LP solutions; breaking edges from the star one costs 4(k-1)+2k eps. */
static void test_fig11_lp_worst_case(void **state)
{
    (void)state;
    int k = 6;
    double eps = 0.01, opt = 2 * k + 2 * k * eps;
    ms_cosched_instance *in = ms_cosched_fig11(k, eps);
    assert_int_equal(in->n, 4 * k + 2);
    ms_cosched_lp lp;
    assert_int_equal(ms_cosched_plp(in, &lp, NULL), 0);
    assert_true(fabs(lp.makespan - opt) < 1e-9);
    ms_cosched_lp_fini(&lp);
    /* The two solutions of the figure, built by hand. */
    ms_cosched_edge ring[64], star[64];
    int nr = 0, ns = 0;
    ring[nr++] = (ms_cosched_edge){0, 1, (double)k};
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < k; i++) {
            int node = 2 + 2 * k * w + i, ext = node + k;
            ring[nr++] = star[ns++] = (ms_cosched_edge){node, ext, eps};
            star[ns++] = (ms_cosched_edge){w, node, 1.0};
            if (i % 2 == 0)
                ring[nr++] = (ms_cosched_edge){node, node + 1, 1.0};
        }
    ms_cosched_lp a = {in->n, opt, nr, ring}, b = {in->n, opt, ns, star};
    ms_cosched_schedule *sa, *sb;
    assert_int_equal(ms_cosched_nonpreemptive(in, &a, &sa, NULL), 0);
    assert_int_equal(ms_cosched_nonpreemptive(in, &b, &sb, NULL), 0);
    assert_int_equal(ms_cosched_validate(in, sa, 1, NULL), 0);
    assert_int_equal(ms_cosched_validate(in, sb, 1, NULL), 0);
    assert_true(fabs(ms_cosched_makespan(sa) - opt) < 1e-9);
    assert_true(fabs(ms_cosched_makespan(sb) - (4 * (k - 1) + 2 * k * eps)) < 1e-9);
    ms_cosched_schedule_free(sa);
    ms_cosched_schedule_free(sb);
    ms_cosched_instance_free(in);
}

/* The validator rejects wrong progress, bad sets and (when asked) preemption. */
static void test_validator(void **state)
{
    (void)state;
    ms_cosched_instance *in = ms_cosched_fig10(2); /* centre p=2, two leaves p=1 */
    ms_cosched_schedule *s = ms_cosched_schedule_new(3);
    ms_error err;
    ms_cosched_schedule_add(s, 1, 0, 1, NULL);
    ms_cosched_schedule_add(s, 0.5, 2, -1, NULL);
    assert_int_not_equal(ms_cosched_validate(in, s, 0, &err), 0);
    assert_non_null(strstr(err.msg, "centre"));
    s->len = 1;
    ms_cosched_schedule_add(s, 1, 0, -1, NULL);
    ms_cosched_schedule_add(s, 0.5, 2, -1, NULL);
    ms_cosched_schedule_add(s, 0.5, 2, -1, NULL);
    assert_int_equal(ms_cosched_validate(in, s, 0, &err), 0);
    assert_int_equal(ms_cosched_validate(in, s, 1, &err), 0); /* 2 alone twice in a row */
    s->iv[1].b = 0;                                           /* a task cannot run with itself */
    assert_int_not_equal(ms_cosched_validate(in, s, 0, &err), 0);
    s->iv[1].b = 5; /* nor with a task that does not exist */
    assert_int_not_equal(ms_cosched_validate(in, s, 0, &err), 0);
    s->iv[1].b = -1, s->iv[1].d = -1;
    assert_int_not_equal(ms_cosched_validate(in, s, 0, &err), 0);
    ms_cosched_schedule_free(s);
    s = ms_cosched_schedule_new(3);
    ms_cosched_schedule_add(s, 1, 0, 1, NULL);
    ms_cosched_schedule_add(s, 1, 2, -1, NULL);
    ms_cosched_schedule_add(s, 1, 0, -1, NULL);
    assert_int_equal(ms_cosched_validate(in, s, 0, &err), 0);
    assert_int_not_equal(ms_cosched_validate(in, s, 1, &err), 0);
    assert_non_null(strstr(err.msg, "preempted"));
    int per[3];
    assert_int_equal(ms_cosched_preemptions(s, per), 1);
    assert_int_equal(per[0], 1);
    ms_cosched_schedule_free(s);
    ms_cosched_instance_free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validator),
        cmocka_unit_test(test_plp_brute_force),
        cmocka_unit_test(test_fig10_maxpair),
        cmocka_unit_test(test_fig11_lp_worst_case),
        cmocka_unit_test(test_three_partition_direct),
        cmocka_unit_test(test_all_algorithms_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
