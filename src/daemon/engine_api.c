/* engine_api.c: the engine's calls for the API: submissions (group-committed: concurrent
 * callers share one transaction, hence one fsync, and each returns once its own submission
 * is durable), cancel, the job and GPU views and the metrics snapshot. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "log.h"

static md_engine_outcome fail(int rc)
{
    return rc == MS_EINVAL ? MD_ENGINE_BAD_REQUEST : MD_ENGINE_INTERNAL;
}

/* Where the jobs' output files are: the nvml backend's log-dir; the sim runs no command. */
static const char *log_dir(const md_engine *e) { return e->nvml ? e->c->log_dir : NULL; }

/* Whether owner may queue one more job of bytes (mu held): queue-limit, then the owner's
 * user-queue-limit and user-queue-bytes. */
static md_engine_outcome admit(md_engine *e, const md_job_owner *owner, size_t bytes, ms_error *err)
{
    char uid[16];
    const char *user = md_job_user(owner, uid);
    ei_tally t = ei_tally_get(e, owner->uid);
    if (e->nqueue + e->inflight >= (size_t)e->queue_limit)
        ms_error_set(err, MS_EINVAL, "%d jobs are queued already (queue-limit)", e->queue_limit);
    else if (t.jobs >= (size_t)e->user_queue_limit)
        ms_error_set(err, MS_EINVAL,
                     "user %s has %zu jobs queued already (user-queue-limit "
                     "%d)",
                     user, t.jobs, e->user_queue_limit);
    else if (t.bytes + bytes > (uint64_t)e->user_queue_bytes)
        ms_error_set(err, MS_EINVAL,
                     "user %s's queued jobs hold %llu bytes of specs; this "
                     "one's %zu would pass user-queue-bytes (%lld)",
                     user, (unsigned long long)t.bytes, bytes, e->user_queue_bytes);
    else
        return MD_ENGINE_OK;
    return MD_ENGINE_QUEUE_FULL;
}

static md_engine_outcome submit(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                json_t **job, ms_error *err)
{
    *job = NULL;
    int profile;
    double seconds;
    ei_job_size(e->m, spec, &profile, &seconds);
    /* The spec is ours whatever the outcome: a refused one is freed (and zeroed). */
    if (profile < 0) {
        md_job_spec_free(spec);
        ms_error_set(err, MS_EINVAL, "job: no size of %s can run it", e->m->name);
        return MD_ENGINE_BAD_REQUEST;
    }
    if (owner->uid == 0 && !e->c->allow_root_jobs) {
        md_job_spec_free(spec);
        ms_error_set(err, MS_EINVAL,
                     "job: it would run as root (uid 0), which migschedd "
                     "refuses unless configured with allow-root-jobs true; submit it as "
                     "the user it should run as");
        return MD_ENGINE_FORBIDDEN;
    }
    char *text = md_job_spec_text(spec, e->m);
    size_t bytes = text ? strlen(text) : 0;
    free(text);
    if (!text) {
        md_job_spec_free(spec);
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    pthread_mutex_lock(&e->mu);
    md_engine_outcome o = e->stopping ? MD_ENGINE_STOPPING : admit(e, owner, bytes, err);
    if (o == MD_ENGINE_STOPPING)
        ms_error_set(err, MS_EINVAL, "migschedd is stopping: no new jobs");
    /* Counted while in flight, so that concurrent submissions cannot pass the limits. */
    if (o == MD_ENGINE_OK && ei_tally_add(e, owner->uid, bytes, 1)) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        o = MD_ENGINE_INTERNAL;
    }
    if (o != MD_ENGINE_OK) {
        pthread_mutex_unlock(&e->mu);
        md_job_spec_free(spec);
        return o;
    }
    e->inflight++;
    pthread_mutex_unlock(&e->mu);

    md_job *j = malloc(sizeof *j);
    int rc = MS_OK;
    if (!j) {
        md_job_spec_free(spec);
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    } else {
        md_job_init(j, spec);
        j->owner = *owner;
        j->spec_bytes = bytes;
        ei_submit r = {.job = j};
        rc = md_job_submit(j, ei_now(), &r.t, err);
        if (!rc) {
            pthread_mutex_lock(&e->cmu);
            *e->pending_tail = &r;
            e->pending_tail = &r.next;
            ei_group_commit(e, &r);
            pthread_mutex_unlock(&e->cmu);
            if ((rc = r.rc))
                *err = r.err;
        }
        if (!rc)
            *job = md_job_to_json(j, e->m, true, log_dir(e));
    }
    pthread_mutex_lock(&e->mu);
    e->inflight--;
    ei_tally_add(e, owner->uid, bytes, -1); /* the queue counts it from here on */
    if (!rc) {
        char uid[16], user[160], name[160];
        md_log(MD_LOG_INFO, "job.submit", "id=%lld user=%s name=%s", (long long)j->id,
               md_log_quote(md_job_user(&j->owner, uid), user, sizeof user),
               md_log_quote(j->spec.name, name, sizeof name));
        if (ei_queue_insert(e, j) == MS_OK) {
            j = NULL;
        } else {
            /* Durable but unqueued in memory: the next start picks it up from the store. */
            md_log(MD_LOG_ERROR, "job.queue_full_memory", "id=%lld user=%s", (long long)j->id,
                   user);
        }
        e->submitted_total++;
        ei_wake(e);
    }
    pthread_mutex_unlock(&e->mu);
    if (j) {
        md_job_free(j);
        free(j);
    }
    if (rc) {
        json_decref(*job);
        *job = NULL;
        return fail(rc);
    }
    return *job ? MD_ENGINE_OK : MD_ENGINE_INTERNAL;
}

