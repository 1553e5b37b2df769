/* engine_api.c: the engine's calls for the API: submissions (group-committed: concurrent
 * callers share one transaction, hence one fsync, and each returns once its own submission
 * is durable), cancel, the job and GPU views and the metrics snapshot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "log.h"

static ms_engine_outcome fail(int rc)
{
    return rc == MS_EINVAL ? MS_ENGINE_BAD_REQUEST : MS_ENGINE_INTERNAL;
}

/* The leader of a group commit writes every pending submission in one transaction; the
 * others wait for it. Called with cmu held; returns with cmu held once r is done. */
static void group_commit(ms_engine *e, ei_submit *r)
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
        ms_job **jobs = malloc((n ? n : 1) * sizeof *jobs);
        ms_job_transition *ts = malloc((n ? n : 1) * sizeof *ts);
        const ms_job **tjobs = malloc((nt ? nt : 1) * sizeof *tjobs);
        ms_job_transition *tts = malloc((nt ? nt : 1) * sizeof *tts);
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
            rc = ms_store_commit(e->st, jobs, ts, n, tjobs, tts, nt, &err);
            /* Counted as they become durable, under the same lock as the store. */
            if (!rc) {
                e->jobs[MS_JOB_QUEUED] += n;
                for (size_t t = 0; t < nt; t++) {
                    e->jobs[tts[t].from]--;
                    e->jobs[tts[t].to]++;
                }
            }
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

int ei_commit(ms_engine *e, const ms_job *const *jobs, const ms_job_transition *ts, size_t n,
              bool drop_mu, ms_error *err)
{
    ei_submit r = {.jobs = jobs, .ts = ts, .n = n};
    if (drop_mu)
        pthread_mutex_unlock(&e->mu);
    pthread_mutex_lock(&e->cmu);
    *e->pending_tail = &r;
    e->pending_tail = &r.next;
    group_commit(e, &r);
    pthread_mutex_unlock(&e->cmu);
    if (drop_mu)
        pthread_mutex_lock(&e->mu);
    if (r.rc) {
        *err = r.err;
        return r.rc;
    }
    return MS_OK;
}

ms_engine_outcome ms_engine_submit(ms_engine *e, ms_job_spec *spec, json_t **job,
                                   ms_error *err)
{
    *job = NULL;
    int profile;
    double seconds;
    ei_job_size(e->m, spec, &profile, &seconds);
    /* The spec is ours whatever the outcome: a refused one is freed (and zeroed). */
    if (profile < 0) {
        ms_job_spec_free(spec);
        ms_error_set(err, MS_EINVAL, "job: no size of %s can run it", e->m->name);
        return MS_ENGINE_BAD_REQUEST;
    }
    pthread_mutex_lock(&e->mu);
    if (e->stopping) {
        pthread_mutex_unlock(&e->mu);
        ms_job_spec_free(spec);
        ms_error_set(err, MS_EINVAL, "migschedd is stopping: no new jobs");
        return MS_ENGINE_STOPPING;
    }
    if (e->nqueue + e->inflight >= (size_t)e->queue_limit) {
        pthread_mutex_unlock(&e->mu);
        ms_job_spec_free(spec);
        ms_error_set(err, MS_EINVAL, "%d jobs are queued already (queue-limit)",
                     e->queue_limit);
        return MS_ENGINE_QUEUE_FULL;
    }
    e->inflight++;
    pthread_mutex_unlock(&e->mu);

    ms_job *j = malloc(sizeof *j);
    if (!j) {
        ms_job_spec_free(spec);
        pthread_mutex_lock(&e->mu);
        e->inflight--;
        pthread_mutex_unlock(&e->mu);
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_ENGINE_INTERNAL;
    }
    ms_job_init(j, spec);
    ei_submit r = {.job = j};
    int rc = ms_job_submit(j, ei_now(), &r.t, err);
    if (!rc) {
        pthread_mutex_lock(&e->cmu);
        *e->pending_tail = &r;
        e->pending_tail = &r.next;
        group_commit(e, &r);
        pthread_mutex_unlock(&e->cmu);
        if ((rc = r.rc))
            *err = r.err;
    }
    if (!rc)
        *job = ms_job_to_json(j, e->m);
    pthread_mutex_lock(&e->mu);
    e->inflight--;
    if (!rc) {
        if (ei_queue_insert(e, j) == MS_OK) {
            j = NULL;
        } else {
            /* Durable but unqueued in memory: the next start picks it up from the store. */
            ms_dlog(MS_LOG_ERROR, "job.queue_full_memory", "id=%lld", (long long)j->id);
        }
        e->submitted_total++;
        ei_wake(e);
    }
    pthread_mutex_unlock(&e->mu);
    if (j) {
        ms_job_free(j);
        free(j);
    }
    if (rc) {
        json_decref(*job);
        *job = NULL;
        return fail(rc);
    }
    return *job ? MS_ENGINE_OK : MS_ENGINE_INTERNAL;
}

