/* test_cosched_matching.c: Edmonds' blossom matching against exhaustive search. */
#include <stdlib.h>

#include "migsched/cosched.h"
#include "support.h"

/* Best matching weight by trying, for the lowest free vertex, every partner or none. */
static double brute(int nv, int ne, const int *eu, const int *ev, const double *w, int *used,
                    int from)
{
    while (from < nv && used[from])
        from++;
    if (from >= nv)
        return 0;
    used[from] = 1;
    double best = brute(nv, ne, eu, ev, w, used, from + 1);
    for (int k = 0; k < ne; k++) {
        int o = eu[k] == from ? ev[k] : ev[k] == from ? eu[k] : -1;
        if (o < 0 || used[o] || w[k] <= 0)
            continue;
        used[o] = 1;
        double v = w[k] + brute(nv, ne, eu, ev, w, used, from + 1);
        if (v > best)
            best = v;
        used[o] = 0;
    }
    used[from] = 0;
    return best;
}

static double matched_weight(int nv, int ne, const int *eu, const int *ev, const double *w,
                             const int *mate)
{
    double total = 0;
    for (int v = 0; v < nv; v++)
        if (mate[v] >= 0) {
            assert_int_equal(mate[mate[v]], v);
            double best = -1;
            for (int k = 0; k < ne; k++)
                if ((eu[k] == v && ev[k] == mate[v]) || (ev[k] == v && eu[k] == mate[v]))
                    best = w[k] > best ? w[k] : best;
            assert_true(best > 0);
            if (v < mate[v])
                total += best;
        }
    return total;
}

static void test_random_graphs(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 77);
    for (int trial = 0; trial < 400; trial++) {
        int nv = 2 + (int)ms_rng_below(&r, 9), eu[64], ev[64], ne = 0, mate[16], used[16] = {0};
        double w[64], dens = 0.2 + 0.7 * ms_rng_uniform(&r);
        for (int a = 0; a < nv; a++)
            for (int b = a + 1; b < nv; b++)
                if (ms_rng_uniform(&r) < dens) {
                    eu[ne] = a, ev[ne] = b;
                    /* small integers make ties and blossoms frequent */
                    w[ne++] = trial % 2 ? (double)(1 + ms_rng_below(&r, 6)) : ms_rng_uniform(&r);
                }
        assert_int_equal(ms_max_weight_matching(nv, ne, eu, ev, w, mate, NULL), 0);
        double got = matched_weight(nv, ne, eu, ev, w, mate);
        double want = brute(nv, ne, eu, ev, w, used, 0);
        assert_true(got >= want - 1e-6 * (1 + want));
    }
}

/* Galil-style blossom cases (S-blossom, T-blossom expansion, nested blossoms). */
static void test_blossom_cases(void **state)
{
    (void)state;
    struct {
        int ne, eu[16], ev[16];
        double w[16];
        int mate[13];
    } cases[] = {
        {4, {1, 1, 2, 3}, {2, 3, 3, 4}, {8, 9, 10, 7}, {-1, 2, 1, 4, 3}},
        {6, {1, 1, 2, 1, 4, 1}, {2, 3, 3, 4, 5, 6}, {9, 8, 10, 5, 4, 3}, {-1, 6, 3, 2, 5, 4, 1}},
        {10,
         {1, 1, 2, 3, 4, 1, 3, 4, 5, 9},
         {2, 5, 3, 4, 5, 6, 9, 8, 7, 10},
         {45, 45, 50, 45, 50, 30, 35, 35, 26, 5},
         {-1, 6, 3, 2, 8, 7, 1, 5, 4, 10, 9}},
        {13,
         {1, 1, 2, 3, 4, 4, 5, 6, 1, 3, 5, 7, 11},
         {2, 7, 3, 4, 5, 6, 6, 7, 8, 11, 9, 10, 12},
         {45, 45, 50, 45, 95, 94, 94, 50, 30, 35, 36, 26, 5},
         {-1, 8, 3, 2, 6, 9, 4, 10, 1, 5, 7, 12, 11}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int nv = 0, mate[13];
        for (int k = 0; k < cases[c].ne; k++)
            nv = cases[c].ev[k] + 1 > nv ? cases[c].ev[k] + 1 : nv;
        assert_int_equal(ms_max_weight_matching(nv, cases[c].ne, cases[c].eu, cases[c].ev,
                                                cases[c].w, mate, NULL),
                         0);
        for (int v = 0; v < nv; v++)
            assert_int_equal(mate[v], cases[c].mate[v]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blossom_cases),
        cmocka_unit_test(test_random_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
