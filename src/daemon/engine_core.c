/* engine_core.c: what every part of the engine stands on: the clocks, the histograms, the
 * queue and its per-user tallies, the running set's room, the group commit that makes
 * transitions durable (and prunes ended jobs past retention), and the bookkeeping of a
 * job's end, whichever way it ends. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "log.h"

const double md_engine_time_bounds[MD_ENGINE_TIME_BUCKETS] = {0.1, 0.5, 1,   5,    10,    30,
                                                              60,  300, 900, 3600, 14400, 86400};
const double md_engine_reconf_bounds[MD_ENGINE_RECONF_BUCKETS] = {0.01, 0.05, 0.1, 0.2, 0.3,
                                                                  0.5,  1,    2,   5,   10};

double ei_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void ei_observe(md_engine_histogram *h, const double *bounds, int nb, double v)
{
    for (int i = 0; i < nb; i++)
        if (v <= bounds[i])
            h->count[i]++;
    h->total++;
    h->sum += v;
}

static ei_tally *tally_of(const md_engine *e, uint32_t uid)
{
    for (size_t i = 0; i < e->ntally; i++)
        if (e->tally[i].uid == uid)
            return &e->tally[i];
    return NULL;
}

ei_tally ei_tally_get(const md_engine *e, uint32_t uid)
{
    const ei_tally *t = tally_of(e, uid);
    return t ? *t : (ei_tally){.uid = uid};
}

int ei_tally_add(md_engine *e, uint32_t uid, size_t bytes, int delta)
{
    ei_tally *t = tally_of(e, uid);
    if (!t && delta < 0)
        return MS_OK;
    if (!t) {
        if (e->ntally == e->captally) {
            size_t cap = e->captally ? 2 * e->captally : 16;
            ei_tally *nt = realloc(e->tally, cap * sizeof *nt);
            if (!nt)
                return MS_ENOMEM;
            e->tally = nt;
            e->captally = cap;
        }
        t = &e->tally[e->ntally++];
        *t = (ei_tally){.uid = uid};
    }
    if (delta > 0) {
        t->jobs++;
        t->bytes += bytes;
    } else {
        t->jobs -= t->jobs > 0;
        t->bytes -= t->bytes > bytes ? bytes : t->bytes;
    }
    if (t->jobs == 0) /* only users with queued jobs are kept */
        *t = e->tally[--e->ntally];
    return MS_OK;
}

int ei_tally_job(md_engine *e, const md_job *j, int delta)
{
    return ei_is_alloc(j) ? MS_OK : ei_tally_add(e, j->owner.uid, j->spec_bytes, delta);
}

md_job *ei_queue_remove(md_engine *e, size_t at)
{
    md_job *j = e->queue[at];
    memmove(&e->queue[at], &e->queue[at + 1], (e->nqueue - at - 1) * sizeof *e->queue);
    e->nqueue--;
    ei_tally_job(e, j, -1);
    return j;
}

int ei_queue_insert(md_engine *e, md_job *j)
{
    if (e->nqueue == e->capqueue) {
        size_t cap = e->capqueue ? 2 * e->capqueue : 64;
        md_job **nq = realloc(e->queue, cap * sizeof *nq);
        if (!nq)
            return MS_ENOMEM;
        e->queue = nq;
        e->capqueue = cap;
    }
    size_t at = e->nqueue;
    while (at > 0 && e->queue[at - 1]->id > j->id)
        at--;
    if (ei_tally_job(e, j, 1))
        return MS_ENOMEM;
    memmove(&e->queue[at + 1], &e->queue[at], (e->nqueue - at) * sizeof *e->queue);
    e->queue[at] = j;
    e->nqueue++;
    return MS_OK;
}

size_t ei_queued_at(const md_engine *e, int64_t id)
{
    size_t at = 0;
    while (at < e->nqueue && e->queue[at]->id != id)
        at++;
    return at;
}

int ei_grow_run(md_engine *e, size_t more)
{
    if (e->nrun + more <= e->caprun)
        return MS_OK;
    size_t cap = e->caprun ? 2 * e->caprun : 16;
    while (cap < e->nrun + more)
        cap *= 2;
    ei_run *r = realloc(e->run, cap * sizeof *r);
    if (!r)
        return MS_ENOMEM;
    e->run = r;
    e->caprun = cap;
    return MS_OK;
}

/* md_engine_prune with smu held. */
static int prune(md_engine *e, ms_error *err)
{
    e->prune_at = ms_monotonic_seconds() + fmin(3600, e->c->retention / 10);
    uint64_t gone[MD_JOB_NSTATES], n = 0;
    int rc = md_store_prune(e->st, ei_now() - e->c->retention, gone, err);
    for (int k = 0; !rc && k < MD_JOB_NSTATES; k++) {
        e->jobs[k] -= gone[k];
        n += gone[k];
    }
    if (!rc && n)
        md_log(MD_LOG_INFO, "store.prune", "jobs=%llu done=%llu failed=%llu cancelled=%llu",
               (unsigned long long)n, (unsigned long long)gone[MD_JOB_DONE],
               (unsigned long long)gone[MD_JOB_FAILED], (unsigned long long)gone[MD_JOB_CANCELLED]);
    return rc;
}

