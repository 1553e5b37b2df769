/* engine_gpu.c: the engine's MIG instances and the starts on them: the instance a job gets
 * (reused when idle, else created after destroying the idle instances in its way), and the
 * pass's starts committed together. Runs on the scheduling thread with mu held; backend
 * calls drop mu (they take real time) while the instance is marked creating or destroying,
 * so the API keeps answering. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hpc_mapping.h"
#include "log.h"
#include "migsched/workload.h"

void ei_spec_times(const ms_gpu_model *m, const md_job_spec *s, double time[MS_MAX_SLICES + 1])
{
    for (int k = 0; k <= MS_MAX_SLICES; k++)
        time[k] = s->profile < 0 && s->times[k] > 0 ? s->times[k] : INFINITY;
    if (s->profile < 0)
        return;
    /* A fixed profile runs on the smallest base profile with its slices and memory (the
     * planner knows base profiles only); at least as fast there as asked. */
    const ms_profile *want = &m->profiles[s->profile];
    for (int k = 0; k < m->nsizes; k++) {
        const ms_profile *b = &m->profiles[m->base_profile[m->sizes[k]]];
        if (b->slices >= want->slices && b->memory_gb >= want->memory_gb) {
            time[m->sizes[k]] = s->seconds;
            return;
        }
    }
}

void ei_job_size(const ms_gpu_model *m, const md_job_spec *s, int *profile, double *seconds)
{
    if (s->profile >= 0) {
        *profile = s->profile;
        *seconds = s->seconds;
        return;
    }
    /* A job with per-size times takes the size of least slice-seconds (the smaller size on
     * ties): what it costs the node, since online placement has no batch to trade it in. */
    ms_task t = {0};
    ei_spec_times(m, s, t.time);
    int best = 0;
    ms_task_min_area(&t, m, &best);
    *profile = best > 0 && m->base_profile[best] >= 0 ? m->base_profile[best] : -1;
    *seconds = best > 0 ? t.time[best] : NAN;
}

int ei_busy_slices(const md_engine *e, int g)
{
    int n = 0;
    for (int k = 0; k < e->m->slots; k++)
        if (e->gpu[g].inst[k].state == EI_BUSY)
            n += e->m->profiles[e->gpu[g].inst[k].profile].slices;
    return n;
}

/* The memory slots an instance of the device listing takes. */
static uint32_t listed_slots(const ms_mig_instance *in)
{
    return ((1u << in->size_slots) - 1) << in->start_slot;
}

int ei_foreign(md_engine *e, int g, const ms_mig_instance *in, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    int rc = e->journal ? ms_journal_foreign(e->journal, gp->device, in, err) : MS_OK;
    gp->foreign_slots |= listed_slots(in);
    if (in->profile >= 0) /* a profile the model lacks takes no slice we count */
        gp->foreign_slices |= ms_gpu_slice_mask(e->m, (ms_placement){in->profile, in->start_slot});
    return rc;
}

/* Someone else destroyed or replaced our instance at slot (ms_backend_destroy_owned found
 * another identity there, or nothing): it is not ours any more. Our records of it end, and
 * what now overlaps its slots is someone else's, never used or touched. Called with mu
 * dropped; returns with it held, and MS_ECHANGED so that the caller's start fails (its job
 * stays queued and is placed elsewhere). */
static int lost(md_engine *e, int g, int slot, const ms_mig_instance *was, int64_t sid,
                ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    ms_error why = *err;
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    ms_error ignore = {0};
    if (ms_backend_list(gp->be, list, &n, &ignore))
        n = 0; /* unknown: the slots are free to us only once a later list shows them */
    if (e->journal)
        ms_journal_destroyed(e->journal, gp->device, was->gi_id, NULL);
    pthread_mutex_lock(&e->smu);
    md_store_instance_destroyed(e->st, sid, ei_now(), NULL);
    pthread_mutex_unlock(&e->smu);
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < n; i++) {
        if (listed_slots(&list[i]) & listed_slots(was)) {
            ei_foreign(e, g, &list[i], NULL);
            md_log(MD_LOG_WARN, "instance.foreign", "gpu=%d gi=%u start=%d size=%d", gp->device,
                   list[i].gi_id, list[i].start_slot, list[i].size_slots);
        }
    }
    char q[MS_ERR_LEN + 64];
    md_log(MD_LOG_WARN, "instance.lost", "gpu=%d start=%d gi=%u error=%s", gp->device, slot,
           was->gi_id, md_log_quote(why.msg, q, sizeof q));
    gp->inst[slot] = (ei_inst){.profile = -1};
    *err = why;
    return MS_ECHANGED;
}