/* Every submission gets a line: job.submit once it is queued (submit()), job.submit_refused
 * with the reason when it is not. */
md_engine_outcome md_engine_submit(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                   json_t **job, ms_error *err)
{
    md_engine_outcome o = submit(e, spec, owner, job, err);
    if (o != MD_ENGINE_OK) {
        char uid[16], user[160], q[MS_ERR_LEN + 64];
        md_log(MD_LOG_INFO, "job.submit_refused", "user=%s error=%s",
               md_log_quote(md_job_user(owner, uid), user, sizeof user),
               md_log_quote(err->msg, q, sizeof q));
    }
    return o;
}

/* A job from the store: NOT_FOUND when there is none. */
static md_engine_outcome read_job(md_engine *e, int64_t id, md_job *j, ms_error *err)
{
    pthread_mutex_lock(&e->smu);
    int rc = md_store_get_job(e->st, id, j, err);
    pthread_mutex_unlock(&e->smu);
    return !rc ? MD_ENGINE_OK : rc == MS_EINVAL ? MD_ENGINE_NOT_FOUND : MD_ENGINE_INTERNAL;
}

static void say(md_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(md_job *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->reason, sizeof j->reason, fmt, ap);
    va_end(ap);
}

/* Where queued job id is in the engine's queue (in id order); nqueue when it is not there. */
static size_t queue_position(const md_engine *e, int64_t id)
{
    size_t lo = 0, hi = e->nqueue;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->queue[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < e->nqueue && e->queue[lo]->id == id ? lo : e->nqueue;
}

/* Why queued job j (read from the store) still waits, as things are now (mu held), into
 * its reason; the one its last transition gave stays when none of these applies
 * (docs/daemon.md, Jobs). Computed when asked: nothing is stored on each pass. *batch_due:
 * when the next batch is due, NAN until this call's first job needs it (once per page). */
static void waiting_reason(md_engine *e, md_job *j, double *batch_due)
{
    size_t at = queue_position(e, j->id);
    if (j->state != MD_JOB_QUEUED || at == e->nqueue)
        return; /* not in the queue: its start or cancel is being committed */
    const md_job *q = e->queue[at];
    double mono = ms_monotonic_seconds();
    const ei_making *mk = &e->making;
    if (mk->job == j->id) {
        say(j, "its instance is being made (%s at slot %d of GPU %d): starts in about %.0f s",
            e->m->profiles[mk->at.profile].name, mk->at.start, e->gpu[mk->gpu].device,
            fmax(0, ceil(mk->ready - mono)));
    } else if (e->stopping) {
        say(j, "the daemon is stopping: queued jobs wait for its next start");
    } else if (q->not_before > mono) {
        say(j, "start failed on this node: %s; next try in %.0f s", q->start_error,
            ceil(q->not_before - mono));
    } else if (!md_backoff_due(&e->schedule, mono)) {
        say(j, "scheduling failed on this node: %s; next try in %.0f s", e->schedule.error,
            ceil(e->schedule.retry_at - mono));
    } else if (e->c->mode == MD_BATCH) {
        if (isnan(*batch_due))
            *batch_due = ei_batch_due(e);
        double due = *batch_due - ei_now();
        if (ei_batch_planned(e, j->id))
            say(j, "planned in the running batch: waits for its instance");
        else if (due > 0)
            say(j, "waits for the next batch, due in %.0f s", ceil(due));
        else
            say(j, "waits for the next batch, due now");
    } else {
        int profile, g, start;
        double seconds;
        ei_job_size(e->m, &q->spec, &profile, &seconds);
        if (profile >= 0 && !ei_place(e, profile, NULL, &g, &start))
            say(j, "no GPU has room for %s now; %zu queued %s ahead of it",
                e->m->profiles[profile].name, at, at == 1 ? "job" : "jobs");
    }
}

/* A running job's expected end (seconds since the epoch; null when unknown: not running, an
 * allocation): its start plus its time at the size it runs at (its declared seconds, or
 * its times at the instance's size: the plan's task in batch mode), over `scale` (the sim
 * backend's time-scale; nvml: 1). Public, as the plan's times are. */
static void expected_end(const ms_gpu_model *m, double scale, const md_job *j, json_t *o)
{
    double t = NAN;
    if (j->state == MD_JOB_RUNNING && j->placement.profile >= 0 && !j->spec.slurm_job_id)
        t = j->spec.profile >= 0 ? j->spec.seconds
                                 : j->spec.times[m->profiles[j->placement.profile].slices];
    json_object_set_new(o, "expected_end",
                        t > 0 && isfinite(t / scale) ? json_real(j->started + t / scale)
                                                     : json_null());
}

/* The time-scale a job's run time is over (mu held). */
static double run_scale(const md_engine *e) { return e->nvml ? 1 : e->time_scale; }

md_engine_outcome ei_get_job(md_engine *e, int64_t id, const md_engine_actor *who, json_t **job,
                             ms_error *err)
{
    md_job j;
    md_engine_outcome o = read_job(e, id, &j, err);
    if (o != MD_ENGINE_OK)
        return o;
    double due = NAN;
    pthread_mutex_lock(&e->mu);
    waiting_reason(e, &j, &due);
    double scale = run_scale(e);
    pthread_mutex_unlock(&e->mu);
    *job = md_job_to_json(&j, e->m, ei_may_manage(who, &j), log_dir(e));
    if (*job)
        expected_end(e->m, scale, &j, *job);
    md_job_free(&j);
    if (!*job) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_job(md_engine *e, int64_t id, const md_engine_actor *who, json_t **job,
                                ms_error *err)
{
    *job = NULL;
    return ei_get_job(e, id, who, job, err);
}

/* Job id from the store (*j: the caller frees it) when who may `verb` it, being its owner
 * or an admin; otherwise FORBIDDEN naming the owner, with nothing to free. An owner never
 * changes, so the store's word holds for what the caller does next. */
static md_engine_outcome read_managed(md_engine *e, int64_t id, const md_engine_actor *who,
                                      const char *verb, md_job *j, ms_error *err)
{
    md_engine_outcome o = read_job(e, id, j, err);
    if (o != MD_ENGINE_OK || ei_may_manage(who, j))
        return o;
    char uid[16];
    ms_error_set(err, MS_EINVAL, "job %lld belongs to %s: only its owner or an admin may %s",
                 (long long)id, md_job_user(&j->owner, uid), verb);
    md_job_free(j);
    return MD_ENGINE_FORBIDDEN;
}

md_engine_outcome md_engine_history(md_engine *e, int64_t id, const md_engine_actor *who,
                                    json_t **history, ms_error *err)
{
    *history = NULL;
    md_job owned;
    md_engine_outcome o = read_managed(e, id, who, "read its history", &owned, err);
    if (o != MD_ENGINE_OK)
        return o;
    md_job_free(&owned);
    md_job_transition *ts;
    size_t n;
    pthread_mutex_lock(&e->smu);
    int rc = md_store_history(e->st, id, &ts, &n, err);
    pthread_mutex_unlock(&e->smu);
    if (rc)
        return MD_ENGINE_INTERNAL;
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, md_job_transition_to_json(&ts[i]))) {
            json_decref(arr);
            arr = NULL;
        }
    free(ts);
    if (!arr || !(*history = json_pack("{s:I, s:o}", "job", (json_int_t)id, "transitions", arr))) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}

