/* parallel.h: fork/join work over a range of indices, and how many threads to use. */
#ifndef MIGSCHED_PARALLEL_H
#define MIGSCHED_PARALLEL_H

/* Processors online (at least 1): how many threads a reader, a writer or search's starting
 * schedules may use where the result does not depend on the count. */
int ms_online_cpus(void);

typedef void ms_parallel_fn(int i, void *ctx);

/* Runs fn(i, ctx) once for every i in [0, n) on up to `threads` threads, the caller's among
 * them, and returns when all have returned. Indices are handed out in increasing order, each
 * to whichever thread is free: the results do not depend on the thread count when each
 * index writes only its own slot. A thread that cannot be started leaves its share to the
 * others (the same results, later). threads < 1 counts as 1; n <= 0 runs nothing. */
void ms_parallel_for(int n, int threads, ms_parallel_fn *fn, void *ctx);

#endif