int ei_destroy(md_engine *e, int g, int slot, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    ei_inst *in = &gp->inst[slot];
    in->state = EI_DESTROYING;
    ms_mig_instance was = in->mig;
    int64_t sid = in->store_id;
    pthread_mutex_unlock(&e->mu);
    double t0 = ms_monotonic_seconds();
    int rc = ms_backend_destroy_owned(gp->be, e->journal, &was, err);
    double took = ms_monotonic_seconds() - t0;
    if (!rc && e->journal)
        rc = ms_journal_destroyed(e->journal, gp->device, was.gi_id, err);
    if (!rc) {
        pthread_mutex_lock(&e->smu);
        rc = md_store_instance_destroyed(e->st, sid, ei_now(), err);
        pthread_mutex_unlock(&e->smu);
    }
    if (rc == MS_ECHANGED)
        return lost(e, g, slot, &was, sid, err);
    pthread_mutex_lock(&e->mu);
    if (rc) {
        in->state = EI_IDLE; /* kept: tried again when next in the way, or at stop */
        in->mig = was;       /* without its MIG device if the compute instance went */
        char why[MS_ERR_LEN + 64];
        snprintf(why, sizeof why, "gpu %d start %d gi %u: %s", gp->device, slot, was.gi_id,
                 err->msg);
        md_backoff_fail(&e->destroys, ms_monotonic_seconds(), why);
        return rc;
    }
    md_backoff_ok(&e->destroys);
    e->destructions_total++;
    ei_observe(&e->destruction_seconds, md_engine_reconf_bounds, MD_ENGINE_RECONF_BUCKETS, took);
    char prof[MS_NAME_LEN + 64];
    md_log(MD_LOG_INFO, "instance.destroy", "gpu=%d profile=%s start=%d gi=%u seconds=%.3f",
           gp->device, md_log_quote(e->m->profiles[in->profile].name, prof, sizeof prof), slot,
           was.gi_id, took);
    *in = (ei_inst){.profile = -1};
    return MS_OK;
}

int ei_create(md_engine *e, int g, ms_placement p, int64_t job, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    ei_inst *in = &gp->inst[p.start];
    *in = (ei_inst){.profile = p.profile, .state = EI_CREATING, .job = job};
    pthread_mutex_unlock(&e->mu);
    double t0 = ms_monotonic_seconds();
    ms_mig_instance mig;
    /* No journal record, no creation: a cleanup could not know of it. */
    int rc = e->journal ? ms_journal_create_begin(e->journal, gp->device, p.start,
                                                  e->m->profiles[p.profile].size_slots, err)
                        : MS_OK;
    if (!rc)
        rc = ms_backend_create_journaled(gp->be, e->journal, p, &mig, err);
    double took = ms_monotonic_seconds() - t0;
    if (!rc && e->journal && (rc = ms_journal_created(e->journal, gp->device, &mig, err)))
        ms_backend_destroy(gp->be, mig.gi_id, NULL);
    md_store_instance row = {.gpu = gp->device, .at = p};
    if (!rc) {
        row.gi_id = (int)mig.gi_id;
        row.ci_id = (int)mig.ci_id;
        snprintf(row.uuid, sizeof row.uuid, "%s", mig.uuid);
        row.created = ei_now();
        pthread_mutex_lock(&e->smu);
        rc = md_store_add_instance(e->st, &row, err);
        pthread_mutex_unlock(&e->smu);
        if (rc)
            ms_backend_destroy(gp->be, mig.gi_id, NULL); /* unrecorded: not kept */
    }
    pthread_mutex_lock(&e->mu);
    if (rc) {
        *in = (ei_inst){.profile = -1};
        return rc;
    }
    in->mig = mig;
    in->store_id = row.id;
    e->creations_total++;
    ei_observe(&e->creation_seconds, md_engine_reconf_bounds, MD_ENGINE_RECONF_BUCKETS, took);
    char prof[MS_NAME_LEN + 64];
    md_log(MD_LOG_INFO, "instance.create", "gpu=%d profile=%s start=%d gi=%u seconds=%.3f",
           gp->device, md_log_quote(e->m->profiles[p.profile].name, prof, sizeof prof), p.start,
           mig.gi_id, took);
    return MS_OK;
}