/* The one line of a cancellation: whose job, who asked (an API call's caller; "migschedd"
 * for the daemon's own), in which state it was. */
static void log_cancel(int64_t id, const md_job_owner *owner, const md_engine_actor *who,
                       const char *was)
{
    char uid[16], byuid[16], user[160], by[160];
    md_log(MD_LOG_INFO, "job.cancel", "id=%lld user=%s by=%s state=%s", (long long)id,
           md_log_quote(md_job_user(owner, uid), user, sizeof user),
           md_log_quote(who ? md_job_user(&who->who, byuid) : "migschedd", by, sizeof by), was);
}

int ei_cancel_queued(md_engine *e, size_t i, ms_error *err)
{
    md_job next = *e->queue[i];
    md_job_transition t;
    int rc = md_job_cancel(&next, ei_now(), &t, err);
    if (rc || (rc = ei_commit(e, (const md_job *const[]){&next}, &t, 1, false, err)))
        return rc;
    ei_job_ended(e, &next);
    md_job *q = ei_queue_remove(e, i);
    md_job_free(q);
    free(q);
    return MS_OK;
}

void ei_wait_ended(md_engine *e, int64_t id)
{
    ei_wake(e);
    for (;;) {
        bool still = false;
        for (size_t k = 0; k < e->nrun; k++)
            still |= e->run[k].job.id == id;
        if (!still || !e->thread_started || e->abandoned) /* abandoned: it never ends */
            return;
        pthread_cond_wait(&e->changed, &e->mu);
    }
}