ms_engine_outcome ei_get_job(ms_engine *e, int64_t id, json_t **job, ms_error *err)
{
    ms_job j;
    pthread_mutex_lock(&e->smu);
    int rc = ms_store_get_job(e->st, id, &j, err);
    pthread_mutex_unlock(&e->smu);
    if (rc)
        return rc == MS_EINVAL ? MS_ENGINE_NOT_FOUND : MS_ENGINE_INTERNAL;
    *job = ms_job_to_json(&j, e->m);
    ms_job_free(&j);
    if (!*job) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_ENGINE_INTERNAL;
    }
    return MS_ENGINE_OK;
}

ms_engine_outcome ms_engine_job(ms_engine *e, int64_t id, json_t **job, ms_error *err)
{
    *job = NULL;
    return ei_get_job(e, id, job, err);
}

int ei_cancel_queued(ms_engine *e, size_t i, ms_error *err)
{
    ms_job next = *e->queue[i];
    ms_job_transition t;
    int rc = ms_job_cancel(&next, ei_now(), &t, err);
    if (rc || (rc = ei_commit(e, (const ms_job *const[]){&next}, &t, 1, false, err)))
        return rc;
    ms_dlog(MS_LOG_INFO, "job.cancel", "id=%lld state=queued", (long long)next.id);
    if (ei_is_alloc(&next))
        ei_alloc_ended(e, &next);
    ms_job_free(e->queue[i]);
    free(e->queue[i]);
    memmove(&e->queue[i], &e->queue[i + 1], (e->nqueue - i - 1) * sizeof *e->queue);
    e->nqueue--;
    return MS_OK;
}

void ei_wait_ended(ms_engine *e, int64_t id)
{
    ei_wake(e);
    for (;;) {
        bool still = false;
        for (size_t k = 0; k < e->nrun; k++)
            still |= e->run[k].job.id == id;
        if (!still || !e->thread_started)
            return;
        pthread_cond_wait(&e->changed, &e->mu);
    }
}

ms_engine_outcome ms_engine_cancel(ms_engine *e, int64_t id, json_t **job, ms_error *err)
{
    *job = NULL;
    pthread_mutex_lock(&e->mu);
    int rc = MS_OK;
    bool found = false;
    /* Its start is being committed: it is cancelled once it runs (like a running job). */
    for (size_t i = 0; e->flushing && i < e->nstarting && !found; i++)
        if (e->starting[i].id == id) {
            found = true;
            e->starting[i].cancel = true;
            while (e->flushing)
                pthread_cond_wait(&e->changed, &e->mu);
        }
    for (size_t i = 0; i < e->nqueue && !found; i++) {
        if (e->queue[i]->id != id)
            continue;
        found = true;
        rc = ei_cancel_queued(e, i, err);
    }
    for (size_t i = 0; i < e->nrun; i++) {
        if (e->run[i].job.id != id)
            continue;
        found = true;
        e->run[i].cancel = true;
        /* The scheduling thread stops it and frees its instance. */
        ei_wait_ended(e, id);
    }
    pthread_mutex_unlock(&e->mu);
    if (rc)
        return fail(rc);
    ms_engine_outcome o = ei_get_job(e, id, job, err);
    if (o != MS_ENGINE_OK || found)
        return o;
    /* Neither queued nor running: done, failed or cancelled already. */
    ms_error_set(err, MS_EINVAL, "job %lld is %s: nothing to cancel", (long long)id,
                 json_string_value(json_object_get(*job, "state")));
    json_decref(*job);
    *job = NULL;
    return MS_ENGINE_CONFLICT;
}

ms_engine_outcome ms_engine_jobs(ms_engine *e, int state, json_t **jobs, ms_error *err)
{
    *jobs = NULL;
    ms_job *all;
    size_t n;
    pthread_mutex_lock(&e->smu);
    int rc = ms_store_list_jobs(e->st, state, &all, &n, err);
    pthread_mutex_unlock(&e->smu);
    if (rc)
        return MS_ENGINE_INTERNAL;
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, ms_job_to_json(&all[i], e->m))) {
            json_decref(arr);
            arr = NULL;
        }
    ms_store_free_jobs(all, n);
    *jobs = arr ? json_pack("{s:o}", "jobs", arr) : NULL;
    if (!*jobs) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_ENGINE_INTERNAL;
    }
    return MS_ENGINE_OK;
}

static const char *inst_state(ei_state s)
{
    switch (s) {
    case EI_CREATING: return "creating";
    case EI_BUSY: return "busy";
    case EI_DESTROYING: return "destroying";
    default: return "idle";
    }
}

