/* engine_alloc.c: Slurm jobs' allocations (online mode). An allocation is a job of the
 * engine whose spec carries the Slurm job id and no command: it is queued and placed like
 * any job (paper 002's placement, never touching a busy instance) and then holds its
 * instance until released. It is keyed by the Slurm job id and counts the Slurm steps
 * holding it (the store's allocation_steps): the SPANK plugin adds a step per task start
 * (idempotent: a step's tasks add it once) and removes it at the step's end; the last step
 * gone, or the job's epilog, or the reconciliation with Slurm's running jobs, releases it.
 * It outlives a stop and a crash of migschedd: the Slurm job still uses the instance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "hpc_mapping.h"
#include "log.h"

size_t ei_jobs_running(const md_engine *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->nrun; i++)
        n += !ei_is_alloc(&e->run[i].job);
    return n;
}

int ei_alloc_load_held(md_engine *e, ms_error *err)
{
    md_job *run;
    size_t n;
    int rc = md_store_running_jobs(e->st, &run, &n, err);
    if (rc)
        return rc;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ei_is_alloc(&run[i])) {
            md_job_free(&run[i]);
            continue;
        }
        run[k++] = run[i];
    }
    e->held = run;
    e->nheld = k;
    return MS_OK;
}

int ei_alloc_adopt(md_engine *e, int g, const ms_mig_instance *in, bool *adopted, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    *adopted = false;
    for (size_t i = 0; i < e->nheld; i++) {
        const md_job *j = &e->held[i];
        if (j->gpu != gp->device || j->placement.start != in->start_slot ||
            strcmp(j->mig_uuid, in->uuid) || j->placement.profile < 0)
            continue;
        int rc = ms_journal_created(e->journal, gp->device, in, err);
        if (rc)
            return rc;
        gp->inst[in->start_slot] = (ei_inst){
            .profile = j->placement.profile, .state = EI_BUSY, .job = j->id, .mig = *in};
        *adopted = true;
        md_log(MD_LOG_INFO, "recover.adopt", "gpu=%d gi=%u start=%d slurm_job=%lld", gp->device,
               in->gi_id, in->start_slot, (long long)j->spec.slurm_job_id);
        return MS_OK;
    }
    return MS_OK;
}

bool ei_alloc_keeps_row(md_engine *e, const md_store_instance *row)
{
    for (int g = 0; g < e->ngpus; g++) {
        if (e->gpu[g].device != row->gpu || row->at.start < 0 || row->at.start >= MS_MAX_SLOTS)
            continue;
        ei_inst *in = &e->gpu[g].inst[row->at.start];
        if (in->profile >= 0 && in->job && !strcmp(in->mig.uuid, row->uuid)) {
            in->store_id = row->id;
            return true;
        }
    }
    return false;
}

int ei_alloc_resume(md_engine *e, md_job *j, bool *resumed, ms_error *err)
{
    *resumed = false;
    int g = 0;
    while (g < e->ngpus && e->gpu[g].device != j->gpu)
        g++;
    if (g == e->ngpus || j->placement.profile < 0)
        return MS_OK;
    ei_inst *in = &e->gpu[g].inst[j->placement.start];
    if (!e->nvml && !*e->c->sim_state) {
        /* Nothing survives a sim process: the instance is made again where it was. */
        ms_error cerr = {0};
        if (ei_create(e, g, j->placement, j->id, &cerr)) {
            char q[MS_ERR_LEN + 64];
            md_log(MD_LOG_WARN, "recover.allocation_lost", "slurm_job=%lld error=%s",
                   (long long)j->spec.slurm_job_id, md_log_quote(cerr.msg, q, sizeof q));
            return MS_OK;
        }
        in->state = EI_BUSY;
    }
    if (in->profile < 0 || in->job != j->id)
        return MS_OK;
    if (ei_grow_run(e, 1))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    e->run[e->nrun++] = (ei_run){
        .job = *j, .gpu = g, .slot = j->placement.start, .end_mono = INFINITY};
    memset(&j->spec, 0, sizeof j->spec);
    *resumed = true;
    char uid[16], user[160];
    md_log(MD_LOG_INFO, "recover.allocation", "id=%lld user=%s slurm_job=%lld gpu=%d start=%d",
           (long long)j->id, md_log_quote(md_job_user(&j->owner, uid), user, sizeof user),
           (long long)e->run[e->nrun - 1].job.spec.slurm_job_id, j->gpu, j->placement.start);
    return MS_OK;
}