md_engine_outcome md_engine_cancel(md_engine *e, int64_t id, const md_engine_actor *who,
                                   json_t **job, ms_error *err)
{
    *job = NULL;
    md_job owned;
    md_engine_outcome o = read_managed(e, id, who, "cancel it", &owned, err);
    if (o != MD_ENGINE_OK)
        return o;
    /* An allocation's owner is the Slurm job's user, but only Slurm releases it (an
     * instance freed under its running steps would go to someone else's job). */
    bool alloc = ei_is_alloc(&owned) && who && !who->admin;
    md_job_owner owner = owned.owner;
    if (alloc)
        ms_error_set(err, MS_EINVAL,
                     "job %lld is Slurm job %lld's allocation: Slurm releases "
                     "it (DELETE /v1/allocations/%lld, root or slurm-user), or an admin",
                     (long long)id, (long long)owned.spec.slurm_job_id,
                     (long long)owned.spec.slurm_job_id);
    md_job_free(&owned);
    if (alloc)
        return MD_ENGINE_FORBIDDEN;
    pthread_mutex_lock(&e->mu);
    int rc = MS_OK;
    bool found = false; /* and logged: one job.cancel line, before the wait for its end */
    /* Its start is being committed: it is cancelled once it runs (like a running job). */
    for (size_t i = 0; e->flushing && i < e->nstarting && !found; i++)
        if (e->starting[i].id == id) {
            found = true;
            log_cancel(id, &owner, who, "starting");
            e->starting[i].cancel = true;
            while (e->flushing)
                pthread_cond_wait(&e->changed, &e->mu);
        }
    for (size_t i = 0; i < e->nqueue && !found; i++) {
        if (e->queue[i]->id != id)
            continue;
        found = true;
        if (!(rc = ei_cancel_queued(e, i, err)))
            log_cancel(id, &owner, who, "queued");
    }
    for (size_t i = 0; i < e->nrun; i++) {
        if (e->run[i].job.id != id)
            continue;
        if (!found) /* else it was logged starting */
            log_cancel(id, &owner, who, "running");
        found = true;
        e->run[i].cancel = true;
        /* The scheduling thread stops it and frees its instance. */
        ei_wait_ended(e, id);
    }
    pthread_mutex_unlock(&e->mu);
    if (rc)
        return fail(rc);
    o = ei_get_job(e, id, who, job, err);
    if (o != MD_ENGINE_OK || found)
        return o;
    /* Neither queued nor running: done, failed or cancelled already. */
    ms_error_set(err, MS_EINVAL, "job %lld is %s: nothing to cancel", (long long)id,
                 json_string_value(json_object_get(*job, "state")));
    json_decref(*job);
    *job = NULL;
    return MD_ENGINE_CONFLICT;
}

