/* parallel_for.c: ms_parallel_for's threads share one counter of the next index to run. */
#include "migsched/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct parallel_run {
    int n;
    atomic_int next;
    ms_parallel_fn *fn;
    void *ctx;
} parallel_run;

static void *run_indices(void *arg)
{
    parallel_run *r = arg;
    for (int i; (i = atomic_fetch_add(&r->next, 1)) < r->n;)
        r->fn(i, r->ctx);
    return NULL;
}

void ms_parallel_for(int n, int threads, ms_parallel_fn *fn, void *ctx)
{
    if (n <= 0)
        return;
    parallel_run r = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&r.next, 0);
    int extra = (threads < n ? threads : n) - 1; /* the caller is one of them */
    pthread_t *th = extra > 0 ? malloc((size_t)extra * sizeof *th) : NULL;
    int started = 0;
    while (th && started < extra && !pthread_create(&th[started], NULL, run_indices, &r))
        started++;
    run_indices(&r);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    free(th);
}
