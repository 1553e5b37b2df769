/* test_base_parallel.c: ms_parallel_for runs every index once, on at most the threads asked
 * for, and is joined before it returns. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "migsched/parallel.h"
#include "support.h"

enum { MAX_N = 1000 };

typedef struct calls {
    atomic_int count[MAX_N];
    int order[MAX_N]; /* with one thread: the indices in the order they ran */
    atomic_int ran;
    pthread_t caller;
    atomic_int off_caller; /* calls made on a thread other than the caller's */
} calls;

static void record(int i, void *ctx)
{
    calls *c = ctx;
    atomic_fetch_add(&c->count[i], 1);
    c->order[atomic_fetch_add(&c->ran, 1)] = i;
    if (!pthread_equal(pthread_self(), c->caller))
        atomic_fetch_add(&c->off_caller, 1);
}

static calls *run(int n, int threads)
{
    static calls c;
    memset(&c, 0, sizeof c);
    c.caller = pthread_self();
    ms_parallel_for(n, threads, record, &c);
    return &c;
}

static void assert_each_once(const calls *c, int n)
{
    assert_int_equal(c->ran, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(c->count[i], 1);
    for (int i = n; i < MAX_N; i++)
        assert_int_equal(c->count[i], 0);
}

static void test_every_index_once(void **state)
{
    (void)state;
    assert_each_once(run(MAX_N, 4), MAX_N);
    assert_each_once(run(MAX_N, 64), MAX_N);
}

static void test_fewer_indices_than_threads(void **state)
{
    (void)state;
    assert_each_once(run(3, 16), 3);
    assert_each_once(run(1, 8), 1);
}

static void test_no_indices(void **state)
{
    (void)state;
    assert_each_once(run(0, 4), 0);
    assert_each_once(run(-5, 4), 0);
}

static void test_one_thread_is_the_caller_in_order(void **state)
{
    (void)state;
    const int counts[] = {1, 0, -3};
    for (int k = 0; k < 3; k++) {
        const calls *c = run(100, counts[k]);
        assert_each_once(c, 100);
        assert_int_equal(c->off_caller, 0);
        for (int i = 0; i < 100; i++)
            assert_int_equal(c->order[i], i);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_index_once),
        cmocka_unit_test(test_fewer_indices_than_threads),
        cmocka_unit_test(test_no_indices),
        cmocka_unit_test(test_one_thread_is_the_caller_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