md_engine_outcome md_engine_jobs(md_engine *e, const md_store_job_query *q,
                                 const md_engine_actor *who, json_t **jobs, int64_t *next,
                                 ms_error *err)
{
    *jobs = NULL;
    *next = 0;
    md_job *page;
    size_t n;
    bool more;
    pthread_mutex_lock(&e->smu);
    int rc = md_store_job_page(e->st, q, &page, &n, &more, err);
    pthread_mutex_unlock(&e->smu);
    if (rc)
        return fail(rc);
    if (more && n)
        *next = page[n - 1].id;
    double due = NAN;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < n; i++)
        waiting_reason(e, &page[i], &due);
    double scale = run_scale(e);
    pthread_mutex_unlock(&e->mu);
    /* Each job is freed once rendered: the page is held once, not twice. */
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = md_job_to_json(&page[i], e->m, ei_may_manage(who, &page[i]), log_dir(e));
        if (o)
            expected_end(e->m, scale, &page[i], o);
        if (arr && json_array_append_new(arr, o)) {
            json_decref(arr);
            arr = NULL;
        }
        md_job_free(&page[i]);
    }
    free(page);
    *jobs = arr ? json_pack("{s:o}", "jobs", arr) : NULL;
    if (!*jobs) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}

/* The running job id (mu held), NULL when it is not running. */
static const md_job *running_job(const md_engine *e, int64_t id)
{
    for (size_t i = 0; i < e->nrun; i++)
        if (e->run[i].job.id == id)
            return &e->run[i].job;
    return NULL;
}

/* The owner, name, Slurm job and start of the running job im->job ("", 0 when none). */
static void instance_job_labels(const md_engine *e, md_engine_instance_metrics *im)
{
    const md_job *j = im->job ? running_job(e, im->job) : NULL;
    if (!j)
        return;
    char uid[16];
    snprintf(im->user, sizeof im->user, "%s", md_job_user(&j->owner, uid));
    snprintf(im->name, sizeof im->name, "%s", j->spec.name ? j->spec.name : "");
    im->slurm_job = ei_is_alloc(j) ? j->spec.slurm_job_id : 0;
    im->started = j->started;
}

static const char *inst_state(ei_state s)
{
    switch (s) {
    case EI_CREATING: return "creating";
    case EI_BUSY: return "busy";
    case EI_DESTROYING: return "destroying";
    case EI_DRAINING: return "draining";
    default: return "idle";
    }
}