/* One GPU's metrics (mu held). */
static void gpu_metrics(const ms_engine *e, int g, ms_engine_gpu_metrics *out)
{
    const ei_gpu *gp = &e->gpu[g];
    ms_online_gpu_view v;
    memset(out, 0, sizeof *out);
    out->gpu = gp->device;
    snprintf(out->uuid, sizeof out->uuid, "%s", gp->uuid);
    /* F(g) over the instances holding jobs (DESIGN.md), as the online policy measures it. */
    ei_view(e, g, &v);
    out->fragmentation = ms_online_frag_lookup(e->ft, e->m, v.frag_slots, v.frag_slices);
    out->busy_slices = ei_busy_slices(e, g);
    for (int k = 0; k < e->m->slots; k++) {
        const ei_inst *in = &gp->inst[k];
        if (in->profile < 0 || out->ninstances == MS_MAX_MIG)
            continue;
        ms_engine_instance_metrics *im = &out->instance[out->ninstances++];
        im->profile = in->profile;
        im->start = k;
        im->gi_id = in->mig.gi_id;
        snprintf(im->mig_uuid, sizeof im->mig_uuid, "%s", in->mig.uuid);
        im->busy = in->state == EI_BUSY;
        im->job = in->state == EI_BUSY ? in->job : 0;
    }
}

ms_engine_outcome ms_engine_gpus(ms_engine *e, json_t **gpus, ms_error *err)
{
    json_t *arr = json_array();
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    for (int g = 0; arr && g < e->ngpus; g++) {
        ms_engine_gpu_metrics gm;
        gpu_metrics(e, g, &gm);
        json_t *insts = json_array();
        for (int k = 0; k < e->m->slots && insts; k++) {
            const ei_inst *in = &e->gpu[g].inst[k];
            if (in->profile < 0)
                continue;
            json_t *o = json_pack("{s:s, s:{s:i}, s:i, s:s, s:s, s:o}", "profile",
                                  e->m->profiles[in->profile].name, "placement", "start", k,
                                  "gi_id", (int)in->mig.gi_id, "mig_uuid", in->mig.uuid,
                                  "state", inst_state(in->state), "job",
                                  in->job ? json_integer(in->job) : json_null());
            if (!o || json_array_append_new(insts, o)) {
                json_decref(insts);
                insts = NULL;
            }
        }
        json_t *o = insts ? json_pack("{s:i, s:s, s:s, s:i, s:i, s:o, s:f, s:i}", "gpu", gm.gpu,
                                      "uuid", gm.uuid, "model", e->m->name, "slots",
                                      e->m->slots, "slices", e->m->slices, "instances", insts,
                                      "fragmentation", gm.fragmentation, "busy_slices",
                                      gm.busy_slices)
                          : NULL;
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            arr = NULL;
        }
    }
    pthread_mutex_unlock(&e->mu);
    *gpus = arr ? json_pack("{s:o, s:s}", "gpus", arr, "isolation",
                            e->c->isolation == MS_ISOLATION_NONE ? "none" : "devices")
                : NULL;
    if (!*gpus) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_ENGINE_INTERNAL;
    }
    return MS_ENGINE_OK;
}

ms_engine_outcome ms_engine_metrics_snapshot(ms_engine *e, ms_engine_metrics *out,
                                             ms_error *err)
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
    out->ngpus = e->ngpus;
    for (int g = 0; g < e->ngpus; g++)
        gpu_metrics(e, g, &out->gpu[g]);
    pthread_mutex_unlock(&e->mu);
    return MS_ENGINE_OK;
}

/* Online mode plans nothing ahead: the plan is what runs now, one task per running job on
 * its instance, from its start to its expected end. */
static json_t *running_plan(ms_engine *e)
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
        double end = r->job.started + seconds;
        makespan = fmax(makespan, end);
        json_array_append_new(insts, json_pack("{s:i, s:i, s:s, s:i, s:i, s:i, s:n, s:n, "
                                               "s:n, s:n}", "id", id, "gpu", r->gpu,
                                               "profile", p->name, "start_slot", r->slot,
                                               "size_slots", p->size_slots, "slices",
                                               p->slices, "create_start", "create_end",
                                               "destroy_start", "destroy_end"));
        json_array_append_new(tasks, json_pack("{s:s, s:I, s:i, s:f, s:f}", "name",
                                               r->job.spec.name, "index", (json_int_t)r->job.id,
                                               "instance", id, "start", r->job.started,
                                               "end", end));
    }
    if (!insts || !tasks) {
        json_decref(insts);
        json_decref(tasks);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:i, s:s, s:f, s:o, s:o}", "format", "migsched-schedule/1",
                     "gpu_model", e->m->name, "gpus", e->ngpus, "algorithm", "online",
                     "makespan", makespan, "instances", insts, "tasks", tasks);
}

ms_engine_outcome ms_engine_plan(ms_engine *e, char **schedule_json, ms_error *err)
{
    *schedule_json = NULL;
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    if (e->c->mode == MS_DAEMON_BATCH && e->plan) {
        *schedule_json = ei_plan_text(e);
    } else {
        json_t *o = running_plan(e);
        if (o)
            *schedule_json = json_dumps(o, JSON_INDENT(2));
        json_decref(o);
    }
    pthread_mutex_unlock(&e->mu);
    if (!*schedule_json) {
        ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_ENGINE_INTERNAL;
    }
    return MS_ENGINE_OK;
}