int ei_alloc_mapping_init(md_engine *e, ms_error *err)
{
    if (!*e->c->hpc_job_mapping_dir)
        return MS_OK;
    for (int g = 0; g < e->ngpus; g++) {
        unsigned keep[MS_MAX_SLOTS];
        size_t nkeep = 0;
        for (size_t i = 0; i < e->nrun; i++)
            if (e->run[i].gpu == g)
                keep[nkeep++] = e->gpu[g].inst[e->run[i].slot].mig.gi_id;
        int rc = md_hpc_mapping_prune(e->c->hpc_job_mapping_dir, e->gpu[g].device, keep, nkeep,
                                      err);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < e->nrun; i++)
        ei_mapping(e, e->run[i].gpu, e->run[i].slot, &e->run[i].job);
    return MS_OK;
}

/* ---- The API's calls ---- */

/* The live (queued or running) allocation of a Slurm job: its engine job, NULL if none. */
static md_job *find_live(md_engine *e, int64_t slurm_id, ei_run **run)
{
    *run = NULL;
    for (size_t i = 0; i < e->nqueue; i++)
        if (e->queue[i]->spec.slurm_job_id == slurm_id)
            return e->queue[i];
    for (size_t i = 0; i < e->nrun; i++)
        if (e->run[i].job.spec.slurm_job_id == slurm_id) {
            *run = &e->run[i];
            return &e->run[i].job;
        }
    return NULL;
}

/* Where a held allocation's instance is: what the SPANK plugin confines its tasks to.
 * gi -1: not holding one; gpu_minor -1: the GPU's minor number is unknown.
 * comment_pending: its AdminComment is being set, which its tasks wait for. */
typedef struct held {
    long gi, ci, gpu_minor;
    bool comment_pending;
} held;

/* Asked after the store's view of the job: one the store says runs is in the running set
 * by then (ei_settle: its start has been acted on), so that a running allocation always
 * comes with its instance. */
static held held_now(md_engine *e, int64_t id)
{
    held h = {-1, -1, -1, false};
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    for (size_t i = 0; i < e->nrun; i++) {
        const ei_run *r = &e->run[i];
        if (r->job.id != id)
            continue;
        const ei_gpu *gp = &e->gpu[r->gpu];
        const ms_mig_instance *in = &gp->inst[r->slot].mig;
        unsigned minor;
        h.gi = (long)in->gi_id;
        h.ci = in->nci > 0 ? (long)in->ci_id : -1;
        h.gpu_minor = ms_backend_gpu_minor(gp->be, &minor, NULL) == MS_OK ? (long)minor : -1;
        h.comment_pending = r->comment_due > 0 && ms_monotonic_seconds() < r->comment_due;
    }
    pthread_mutex_unlock(&e->mu);
    return h;
}

static json_t *or_null(long v) { return v >= 0 ? json_integer(v) : json_null(); }

/* The allocation's JSON: its job (GET /v1/jobs/{id}) with its steps and, once placed, its
 * GPU instance id (DCGM's GPU_I_ID), compute instance id and the GPU's minor number;
 * comment_pending while its Slurm job's AdminComment is being set. */
static md_engine_outcome alloc_json(md_engine *e, int64_t id, json_t **out, ms_error *err)
{
    md_engine_outcome o = ei_get_job(e, id, NULL, out, err);
    if (o != MD_ENGINE_OK)
        return o;
    held h = held_now(e, id);
    int64_t *steps;
    size_t n;
    pthread_mutex_lock(&e->smu);
    int rc = md_store_steps(e->st, id, &steps, &n, err);
    pthread_mutex_unlock(&e->smu);
    json_t *arr = rc ? NULL : json_array();
    for (size_t i = 0; arr && i < n; i++)
        json_array_append_new(arr, json_integer(steps[i]));
    free(steps);
    if (!arr || json_object_set_new(*out, "steps", arr) ||
        json_object_set_new(*out, "gi_id", or_null(h.gi)) ||
        json_object_set_new(*out, "ci_id", or_null(h.ci)) ||
        json_object_set_new(*out, "gpu_minor", or_null(h.gpu_minor)) ||
        json_object_set_new(*out, "comment_pending", json_boolean(h.comment_pending))) {
        json_decref(*out);
        *out = NULL;
        if (!rc)
            ms_error_set(err, MS_ENOMEM, "out of memory");
        return MD_ENGINE_INTERNAL;
    }
    return MD_ENGINE_OK;
}