int md_engine_prune(md_engine *e, ms_error *err)
{
    pthread_mutex_lock(&e->smu);
    int rc = prune(e, err);
    pthread_mutex_unlock(&e->smu);
    return rc;
}

void ei_group_commit(md_engine *e, ei_submit *r)
{
    while (!r->done) {
        if (e->committing) {
            pthread_cond_wait(&e->committed, &e->cmu);
            continue;
        }
        ei_submit *batch = e->pending;
        e->pending = NULL;
        e->pending_tail = &e->pending;
        e->committing = true;
        pthread_mutex_unlock(&e->cmu);
        size_t n = 0, nt = 0;
        for (ei_submit *s = batch; s; s = s->next)
            s->job ? n++ : (nt += s->n);
        md_job **jobs = malloc((n ? n : 1) * sizeof *jobs);
        md_job_transition *ts = malloc((n ? n : 1) * sizeof *ts);
        const md_job **tjobs = malloc((nt ? nt : 1) * sizeof *tjobs);
        md_job_transition *tts = malloc((nt ? nt : 1) * sizeof *tts);
        ms_error err = {0};
        int rc;
        if (!jobs || !ts || !tjobs || !tts) {
            rc = ms_error_set(&err, MS_ENOMEM, "out of memory");
        } else {
            size_t i = 0, k = 0;
            for (ei_submit *s = batch; s; s = s->next) {
                if (s->job) {
                    jobs[i] = s->job;
                    ts[i++] = s->t;
                    continue;
                }
                memcpy(tjobs + k, s->jobs, s->n * sizeof *tjobs);
                memcpy(tts + k, s->ts, s->n * sizeof *tts);
                k += s->n;
            }
            pthread_mutex_lock(&e->smu);
            rc = md_store_commit(e->st, jobs, ts, n, tjobs, tts, nt, &err);
            /* Counted as they become durable, under the same lock as the store. */
            if (!rc) {
                e->jobs[MD_JOB_QUEUED] += n;
                for (size_t t = 0; t < nt; t++) {
                    e->jobs[tts[t].from]--;
                    e->jobs[tts[t].to]++;
                }
            }
            ms_error perr = {0};
            char q[MS_ERR_LEN + 64];
            if (ms_monotonic_seconds() >= e->prune_at &&
                prune(e, &perr)) /* tried again when next due */
                md_log(MD_LOG_WARN, "store.prune_failed", "error=%s",
                       md_log_quote(perr.msg, q, sizeof q));
            pthread_mutex_unlock(&e->smu);
            i = 0;
            for (ei_submit *s = batch; s; s = s->next)
                if (s->job)
                    s->t = ts[i++];
        }
        free(jobs);
        free(ts);
        free(tjobs);
        free(tts);
        pthread_mutex_lock(&e->cmu);
        for (ei_submit *s = batch; s; s = s->next) {
            s->rc = rc;
            s->err = err;
            s->done = true;
        }
        e->committing = false;
        pthread_cond_broadcast(&e->committed);
    }
}

int ei_commit(md_engine *e, const md_job *const *jobs, const md_job_transition *ts, size_t n,
              bool drop_mu, ms_error *err)
{
    ei_submit r = {.jobs = jobs, .ts = ts, .n = n};
    if (drop_mu)
        pthread_mutex_unlock(&e->mu);
    pthread_mutex_lock(&e->cmu);
    *e->pending_tail = &r;
    e->pending_tail = &r.next;
    ei_group_commit(e, &r);
    pthread_mutex_unlock(&e->cmu);
    if (drop_mu)
        pthread_mutex_lock(&e->mu);
    if (r.rc) {
        *err = r.err;
        return r.rc;
    }
    return MS_OK;
}

void ei_job_ended(md_engine *e, const md_job *j)
{
    if (!ei_is_alloc(j))
        return;
    ms_error err = {0};
    pthread_mutex_lock(&e->smu);
    int rc = md_store_steps_clear(e->st, j->id, &err);
    pthread_mutex_unlock(&e->smu);
    char uid[16], user[160], q[MS_ERR_LEN + 64];
    if (rc) /* stale step rows name an ended job: no allocation is found by them */
        md_log(MD_LOG_WARN, "allocation.steps_failed", "error=%s",
               md_log_quote(err.msg, q, sizeof q));
    md_log(MD_LOG_INFO, "allocation.end", "id=%lld user=%s slurm_job=%lld state=%s",
           (long long)j->id, md_log_quote(md_job_user(&j->owner, uid), user, sizeof user),
           (long long)j->spec.slurm_job_id, md_job_state_name(j->state));
}
