/* slurm_agent.c: the thread that tells Slurm what migschedd placed (slurm_agent.h). */
#include "migsched/clock.h"
#include "slurm_agent.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "slurm.h"

struct md_slurm_agent {
    md_engine *e;
    bool comment;  /* slurm-admin-comment */
    char node[64]; /* slurm-node: "" leaves the node's GRES and the pending jobs alone */
    char gres[64]; /* slurm-gres */
    double period; /* slurm-sync */
    long told;     /* the GRES count Slurm was last told; -1: none yet */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool quit, kicked;
    md_engine_placed *retry; /* comments Slurm refused while their allocation runs */
    size_t nretry, capretry;
};

static void warn(const char *event, const char *what, const ms_error *err)
{
    char q[MS_ERR_LEN + 64];
    md_log(MD_LOG_WARN, event, "%s error=%s", what, md_log_quote(err->msg, q, sizeof q));
}

/* Sets p's AdminComment, then lets its allocation's tasks start (they wait for it, even
 * when it fails: Slurm down delays no job). Returns whether to try it again at the next
 * pass: Slurm refused it while the allocation still runs, and not because its job has
 * finished (its allocation not yet released then). */
static bool tell_comment(md_slurm_agent *a, const md_engine_placed *p)
{
    md_slurm_update u;
    ms_error err = {0};
    char what[96], q[sizeof u.value + 64];
    bool bad = md_slurm_comment_update(&u, p->slurm_job_id, p->profile, p->gpu, p->gpu_uuid,
                                       p->mig_uuid, &err) != MS_OK;
    bool failed = bad || md_slurm_run_update(&u, &err);
    bool running = md_engine_slurm_commented(a->e, p->slurm_job_id);
    if (!failed) {
        md_log(MD_LOG_INFO, "slurm.comment", "slurm_job=%lld held=%.3f comment=%s",
               (long long)p->slurm_job_id, ms_monotonic_seconds() - p->placed,
               md_log_quote(u.value, q, sizeof q));
        return false;
    }
    bool again = !bad && running && !strstr(err.msg, "already finished");
    snprintf(what, sizeof what, "slurm_job=%lld retry=%s", (long long)p->slurm_job_id,
             again ? "next_pass" : "no");
    warn("slurm.comment_failed", what, &err);
    return again;
}

/* The new placements' comments first (their jobs wait), then the refused ones again. */
static void tell_comments(md_slurm_agent *a, const md_engine_slurm_view *v)
{
    size_t old = a->nretry;
    for (size_t i = 0; i < v->nplaced; i++) {
        if (!tell_comment(a, &v->placed[i]))
            continue;
        if (a->nretry == a->capretry) {
            size_t cap = a->capretry ? 2 * a->capretry : 8;
            md_engine_placed *b = realloc(a->retry, cap * sizeof *b);
            if (!b)
                continue; /* logged as refused; not tried again */
            a->retry = b;
            a->capretry = cap;
        }
        a->retry[a->nretry++] = v->placed[i];
    }
    size_t kept = 0;
    for (size_t i = 0; i < a->nretry; i++)
        if (i >= old || tell_comment(a, &a->retry[i]))
            a->retry[kept++] = a->retry[i];
    a->nretry = kept;
}

/* The placements' comments first: their jobs wait for them. */
static void pass(md_slurm_agent *a)
{
    ms_error err = {0};
    md_engine_slurm_view v;
    if (md_engine_slurm_take(a->e, &v, &err)) {
        warn("slurm.sync_failed", "step=view", &err);
        return;
    }
    tell_comments(a, &v);
    free(v.placed);
    if (!*a->node)
        return;
    long *slices;
    size_t n;
    if (md_slurm_pending_jobs(a->gres, &slices, &n, &err)) {
        warn("slurm.pending_failed", "pending=unknown", &err);
    } else {
        md_engine_slurm_pending(a->e, slices, n);
        free(slices);
    }
    if (v.node_slices == a->told)
        return;
    md_slurm_update u;
    char what[160];
    snprintf(what, sizeof what, "node=%s gres=%s:%ld", a->node, a->gres, v.node_slices);
    if (md_slurm_node_update(&u, a->node, a->gres, v.node_slices, &err) ||
        md_slurm_run_update(&u, &err)) {
        warn("slurm.node_failed", what, &err);
        a->told = -1; /* said again at the next pass */
        return;
    }
    md_log(MD_LOG_INFO, "slurm.node", "%s", what);
    a->told = v.node_slices;
}

/* The engine's hook (its lock held): only a wake-up. */
static void kick(void *ctx)
{
    md_slurm_agent *a = ctx;
    pthread_mutex_lock(&a->mu);
    a->kicked = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

static void *agent_loop(void *arg)
{
    md_slurm_agent *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->quit) {
        pthread_mutex_unlock(&a->mu);
        pass(a);
        pthread_mutex_lock(&a->mu);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double t = (double)ts.tv_sec + ts.tv_nsec * 1e-9 + a->period, whole;
        double frac = modf(t, &whole);
        ts = (struct timespec){(time_t)whole, (long)(frac * 1e9)};
        while (!a->quit && !a->kicked && pthread_cond_timedwait(&a->cv, &a->mu, &ts) != ETIMEDOUT)
            ;
        a->kicked = false;
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int md_slurm_agent_start(md_engine *e, const md_config *c, md_slurm_agent **out, ms_error *err)
{
    *out = NULL;
    if (c->mode != MD_ONLINE || c->slurm_sync <= 0 || (!c->slurm_admin_comment && !*c->slurm_node))
        return MS_OK;
    if (*c->slurm_node && !*c->slurm_gres)
        return ms_error_set(err, MS_EINVAL, "slurm-node %s needs slurm-gres (not none)",
                            c->slurm_node);
    md_slurm_agent *a = calloc(1, sizeof *a);
    if (!a)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    *a = (md_slurm_agent){
        .e = e, .comment = c->slurm_admin_comment, .period = c->slurm_sync, .told = -1};
    snprintf(a->node, sizeof a->node, "%s", c->slurm_node);
    snprintf(a->gres, sizeof a->gres, "%s", c->slurm_gres);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, &ca);
    pthread_condattr_destroy(&ca);
    if ((errno = pthread_create(&a->thread, NULL, agent_loop, a))) {
        int rc = ms_error_set(err, MS_ENOMEM, "cannot start the Slurm agent: %s", strerror(errno));
        pthread_mutex_destroy(&a->mu);
        pthread_cond_destroy(&a->cv);
        free(a);
        return rc;
    }
    md_engine_slurm_hook(e, kick, a, a->comment);
    *out = a;
    return MS_OK;
}

void md_slurm_agent_stop(md_slurm_agent *a)
{
    if (!a)
        return;
    md_engine_slurm_hook(a->e, NULL, NULL, false);
    pthread_mutex_lock(&a->mu);
    a->quit = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a->retry);
    free(a);
}