/* nvml or a sim state file: the idle instance at slot is still the one we made. Someone may have
 * destroyed or replaced it since (same profile and place, another MIG UUID): then it is lost, as
 * ei_destroy finds out, and the start fails. The listing is quick: mu stays held unless the
 * instance is lost. */
static int still_ours(md_engine *e, int g, int slot, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    int rc = ms_backend_list(gp->be, list, &n, err);
    for (int i = 0; !rc && i < n; i++)
        if (ms_mig_same_instance(&gp->inst[slot].mig, &list[i]))
            return MS_OK;
    if (rc)
        return rc;
    ms_mig_instance was = gp->inst[slot].mig;
    int64_t sid = gp->inst[slot].store_id;
    ms_error_set(err, MS_ECHANGED,
                 "device %d changed: GPU instance %u at slot %d is no longer "
                 "the one migsched created (%s) and is left alone",
                 gp->device, was.gi_id, slot, was.uuid[0] ? was.uuid : "no MIG device");
    gp->inst[slot].state = EI_DESTROYING; /* what lost() ends; nothing else may take it */
    pthread_mutex_unlock(&e->mu);
    return lost(e, g, slot, &was, sid, err);
}

double ei_ready(const md_engine *e, int g, ms_placement p)
{
    const ms_gpu_model *m = e->m;
    const ei_inst *at = &e->gpu[g].inst[p.start];
    if (at->profile == p.profile && at->state == EI_IDLE)
        return 0;
    uint32_t mask = ms_gpu_slot_mask(m, p);
    double t = ms_gpu_create_time(m, m->profiles[p.profile].slices);
    for (int k = 0; k < m->slots; k++) {
        const ei_inst *o = &e->gpu[g].inst[k];
        if (o->profile < 0)
            continue;
        int slices = m->profiles[o->profile].slices;
        bool in_way = ms_gpu_slot_mask(m, (ms_placement){o->profile, k}) & mask;
        if (o->state == EI_CREATING)
            t += ms_gpu_create_time(m, slices);
        else if (o->state == EI_DESTROYING || (o->state == EI_IDLE && in_way))
            t += ms_gpu_destroy_time(m, slices);
    }
    return t;
}

/* Makes (g, p) an instance held by job: reused when an idle one is there (still ours),
 * else created once the idle instances overlapping it are destroyed. */
static int make(md_engine *e, int g, ms_placement p, int64_t job, ms_error *err)
{
    ei_inst *in = &e->gpu[g].inst[p.start];
    if (in->profile == p.profile && in->state == EI_IDLE) {
        int rc = e->nvml || *e->c->sim_state ? still_ours(e, g, p.start, err) : MS_OK;
        if (rc)
            return rc;
        in->state = EI_BUSY;
        in->job = job;
        return MS_OK;
    }
    uint32_t mask = ms_gpu_slot_mask(e->m, p);
    if (mask & e->gpu[g].foreign_slots)
        return ms_error_set(err, MS_ECHANGED,
                            "device %d: slots of %s at %d hold an instance "
                            "not ours",
                            e->gpu[g].device, e->m->profiles[p.profile].name, p.start);
    for (int k = 0; k < e->m->slots; k++) {
        ei_inst *o = &e->gpu[g].inst[k];
        if (o->profile >= 0 && (ms_gpu_slot_mask(e->m, (ms_placement){o->profile, k}) & mask)) {
            int rc = ei_destroy(e, g, k, err);
            if (rc)
                return rc;
        }
    }
    int rc = ei_create(e, g, p, job, err);
    if (!rc)
        in->state = EI_BUSY;
    return rc;
}

/* make(), with e->making saying so meanwhile: when the job is expected to start. */
static int claim(md_engine *e, int g, ms_placement p, int64_t job, ms_error *err)
{
    /* sim: reconfigurations take the model's times over time-scale, fixed at open */
    double scale = e->nvml ? 1 : e->c->time_scale;
    e->making = (ei_making){job, g, p, ms_monotonic_seconds() + ei_ready(e, g, p) / scale};
    int rc = make(e, g, p, job, err);
    e->making.job = 0;
    return rc;
}

void ei_release(md_engine *e, int g, int slot)
{
    ei_inst *in = &e->gpu[g].inst[slot];
    in->state = EI_IDLE;
    in->job = 0;
}

