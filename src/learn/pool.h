/* pool.h: a fixed set of worker threads that run one function over per-worker arguments and
 * wait for all of them (the caller's thread does share 0), so that training does not start
 * threads for every minibatch. */
#ifndef MIGSCHED_LEARN_POOL_H
#define MIGSCHED_LEARN_POOL_H

#include <stddef.h>

typedef struct learn_pool learn_pool;

/* n shares; args[k * stride] is share k's argument. Shares whose thread could not be started
 * run on the caller's thread. NULL when out of memory. */
learn_pool *learn_pool_new(int n, void *args, size_t stride);
/* Runs fn on every share and returns when all are done. */
void learn_pool_run(learn_pool *p, void *(*fn)(void *));
void learn_pool_free(learn_pool *p);

#endif