/* One GPU's metrics (mu held). */
static void gpu_metrics(const md_engine *e, int g, md_engine_gpu_metrics *out)
{
    const ei_gpu *gp = &e->gpu[g];
    ms_online_gpu_view v;
    memset(out, 0, sizeof *out);
    out->gpu = gp->device;
    snprintf(out->uuid, sizeof out->uuid, "%s", gp->uuid);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%s", gp->pci_bus_id);
    out->minor = gp->minor;
    snprintf(out->model_name, sizeof out->model_name, "%s", gp->model_name);
    /* F(g) over the instances holding jobs (DESIGN.md), as the online policy measures it. */
    ei_view(e, g, &v);
    out->fragmentation = ms_online_frag_lookup(e->ft, e->m, v.frag_slots, v.frag_slices);
    out->busy_slices = ei_busy_slices(e, g);
    for (int k = 0; k < e->m->slots; k++) {
        const ei_inst *in = &gp->inst[k];
        if (in->profile < 0 || out->ninstances == MS_MAX_MIG)
            continue;
        md_engine_instance_metrics *im = &out->instance[out->ninstances++];
        im->profile = in->profile;
        im->start = k;
        im->gi_id = in->mig.gi_id;
        snprintf(im->mig_uuid, sizeof im->mig_uuid, "%s", in->mig.uuid);
        im->busy = in->state == EI_BUSY;
        im->job = in->state == EI_BUSY ? in->job : 0;
        instance_job_labels(e, im);
    }
}

md_engine_outcome md_engine_gpus(md_engine *e, json_t **gpus, ms_error *err)
{
    json_t *arr = json_array();
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    for (int g = 0; arr && g < e->ngpus; g++) {
        md_engine_gpu_metrics gm;
        gpu_metrics(e, g, &gm);
        json_t *insts = json_array();
        for (int k = 0; k < e->m->slots && insts; k++) {
            const ei_inst *in = &e->gpu[g].inst[k];
            if (in->profile < 0)
                continue;
            const md_job *j = in->job ? running_job(e, in->job) : NULL;
            char uid[16];
            json_t *o = json_pack("{s:s, s:{s:i}, s:i, s:s, s:s, s:o, s:o, s:o}", "profile",
                                  e->m->profiles[in->profile].name, "placement", "start", k,
                                  "gi_id", (int)in->mig.gi_id, "mig_uuid", in->mig.uuid, "state",
                                  inst_state(in->state), "job",
                                  in->job ? json_integer(in->job) : json_null(), "job_name",
                                  j ? json_string(j->spec.name) : json_null(), "user",
                                  j ? json_string(md_job_user(&j->owner, uid)) : json_null());
            if (!o || json_array_append_new(insts, o)) {
                json_decref(insts);
                insts = NULL;
            }
        }
        json_t *o = insts ? json_pack("{s:i, s:s, s:s, s:i, s:i, s:o, s:f, s:i}", "gpu", gm.gpu,
                                      "uuid", gm.uuid, "model", e->m->name, "slots", e->m->slots,
                                      "slices", e->m->slices, "instances", insts, "fragmentation",
                                      gm.fragmentation, "busy_slices", gm.busy_slices)
                          : NULL;
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            arr = NULL;
        }
    }
    pthread_mutex_unlock(&e->mu);
    *gpus = arr ? json_pack("{s:o, s:s}", "gpus", arr, "isolation",
                            e->c->isolation == MD_ISOLATION_NONE ? "none" : "devices")
                : NULL;
    if (!*gpus) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_metrics_snapshot(md_engine *e, md_engine_metrics *out, ms_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    pthread_mutex_lock(&e->smu);
    memcpy(out->jobs, e->jobs, sizeof out->jobs);
    pthread_mutex_unlock(&e->smu);
    out->submitted_total = e->submitted_total;
    out->creations_total = e->creations_total;
    out->destructions_total = e->destructions_total;
    out->reconfigurations_total = e->creations_total + e->destructions_total;
    out->creation_seconds = e->creation_seconds;
    out->destruction_seconds = e->destruction_seconds;
    out->wait_seconds = e->wait_seconds;
    out->turnaround_seconds = e->turnaround_seconds;
    out->alloc_wait_seconds = e->alloc_wait_seconds;
    out->alloc_blocked_total = e->alloc_blocked_total;
    out->alloc_unplaced_total = e->alloc_unplaced_total;
    out->ngpus = e->ngpus;
    for (int g = 0; g < e->ngpus; g++)
        gpu_metrics(e, g, &out->gpu[g]);
    pthread_mutex_unlock(&e->mu);
    return MD_ENGINE_OK;
}