int ei_start(md_engine *e, size_t i, int g, ms_placement p, ms_error *err)
{
    int64_t id = e->queue[i]->id;
    if (e->nstarting == e->capstarting) {
        size_t cap = e->capstarting ? 2 * e->capstarting : 16;
        ei_starting *ns = realloc(e->starting, cap * sizeof *ns);
        if (!ns)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        e->starting = ns;
        e->capstarting = cap;
    }
    int rc = claim(e, g, p, id, err);
    if (rc)
        return rc;
    e->starting[e->nstarting++] = (ei_starting){.id = id, .gpu = g, .at = p};
    return MS_OK;
}

void ei_placed_for_slurm(md_engine *e, ei_run *r)
{
    const md_job *j = &r->job;
    if (!e->slurm_comments)
        return;
    if (e->nplaced == e->capplaced) {
        size_t cap = e->capplaced ? 2 * e->capplaced : 8;
        md_engine_placed *b = realloc(e->placed, cap * sizeof *b);
        if (!b) {
            md_log(MD_LOG_WARN, "slurm.comment_failed", "slurm_job=%lld error=\"out of memory\"",
                   (long long)j->spec.slurm_job_id);
            return;
        }
        e->placed = b;
        e->capplaced = cap;
    }
    const ei_gpu *gp = &e->gpu[r->gpu];
    md_engine_placed *p = &e->placed[e->nplaced++];
    double now = ms_monotonic_seconds();
    r->comment_due = now + MD_ENGINE_COMMENT_WAIT;
    *p = (md_engine_placed){.slurm_job_id = j->spec.slurm_job_id, .gpu = gp->device, .placed = now};
    snprintf(p->profile, sizeof p->profile, "%s", e->m->profiles[gp->inst[r->slot].profile].name);
    snprintf(p->gpu_uuid, sizeof p->gpu_uuid, "%s", gp->uuid);
    snprintf(p->mig_uuid, sizeof p->mig_uuid, "%s", gp->inst[r->slot].mig.uuid);
}

/* The start is durable: the job runs (a hold, or its process) and leaves the queue. */
static void run_started(md_engine *e, const ei_starting *s, md_job *next)
{
    ms_placement p = s->at;
    int g = s->gpu;
    ei_inst *in = &e->gpu[g].inst[p.start];
    /* A job with per-size times holds the instance for its time at that size; an
     * allocation until released. */
    bool alloc = ei_is_alloc(next);
    double seconds = next->spec.profile >= 0 ? next->spec.seconds
                                             : next->spec.times[e->m->profiles[p.profile].slices];
    ei_run *r = &e->run[e->nrun++];
    *r = (ei_run){.job = *next,
                  .gpu = g,
                  .slot = p.start,
                  .cancel = s->cancel,
                  .end_mono = e->nvml || alloc ? INFINITY
                                               : ms_monotonic_seconds() + seconds / e->time_scale};
    ei_mapping(e, g, p.start, &r->job);
    ms_error err = {0};
    if (e->nvml && !alloc && ei_spawn(e, r, in->mig.uuid, &err) && r->pid == 0) {
        if (r->node_fault) {
            /* The node's fault: requeued (step()), logged once per distinct error. */
            snprintf(r->job.start_error, sizeof r->job.start_error, "%.*s",
                     (int)sizeof r->job.start_error - 1, err.msg);
            md_backoff_fail(&e->starts, ms_monotonic_seconds(), err.msg);
        } else {
            /* The job's own: it fails with the status ei_spawn gave (an identity or a
             * device isolation refused). */
            char uid[16], user[160], q[MS_ERR_LEN + 64];
            md_log(MD_LOG_ERROR, "job.spawn_failed", "id=%lld user=%s error=%s",
                   (long long)next->id,
                   md_log_quote(md_job_user(&next->owner, uid), user, sizeof user),
                   md_log_quote(err.msg, q, sizeof q));
            r->exited = true;
        }
    } else if (e->nvml && !alloc) {
        r->job.start_failures = 0;
        md_backoff_ok(&e->starts);
    }
    ei_observe(&e->wait_seconds, md_engine_time_bounds, MD_ENGINE_TIME_BUCKETS,
               next->started - next->submitted);
    if (alloc) {
        ei_observe(&e->alloc_wait_seconds, md_engine_time_bounds, MD_ENGINE_TIME_BUCKETS,
                   next->started - next->submitted);
        ei_placed_for_slurm(e, r);
        ei_slurm_changed(e);
    }
    char name[160], uid[16], user[160], prof[MS_NAME_LEN + 64];
    md_log(MD_LOG_INFO, "job.start", "id=%lld user=%s name=%s gpu=%d profile=%s start=%d",
           (long long)next->id, md_log_quote(md_job_user(&next->owner, uid), user, sizeof user),
           md_log_quote(next->spec.name, name, sizeof name), e->gpu[g].device,
           md_log_quote(e->m->profiles[p.profile].name, prof, sizeof prof), p.start);
    /* its spec now belongs to the running copy */
    free(ei_queue_remove(e, ei_queued_at(e, s->id)));
}

