/* test_cosched_pathcover.c: NONPREEMPTIVEALG breaks the cheapest edge set (brute force over
 * all break sets of G(x*)), and DIRECTALG's bound sits between PLP and every schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"
#include "support.h"

/* After breaking the edges in mask, is G(x*) a set of caterpillars? A broken edge leaves a
 * loop at both ends; a loop is a pendant leaf, so it counts in the degree (paper 003 5.1).
 * Caterpillar forest <=> acyclic and, once degree-1 vertices are removed, degrees <= 2. */
static int caterpillars_after(int n, const ms_cosched_edge *e, int m, unsigned mask)
{
    int deg[16] = {0}, uf[16], big[16] = {0};
    for (int i = 0; i < n; i++)
        uf[i] = i;
    for (int k = 0; k < m; k++) {
        int a = e[k].a, b = e[k].b;
        if (a == b || (mask >> k & 1)) {
            deg[a]++;
            if (a != b)
                deg[b]++;
            continue;
        }
        deg[a]++, deg[b]++;
        int ra = a, rb = b;
        while (uf[ra] != ra)
            ra = uf[ra];
        while (uf[rb] != rb)
            rb = uf[rb];
        if (ra == rb)
            return 0; /* a cycle survives */
        uf[ra] = rb;
    }
    for (int k = 0; k < m; k++) {
        int a = e[k].a, b = e[k].b;
        if (a != b && !(mask >> k & 1) && deg[a] >= 2 && deg[b] >= 2)
            big[a]++, big[b]++;
    }
    for (int i = 0; i < n; i++)
        if (big[i] > 2)
            return 0;
    return 1;
}

static double min_break_cost(const ms_cosched_instance *in, const ms_cosched_lp *lp)
{
    double best = INFINITY;
    int m = lp->nedges;
    for (unsigned mask = 0; mask < (1u << m); mask++) {
        double cost = 0;
        int loops_only = 1;
        for (int k = 0; k < m; k++) {
            const ms_cosched_edge *e = &lp->e[k];
            if (mask >> k & 1) {
                if (e->a == e->b)
                    loops_only = 0; /* a loop cannot be broken */
                cost += e->x * (ms_cosched_s(in, e->a, e->b) + ms_cosched_s(in, e->b, e->a) - 1);
            }
        }
        if (loops_only && cost < best && caterpillars_after(in->n, lp->e, m, mask))
            best = cost;
    }
    return best;
}

/* Dense random speeds (co-run likely) so that G(x*) has paths, stars and cycles. */
static ms_cosched_instance *random_instance(ms_rng *r, int n)
{
    ms_cosched_instance *in = ms_cosched_instance_new(n);
    for (int i = 0; i < n; i++) {
        char name[8] = {'t', (char)('a' + i), 0};
        in->names[i] = strdup(name);
        in->p[i] = 0.2 + 3 * ms_rng_uniform(r);
        for (int j = 0; j < n; j++)
            in->speed[i * n + j] = i == j                     ? 1
                                   : ms_rng_uniform(r) < 0.15 ? 0
                                                              : 0.3 + 0.7 * ms_rng_uniform(r);
    }
    return in;
}

static void test_nonpreemptive_is_optimal_edge_breaking(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 99);
    int with_breaks = 0;
    for (int trial = 0; trial < 250; trial++) {
        ms_cosched_instance *in = random_instance(&r, 3 + trial % 6);
        ms_cosched_lp lp;
        ms_cosched_schedule *s;
        assert_int_equal(ms_cosched_plp(in, &lp, NULL), 0);
        assert_int_equal(ms_cosched_nonpreemptive(in, &lp, &s, NULL), 0);
        assert_int_equal(ms_cosched_validate(in, s, 1, NULL), 0);
        double want = lp.makespan + min_break_cost(in, &lp), got = ms_cosched_makespan(s);
        if (fabs(got - want) > 1e-7 * want)
            print_message("trial %d: nonpreemptive %.9g, brute force %.9g\n", trial, got, want);
        assert_true(fabs(got - want) <= 1e-7 * want);
        with_breaks += got > lp.makespan * (1 + 1e-9);
        ms_cosched_schedule_free(s);
        ms_cosched_lp_fini(&lp);
        ms_cosched_instance_free(in);
    }
    assert_true(with_breaks > 10); /* the test exercised real edge breaking */
}

static void test_direct_bound(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 123);
    for (int trial = 0; trial < 25; trial++) {
        ms_cosched_instance *in = random_instance(&r, 3 + trial % 5);
        ms_cosched_lp lp;
        ms_cosched_schedule *d, *np, *mp;
        double lower;
        int optimal;
        assert_int_equal(ms_cosched_plp(in, &lp, NULL), 0);
        assert_int_equal(ms_cosched_direct(in, 30, &d, &lower, &optimal, NULL), 0);
        assert_int_equal(ms_cosched_validate(in, d, 1, NULL), 0);
        assert_int_equal(ms_cosched_nonpreemptive(in, &lp, &np, NULL), 0);
        assert_int_equal(ms_cosched_maxpair(in, &mp, NULL), 0);
        assert_true(optimal);
        /* The MILP relaxes non-preemption (cycles allowed): PLP <= bound <= any schedule. */
        assert_true(lower >= lp.makespan * (1 - 1e-7));
        assert_true(lower <= ms_cosched_makespan(np) * (1 + 1e-7));
        assert_true(lower <= ms_cosched_makespan(mp) * (1 + 1e-7));
        assert_true(lower <= ms_cosched_makespan(d) * (1 + 1e-7));
        ms_cosched_schedule_free(d);
        ms_cosched_schedule_free(np);
        ms_cosched_schedule_free(mp);
        ms_cosched_lp_fini(&lp);
        ms_cosched_instance_free(in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonpreemptive_is_optimal_edge_breaking),
        cmocka_unit_test(test_direct_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