/* Online mode plans nothing ahead: the plan is what runs now, one task per running job on
 * its instance, from its start to its expected end (live: each task with its "job" and
 * "state", as ei_plan_live's). */
static json_t *running_plan(md_engine *e, bool live)
{
    json_t *insts = json_array(), *tasks = json_array();
    int id = 0;
    double makespan = 0;
    for (size_t i = 0; insts && tasks && i < e->nrun; i++, id++) {
        const ei_run *r = &e->run[i];
        const ei_inst *in = &e->gpu[r->gpu].inst[r->slot];
        const ms_profile *p = &e->m->profiles[in->profile];
        int profile;
        double seconds;
        ei_job_size(e->m, &r->job.spec, &profile, &seconds);
        double end = r->job.started + seconds / run_scale(e);
        makespan = fmax(makespan, end);
        json_array_append_new(insts, json_pack("{s:i, s:i, s:s, s:i, s:i, s:i, s:n, s:n, "
                                               "s:n, s:n}",
                                               "id", id, "gpu", r->gpu, "profile", p->name,
                                               "start_slot", r->slot, "size_slots", p->size_slots,
                                               "slices", p->slices, "create_start", "create_end",
                                               "destroy_start", "destroy_end"));
        json_t *k = json_pack("{s:s, s:I, s:i, s:f, s:f}", "name", r->job.spec.name, "index",
                              (json_int_t)r->job.id, "instance", id, "start", r->job.started, "end",
                              end);
        if (live && k)
            json_object_update_new(
                k, json_pack("{s:I, s:s}", "job", (json_int_t)r->job.id, "state", "running"));
        json_array_append_new(tasks, k);
    }
    if (!insts || !tasks) {
        json_decref(insts);
        json_decref(tasks);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:i, s:s, s:f, s:o, s:o}", "format", "migsched-schedule/1",
                     "gpu_model", e->m->name, "gpus", e->ngpus, "algorithm", "online", "makespan",
                     makespan, "instances", insts, "tasks", tasks);
}

md_engine_outcome md_engine_plan(md_engine *e, char **schedule_json, ms_error *err)
{
    *schedule_json = NULL;
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    if (e->c->mode == MD_BATCH && e->plan) {
        *schedule_json = ei_plan_text(e);
    } else {
        json_t *o = running_plan(e, false);
        if (o)
            *schedule_json = json_dumps(o, JSON_INDENT(2));
        json_decref(o);
    }
    pthread_mutex_unlock(&e->mu);
    if (!*schedule_json) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_plan_live(md_engine *e, json_t **plan, ms_error *err)
{
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    if (e->c->mode == MD_BATCH && e->plan) {
        *plan = ei_plan_live(e);
    } else {
        *plan = running_plan(e, true);
        if (*plan)
            json_object_set_new(*plan, "clock",
                                json_pack("{s:f, s:f}", "t0", 0.0, "now", ei_now()));
    }
    /* The mode, which the plan's algorithm does not tell before a batch's first plan. */
    if (*plan)
        json_object_set_new(*plan, "mode",
                            json_string(e->c->mode == MD_BATCH ? "batch" : "online"));
    pthread_mutex_unlock(&e->mu);
    if (!*plan) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}
