/* test_far_refine.c: FAR's refinement internals (src/offline/far_internal.h) on plans built
 * by hand: which instance is the alternative I^a of a critical instance; the plan's list
 * operations that search relies on to behave like task-by-task insertion. */
#include <math.h>
#include <string.h>

#include "migsched/rng.h"
#include "support.h"
#include "../src/offline/far_internal.h"

static int node_at(const ms_gpu_model *gpu, int slices, int slot)
{
    for (int v = 0; v < gpu->tree.n; v++) {
        ms_placement at = gpu->tree.node[v].at;
        if (at.start == slot && gpu->profiles[at.profile].slices == slices)
            return v;
    }
    fail_msg("no %dg node at slot %d", slices, slot);
    return -1;
}

/* A100-40GB, one GPU: 3g@0 (slots 0-3, compute slices 0-2) runs a 100 s task; 1g@4, 1g@5
 * and 1g@6 run 80 s, 10 s and 120 s. For the critical 1g@6 the alternative must be 1g@5
 * (free at about 10.6 s): 1g@3 shares slot 3 with 3g@0 and is not free before about
 * 100.2 s, although no instance holds its compute slice 3. */
static void test_alternative_uses_memory_slots(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "long3", 3, 100);
    test_add_only_task(w, "mid1", 1, 80);
    test_add_only_task(w, "short1", 1, 10);
    test_add_only_task(w, "crit1", 1, 120);
    far_plan p;
    assert_int_equal(far_plan_init(&p, w, gpu, 1, 1), MS_OK);
    const int slices[] = {3, 1, 1, 1}, slots[] = {0, 4, 5, 6};
    for (int i = 0; i < 4; i++) {
        int v = node_at(gpu, slices[i], slots[i]);
        assert_int_equal(far_list_push(far_plan_list(&p, 0, 0, v), i, far_time(&p, i, v)), MS_OK);
    }
    far_engine e = {0};
    far_view rv;
    assert_int_equal(far_view_init(&rv, &p, 1), MS_OK);
    assert_int_equal(far_view_update(&rv, &e, &p, 0, 1), MS_OK);
    int crit = node_at(gpu, 1, 6);
    assert_true(rv.end[crit] == rv.makespan);
    double end;
    int alt = far_alternative(&rv, &p.tree, 1, 0, crit, &end);
    assert_int_equal(alt, node_at(gpu, 1, 5));
    assert_near(end, rv.end[node_at(gpu, 1, 5)], 1e-12);
    assert_true(end > 10 && end < 11);
    /* Slot 3's end is 3g@0's, the instance holding it last. */
    assert_near(rv.slot_end[3], rv.end[node_at(gpu, 3, 0)], 1e-12);
    far_view_free(&rv);
    far_engine_free(&e);
    far_plan_free(&p);
    ms_workload_free(w);
}

/* far_list_insert_seq gives the very list (order among equal times included) and running
 * sum of inserting one task after another with far_list_insert_sorted; far_list_find finds
 * every task, among many equal times too. Times from five values, so ties abound. */
static void test_insert_seq_is_insert_sorted(void **state)
{
    (void)state;
    enum { N = 600 };
    static const double times[] = {1, 2, 3, 5.5, 7.25};
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    char name[16];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t%d", i);
        test_add_only_task(w, name, 1, times[ms_rng_below(&rng, 5)]);
    }
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    for (int i = N - 1; i > 0; i--) { /* a random insertion order */
        int j = (int)ms_rng_below(&rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    far_plan p;
    assert_int_equal(far_plan_init(&p, w, gpu, 1, 1), MS_OK);
    int v = node_at(gpu, 1, 0), u = node_at(gpu, 1, 1);
    far_list *a = far_plan_list(&p, 0, 0, v), *b = far_plan_list(&p, 0, 0, u);
    for (int i = 0; i < N / 4; i++) { /* both lists start with the same tasks */
        assert_int_equal(far_list_insert_sorted(&p, a, v, order[i]), MS_OK);
        assert_int_equal(far_list_insert_sorted(&p, b, u, order[i]), MS_OK);
    }
    for (int i = N / 4; i < N - 10; i++)
        assert_int_equal(far_list_insert_sorted(&p, a, v, order[i]), MS_OK);
    assert_int_equal(far_list_insert_seq(&p, b, u, order + N / 4, N - 10 - N / 4), MS_OK);
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->task, b->task, (size_t)a->n * sizeof *a->task);
    assert_true(a->sum == b->sum);
    for (int i = 0; i < a->n; i++)
        assert_int_equal(far_list_find(&p, a, v, a->task[i]), i);
    for (int i = N - 10; i < N; i++) /* not in the list */
        assert_int_equal(far_list_find(&p, a, v, order[i]), -1);
    far_plan_free(&p);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_alternative_uses_memory_slots),
                                       cmocka_unit_test(test_insert_seq_is_insert_sorted)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
