/* pool.c: the worker threads of pool.h: each waits for a new generation of work, runs its
 * share, and the last one to finish wakes the caller. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pool.h"

#define POOL_MAX 64

struct learn_pool {
    int n, started;
    char *args;
    size_t stride;
    pthread_t th[POOL_MAX];
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    void *(*fn)(void *);
    long gen;    /* bumped for every run */
    int pending; /* started threads still running this generation */
    bool quit;
};

typedef struct pool_arg {
    learn_pool *p;
    int k;
} pool_arg;

static void *worker(void *arg)
{
    learn_pool *p = ((pool_arg *)arg)->p;
    int k = ((pool_arg *)arg)->k;
    free(arg);
    long seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->gen;
        void *(*fn)(void *) = p->fn;
        pthread_mutex_unlock(&p->mu);
        fn(p->args + (size_t)k * p->stride);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0)
            pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

learn_pool *learn_pool_new(int n, void *args, size_t stride)
{
    learn_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n < 1 ? 1 : n > POOL_MAX ? POOL_MAX : n;
    p->args = args;
    p->stride = stride;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    /* Threads for shares 1..started; a failed start leaves the rest to the caller. */
    for (int k = 1; k < p->n; k++) {
        pool_arg *a = malloc(sizeof *a);
        if (!a)
            break;
        *a = (pool_arg){p, k};
        if (pthread_create(&p->th[k], NULL, worker, a)) {
            free(a);
            break;
        }
        p->started = k;
    }
    return p;
}

void learn_pool_run(learn_pool *p, void *(*fn)(void *))
{
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->gen++;
    p->pending = p->started;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    fn(p->args);
    for (int k = p->started + 1; k < p->n; k++)
        fn(p->args + (size_t)k * p->stride);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void learn_pool_free(learn_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int k = 1; k <= p->started; k++)
        pthread_join(p->th[k], NULL);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