/* A new allocation from spec owned by owner, queued (mu held; takes the spec). */
static int alloc_new(md_engine *e, md_job_spec *spec, const md_job_owner *owner, md_job **out,
                     ms_error *err)
{
    md_job *j = malloc(sizeof *j);
    if (!j) {
        md_job_spec_free(spec);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    md_job_init(j, spec);
    j->owner = *owner;
    md_job_transition t;
    int rc = md_job_submit(j, ei_now(), &t, err);
    if (!rc) {
        pthread_mutex_lock(&e->smu);
        rc = md_store_submit(e->st, j, &t, err);
        pthread_mutex_unlock(&e->smu);
    }
    if (!rc && ei_queue_insert(e, j)) /* durable: the next start queues it */
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc) {
        md_job_free(j);
        free(j);
        return rc;
    }
    e->jobs[MD_JOB_QUEUED]++;
    e->submitted_total++;
    char uid[16], user[160], prof[MS_NAME_LEN + 64];
    md_log(MD_LOG_INFO, "allocation.new", "id=%lld user=%s slurm_job=%lld profile=%s",
           (long long)j->id, md_log_quote(md_job_user(&j->owner, uid), user, sizeof user),
           (long long)j->spec.slurm_job_id,
           md_log_quote(e->m->profiles[j->spec.profile].name, prof, sizeof prof));
    *out = j;
    return MS_OK;
}

md_engine_outcome md_engine_alloc_mode(const md_engine *e, ms_error *err)
{
    if (e->c->mode == MD_ONLINE)
        return MD_ENGINE_OK;
    ms_error_set(err, MS_EINVAL, "allocations need mode online (this migschedd plans batches)");
    return MD_ENGINE_BAD_REQUEST;
}

md_engine_outcome md_engine_alloc_step(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                       int64_t step, json_t **alloc, ms_error *err)
{
    *alloc = NULL;
    int64_t slurm_id = spec->slurm_job_id;
    md_engine_outcome o = md_engine_alloc_mode(e, err);
    if (o != MD_ENGINE_OK) {
        md_job_spec_free(spec);
        return o;
    }
    pthread_mutex_lock(&e->mu);
    ei_settle(e); /* no start or end half done: the queue and the running set are stable */
    ei_run *run;
    md_job *j = find_live(e, slurm_id, &run);
    if (e->stopping) {
        ms_error_set(err, MS_EINVAL, "migschedd is stopping: no new allocations");
        o = MD_ENGINE_STOPPING;
    } else if (j && j->spec.profile != spec->profile) {
        /* Nested steps inherit the job's --mig: another size is a mistake, not a resize. */
        ms_error_set(err, MS_EINVAL,
                     "Slurm job %lld holds an allocation of %s; this step "
                     "asks for %s",
                     (long long)slurm_id, e->m->profiles[j->spec.profile].name,
                     e->m->profiles[spec->profile].name);
        o = MD_ENGINE_CONFLICT;
    } else if (!j && e->nqueue + e->inflight >= (size_t)e->queue_limit) {
        ms_error_set(err, MS_EINVAL, "%d jobs are queued already (queue-limit)", e->queue_limit);
        o = MD_ENGINE_QUEUE_FULL;
    } else if (!j && alloc_new(e, spec, owner, &j, err)) {
        o = MD_ENGINE_INTERNAL;
    }
    int64_t id = j ? j->id : 0;
    if (o == MD_ENGINE_OK) {
        pthread_mutex_lock(&e->smu);
        int rc = md_store_step_add(e->st, id, step, err);
        pthread_mutex_unlock(&e->smu);
        o = rc ? MD_ENGINE_INTERNAL : o;
        ei_wake(e);
    }
    pthread_mutex_unlock(&e->mu);
    md_job_spec_free(spec); /* a no-op when alloc_new took it */
    return o == MD_ENGINE_OK ? alloc_json(e, id, alloc, err) : o;
}

md_engine_outcome md_engine_alloc_get(md_engine *e, int64_t slurm_id, json_t **alloc, ms_error *err)
{
    *alloc = NULL;
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    ei_run *run;
    md_job *j = find_live(e, slurm_id, &run);
    int64_t id = j ? j->id : 0;
    pthread_mutex_unlock(&e->mu);
    if (!id) {
        ms_error_set(err, MS_EINVAL, "Slurm job %lld holds no allocation", (long long)slurm_id);
        return MD_ENGINE_NOT_FOUND;
    }
    return alloc_json(e, id, alloc, err);
}

/* Releases allocation j (mu held): a running one ends done (its instance becomes idle), a
 * queued one is cancelled. wait: until the scheduling thread has ended it. */
