/* test_cosched_caterpillar.c: CaterpillarSplit against a brute force over interval orderings. */
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"
#include "support.h"

/* Fewest preemptions over all orderings of the intervals (Heap's permutation algorithm). */
static int brute_min_preemptions(int n, const ms_cosched_edge *e, int m)
{
    int perm[12], cnt[12] = {0}, best = 1 << 30;
    for (int i = 0; i < m; i++)
        perm[i] = i;
    ms_cosched_schedule *s = ms_cosched_schedule_new(n);
    for (int i = 0;;) {
        s->len = 0;
        for (int k = 0; k < m; k++)
            ms_cosched_schedule_add(s, 1.0, e[perm[k]].a, e[perm[k]].b, NULL);
        int p = ms_cosched_preemptions(s, NULL);
        if (p < best)
            best = p;
        while (i < m && cnt[i] >= i)
            cnt[i] = 0, i++;
        if (i >= m)
            break;
        int j = i % 2 ? cnt[i] : 0, t = perm[j];
        perm[j] = perm[i], perm[i] = t;
        cnt[i]++;
        i = 1;
    }
    ms_cosched_schedule_free(s);
    return best;
}

/* A random pseudo-tree on k vertices: a random tree, maybe one extra edge or some loops. */
static int random_pseudo_tree(ms_rng *r, int k, ms_cosched_edge *e)
{
    int m = 0;
    for (int v = 1; v < k; v++)
        e[m++] = (ms_cosched_edge){(int)ms_rng_below(r, (uint64_t)v), v, 1.0};
    if (ms_rng_uniform(r) < 0.5 && k >= 3) {
        for (int tries = 0; tries < 20; tries++) {
            int a = (int)ms_rng_below(r, (uint64_t)k), b = (int)ms_rng_below(r, (uint64_t)k),
                dup = 0;
            for (int q = 0; q < m; q++)
                dup |= (e[q].a == a && e[q].b == b) || (e[q].a == b && e[q].b == a);
            if (a != b && !dup) {
                e[m++] = (ms_cosched_edge){a, b, 1.0};
                break;
            }
        }
    } else {
        int loops = (int)ms_rng_below(r, 2);
        for (int q = 0; q < loops; q++) {
            int a = (int)ms_rng_below(r, (uint64_t)k);
            e[m++] = (ms_cosched_edge){a, a, 1.0};
        }
    }
    /* Shuffle so that edge order carries no hint. */
    for (int i = m - 1; i > 0; i--) {
        int j = (int)ms_rng_below(r, (uint64_t)i + 1);
        ms_cosched_edge t = e[i];
        e[i] = e[j], e[j] = t;
    }
    return m;
}

static void check_graph(int k, ms_cosched_edge *e, int m)
{
    ms_cosched_instance *in = ms_cosched_instance_new(k);
    ms_cosched_lp lp = {k, 0, m, e};
    ms_cosched_schedule *s = NULL;
    ms_error err;
    assert_int_equal(ms_cosched_caterpillar(in, &lp, &s, &err), 0);
    assert_int_equal(s->len, m);
    int got = ms_cosched_preemptions(s, NULL), want = brute_min_preemptions(k, e, m);
    if (got != want) {
        for (int q = 0; q < m; q++)
            print_message("edge %d-%d\n", e[q].a, e[q].b);
        print_message("caterpillar %d, brute force %d\n", got, want);
    }
    assert_int_equal(got, want);
    ms_cosched_schedule_free(s);
    ms_cosched_instance_free(in);
}

static void test_random_pseudo_trees(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 2024);
    ms_cosched_edge e[16];
    for (int trial = 0; trial < 300; trial++) {
        int k = 2 + (int)ms_rng_below(&r, 6);
        int m = random_pseudo_tree(&r, k, e);
        check_graph(k, e, m);
    }
}

/* Fig. 4c: path A-B-C-F-G with D-E hanging at C needs one preemption; 4d: a cycle needs one. */
static void test_paper_figure4(void **state)
{
    (void)state;
    ms_cosched_edge c4[] = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {2, 5, 1}, {5, 6, 1}};
    check_graph(7, c4, 6);
    int eu[] = {0, 1, 2, 3, 2, 5}, ev[] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(ms_cosched_caterpillar_count(7, 6, eu, ev), 1);
    int cu[] = {0, 1, 2, 3}, cv[] = {1, 2, 3, 0};
    assert_int_equal(ms_cosched_caterpillar_count(4, 4, cu, cv), 1);
    /* A caterpillar (Fig. 4b) needs none. */
    int tu[] = {0, 1, 1, 1, 4, 4, 6}, tv[] = {1, 2, 3, 4, 5, 6, 7};
    assert_int_equal(ms_cosched_caterpillar_count(8, 7, tu, tv), 0);
    /* Two cycles in one component is not a pseudo-forest. */
    int xu[] = {0, 1, 2, 0, 3}, xv[] = {1, 2, 0, 3, 1};
    assert_int_equal(ms_cosched_caterpillar_count(4, 5, xu, xv), -1);
}