int ei_start_flush(md_engine *e, ms_error *err)
{
    size_t n = e->nstarting;
    if (n == 0)
        return MS_OK;
    md_job *next = malloc(n * sizeof *next);
    md_job_transition *ts = malloc(n * sizeof *ts);
    const md_job **ptr = malloc(n * sizeof *ptr);
    int rc = next && ts && ptr ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc && ei_grow_run(e, n)) /* no failure once the starts are durable */
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    size_t k = 0;
    double now = ei_now();
    for (size_t s = 0; s < n; s++) {
        ei_starting *st = &e->starting[s];
        /* mu was dropped around later claims' backend calls: a job cancelled meanwhile is
         * gone from the queue and leaves its instance idle. */
        size_t at = ei_queued_at(e, st->id);
        if (!rc && at < e->nqueue) {
            next[k] = *e->queue[at];
            ptr[k] = &next[k];
            if (md_job_start(&next[k], now, e->gpu[st->gpu].device, st->at,
                             e->gpu[st->gpu].inst[st->at.start].mig.uuid, &ts[k], err) == MS_OK) {
                k++;
                continue;
            }
            char uid[16], user[160], q[MS_ERR_LEN + 64];
            md_log(MD_LOG_ERROR, "job.start_failed", "id=%lld user=%s error=%s", (long long)st->id,
                   md_log_quote(md_job_user(&next[k].owner, uid), user, sizeof user),
                   md_log_quote(err->msg, q, sizeof q));
        }
        ei_release(e, st->gpu, st->at.start);
        st->id = 0;
    }
    if (!rc && k) {
        e->flushing = true; /* a cancel meanwhile marks the start instead (engine_api.c) */
        rc = ei_commit(e, ptr, ts, k, true, err);
    }
    for (size_t s = 0, i = 0; s < n; s++) {
        if (e->starting[s].id == 0)
            continue;
        if (rc) /* not durable: the jobs stay queued, their instances idle */
            ei_release(e, e->starting[s].gpu, e->starting[s].at.start);
        else
            run_started(e, &e->starting[s], &next[i++]);
    }
    e->nstarting = 0;
    e->flushing = false;
    pthread_cond_broadcast(&e->changed); /* a cancel or a view may wait for these */
    free(next);
    free(ts);
    free(ptr);
    return rc;
}

int ei_destroy_all(md_engine *e, ms_error *err)
{
    int first = MS_OK;
    for (int g = 0; g < e->ngpus; g++)
        for (int k = 0; k < e->m->slots; k++)
            if (e->gpu[g].inst[k].profile >= 0 && e->gpu[g].inst[k].state == EI_IDLE) {
                ms_error one = {0};
                int rc = ei_destroy(e, g, k, &one);
                if (rc && !first) {
                    first = rc;
                    if (err)
                        *err = one;
                }
            }
    return first;
}

void ei_mapping(md_engine *e, int g, int slot, const md_job *j)
{
    const char *dir = e->c->hpc_job_mapping_dir;
    if (!*dir)
        return;
    /* DCGM's hpc_job label: the Slurm job id for an allocation, else migschedd's. */
    int64_t id = j ? (ei_is_alloc(j) ? j->spec.slurm_job_id : j->id) : 0;
    ms_error err = {0};
    char q[MS_ERR_LEN + 64];
    if (md_hpc_mapping_set(dir, e->gpu[g].device, e->gpu[g].inst[slot].mig.gi_id, &id, j ? 1 : 0,
                           &err))
        md_log(MD_LOG_WARN, "mapping.failed", "error=%s", md_log_quote(err.msg, q, sizeof q));
}