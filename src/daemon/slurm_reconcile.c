/* slurm_reconcile.c: the thread that releases the allocations of Slurm jobs that are gone
 * (slurmstepd killed, so neither the plugin's step exit nor the job epilog ran). */
#include "slurm_reconcile.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "slurm.h"

struct md_slurm_reconciler {
    md_engine *e;
    double period;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool quit;
};

static void reconcile_once(md_slurm_reconciler *r)
{
    if (md_engine_alloc_count(r->e) == 0)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double asked = (double)now.tv_sec + now.tv_nsec * 1e-9;
    int64_t *ids;
    size_t n;
    int released;
    ms_error err = {0};
    char q[MS_ERR_LEN + 64];
    if (md_slurm_running_jobs(&ids, &n, &err)) {
        md_log(MD_LOG_WARN, "slurm.reconcile_failed", "error=%s released=0",
               md_log_quote(err.msg, q, sizeof q));
        return;
    }
    int rc = md_engine_alloc_reconcile(r->e, ids, n, asked, &released, &err);
    free(ids);
    if (rc)
        md_log(MD_LOG_ERROR, "slurm.reconcile_failed", "error=%s released=%d",
               md_log_quote(err.msg, q, sizeof q), released);
    else if (released)
        md_log(MD_LOG_INFO, "slurm.reconcile", "running=%zu released=%d", n, released);
}

static void *reconcile_loop(void *arg)
{
    md_slurm_reconciler *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->quit) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double t = (double)ts.tv_sec + ts.tv_nsec * 1e-9 + r->period, whole;
        double frac = modf(t, &whole);
        ts = (struct timespec){(time_t)whole, (long)(frac * 1e9)};
        while (!r->quit && pthread_cond_timedwait(&r->cv, &r->mu, &ts) != ETIMEDOUT)
            ;
        if (r->quit)
            break;
        pthread_mutex_unlock(&r->mu);
        reconcile_once(r);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int md_slurm_reconciler_start(md_engine *e, double period, md_slurm_reconciler **out, ms_error *err)
{
    *out = NULL;
    md_slurm_reconciler *r = calloc(1, sizeof *r);
    if (!r)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    r->e = e;
    r->period = period;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    if ((errno = pthread_create(&r->thread, NULL, reconcile_loop, r))) {
        int rc = ms_error_set(err, MS_ENOMEM, "cannot start the Slurm reconciliation: %s",
                              strerror(errno));
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        free(r);
        return rc;
    }
    *out = r;
    return MS_OK;
}

void md_slurm_reconciler_stop(md_slurm_reconciler *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->quit = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}