static int release(md_engine *e, md_job *j, ei_run *run, bool wait, ms_error *err)
{
    if (run) {
        run->release = true;
        int64_t id = j->id;
        if (wait)
            ei_wait_ended(e, id);
        else
            ei_wake(e);
        return MS_OK;
    }
    size_t i = 0;
    while (e->queue[i] != j)
        i++;
    int rc = ei_cancel_queued(e, i, err);
    if (!rc)
        e->alloc_unplaced_total++;
    return rc;
}

md_engine_outcome md_engine_alloc_release(md_engine *e, int64_t slurm_id, int64_t step,
                                          json_t **alloc, ms_error *err)
{
    *alloc = NULL;
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    ei_run *run;
    md_job *j = find_live(e, slurm_id, &run);
    if (!j || e->stopping) {
        pthread_mutex_unlock(&e->mu);
        if (j) { /* the scheduling thread may be gone: the next start reconciles */
            ms_error_set(err, MS_EINVAL,
                         "migschedd is stopping: the allocation is released "
                         "by the reconciliation after its restart");
            return MD_ENGINE_STOPPING;
        }
        ms_error_set(err, MS_EINVAL, "Slurm job %lld holds no allocation", (long long)slurm_id);
        return MD_ENGINE_NOT_FOUND;
    }
    int64_t id = j->id, *steps = NULL;
    size_t n = 0;
    pthread_mutex_lock(&e->smu);
    int rc = step < 0 ? md_store_steps_clear(e->st, id, err)
                      : md_store_step_remove(e->st, id, step, err);
    if (!rc)
        rc = md_store_steps(e->st, id, &steps, &n, err);
    pthread_mutex_unlock(&e->smu);
    free(steps);
    if (!rc && n == 0) {
        char uid[16], user[160];
        md_log(MD_LOG_INFO, "allocation.release", "id=%lld user=%s slurm_job=%lld by=%s",
               (long long)id, md_log_quote(md_job_user(&j->owner, uid), user, sizeof user),
               (long long)slurm_id, step < 0 ? "epilog" : "last_step");
        rc = release(e, j, run, true, err);
    }
    pthread_mutex_unlock(&e->mu);
    if (rc)
        return MD_ENGINE_INTERNAL;
    return alloc_json(e, id, alloc, err);
}

int md_engine_alloc_reconcile(md_engine *e, const int64_t *alive, size_t nalive, double asked,
                              int *released, ms_error *err)
{
    *released = 0;
    int rc = MS_OK;
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    /* Collected first: releasing a queued one changes the queue. Not while stopping: the
     * next start reconciles again. */
    size_t n = e->stopping ? 0 : e->nqueue + e->nrun, k = 0;
    int64_t *gone = malloc((n ? n : 1) * sizeof *gone);
    if (!gone)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        const md_job *j = i < e->nqueue ? e->queue[i] : &e->run[i - e->nqueue].job;
        /* One made after Slurm was asked may be a job that started since: kept. */
        if (!ei_is_alloc(j) || !(j->submitted < asked))
            continue;
        bool found = false;
        for (size_t a = 0; a < nalive && !found; a++)
            found = alive[a] == j->spec.slurm_job_id;
        if (!found)
            gone[k++] = j->spec.slurm_job_id;
    }
    for (size_t i = 0; !rc && i < k; i++) {
        ei_run *run;
        md_job *j = find_live(e, gone[i], &run);
        char uid[16], user[160];
        md_log(MD_LOG_INFO, "allocation.release", "id=%lld user=%s slurm_job=%lld by=reconcile",
               (long long)j->id, md_log_quote(md_job_user(&j->owner, uid), user, sizeof user),
               (long long)gone[i]);
        pthread_mutex_lock(&e->smu);
        rc = md_store_steps_clear(e->st, j->id, err);
        pthread_mutex_unlock(&e->smu);
        if (!rc && !(rc = release(e, j, run, false, err)))
            (*released)++;
    }
    pthread_mutex_unlock(&e->mu);
    free(gone);
    return rc;
}

size_t md_engine_alloc_count(md_engine *e)
{
    pthread_mutex_lock(&e->mu);
    size_t n = 0;
    for (size_t i = 0; i < e->nqueue; i++)
        n += ei_is_alloc(e->queue[i]);
    for (size_t i = 0; i < e->nrun; i++)
        n += ei_is_alloc(&e->run[i].job);
    pthread_mutex_unlock(&e->mu);
    return n;
}