/* Larger spiders: a centre with legs of length 2 needs ceil(legs/2) - 1 splits (Lemma 2). */
static void test_spiders(void **state)
{
    (void)state;
    for (int legs = 1; legs <= 9; legs++) {
        int eu[20], ev[20], m = 0;
        for (int l = 0; l < legs; l++) {
            eu[m] = 0, ev[m++] = 1 + 2 * l;
            eu[m] = 1 + 2 * l, ev[m++] = 2 + 2 * l;
        }
        assert_int_equal(ms_cosched_caterpillar_count(1 + 2 * legs, m, eu, ev), (legs + 1) / 2 - 1);
    }
}

/* On real PLP solutions of small generated instances (at most 8 intervals). */
static void test_lp_solutions(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 8);
    ms_cosched_instance *cat = ms_cosched_catalogue_synthetic(12, &r);
    int checked = 0, preempted = 0;
    for (int trial = 0; trial < 400; trial++) {
        ms_cosched_instance *in;
        ms_cosched_lp lp;
        assert_int_equal(ms_cosched_generate(cat, trial % 3, 3 + trial % 6, &r, &in, NULL), 0);
        assert_int_equal(ms_cosched_plp(in, &lp, NULL), 0);
        if (lp.nedges <= 8) {
            ms_cosched_schedule *s;
            assert_int_equal(ms_cosched_caterpillar(in, &lp, &s, NULL), 0);
            assert_int_equal(ms_cosched_validate(in, s, 0, NULL), 0);
            int got = ms_cosched_preemptions(s, NULL);
            assert_int_equal(got, brute_min_preemptions(in->n, lp.e, lp.nedges));
            checked++, preempted += got > 0;
            ms_cosched_schedule_free(s);
        }
        ms_cosched_lp_fini(&lp);
        ms_cosched_instance_free(in);
    }
    ms_cosched_instance_free(cat);
    assert_true(checked > 300);
    assert_true(preempted > 10); /* instances that need preemptions were seen */
}

/* Paper 003 Algorithm 1, literally, on a tree given by parent pointers (root: parent -1):
 * returns its number of caterpillars. An independent oracle for the dynamic program. */
static int algorithm1(int n, const int *parent0)
{
    int parent[32], alive[32], height[32], caterpillars = 0;
    for (int v = 0; v < n; v++)
        parent[v] = parent0[v], alive[v] = 1;
    for (;;) {
        for (int v = 0; v < n; v++)
            height[v] = 0;
        for (int pass = 0; pass < n; pass++) /* heights by relaxation: n passes suffice */
            for (int w = 0; w < n; w++)
                if (alive[w] && parent[w] >= 0 && height[parent[w]] < height[w] + 1)
                    height[parent[w]] = height[w] + 1;
        int t = -1;
        for (int v = 0; v < n && t < 0; v++)
            if (alive[v] && height[v] == 2)
                t = v;
        if (t < 0)
            break;
        int h1[32], nh = 0;
        for (int w = 0; w < n; w++)
            if (alive[w] && parent[w] == t && height[w] == 1)
                h1[nh++] = w;
        if (nh == 1) { /* Lemma 4: merge t with its only child of height 1 */
            for (int w = 0; w < n; w++)
                if (alive[w] && parent[w] == h1[0])
                    parent[w] = t;
            alive[h1[0]] = 0;
            continue;
        }
        /* Lemmas 2-3: caterpillar (u, t, v) with the leaves of u, v and t. */
        caterpillars++;
        for (int w = 0; w < n; w++)
            if (alive[w] &&
                (parent[w] == h1[0] || parent[w] == h1[1] || (parent[w] == t && height[w] == 0)))
                alive[w] = 0;
        alive[h1[0]] = alive[h1[1]] = 0;
        if (nh == 2) /* Lemma 3: it also takes the edge from t to its parent */
            alive[t] = 0;
    }
    for (int v = 0; v < n; v++)
        if (alive[v] && parent[v] >= 0 && alive[parent[v]])
            return caterpillars + 1;
    return caterpillars;
}

static void test_algorithm1_agrees(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 31);
    for (int trial = 0; trial < 2000; trial++) {
        int n = 2 + (int)ms_rng_below(&r, 24), parent[32], eu[32], ev[32];
        parent[0] = -1;
        for (int v = 1; v < n; v++) {
            /* mix long paths and bushy nodes */
            parent[v] = ms_rng_uniform(&r) < 0.5 ? v - 1 : (int)ms_rng_below(&r, (uint64_t)v);
            eu[v - 1] = parent[v], ev[v - 1] = v;
        }
        int want = algorithm1(n, parent) - 1, got = ms_cosched_caterpillar_count(n, n - 1, eu, ev);
        if (got != want)
            print_message("trial %d: dynamic program %d, Algorithm 1 %d\n", trial, got, want);
        assert_int_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_figure4),       cmocka_unit_test(test_spiders),
        cmocka_unit_test(test_algorithm1_agrees),   cmocka_unit_test(test_lp_solutions),
        cmocka_unit_test(test_random_pseudo_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
