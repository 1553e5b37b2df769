/* engine.c: the engine's lifecycle: open (backends, reconciliation with the store), the one
 * scheduling thread (it alone changes instances and starts and ends jobs), stop and close.
 * Online mode: paper 002's placement (engine_online.c). With the sim backend a job holds its
 * instance for its time / time-scale; nothing survives a crash, so every job the store
 * says was running is interrupted at open. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_internal.h"
#include "log.h"

/* A running job that ends in this pass: run[i], how and with what exit status. */
typedef struct ending {
    size_t i;
    md_job_event ev;
    int exit_status;
} ending;

/* What follows an end once it is durable: the instance freed, the job dropped from the
 * running set (requeued by id when interrupted under retry). */
static int after_end(md_engine *e, size_t i, md_job *next, md_job_event ev, ms_error *err)
{
    ei_run *r = &e->run[i];
    if (next->state == MD_JOB_DONE || next->state == MD_JOB_FAILED)
        ei_observe(&e->turnaround_seconds, md_engine_time_bounds, MD_ENGINE_TIME_BUCKETS,
                   next->ended - next->submitted);
    char uid[16], user[160];
    md_log(MD_LOG_INFO, "job.end", "id=%lld user=%s transition=%s state=%s", (long long)next->id,
           md_log_quote(md_job_user(&next->owner, uid), user, sizeof user), md_job_event_name(ev),
           md_job_state_name(next->state));
    ei_job_ended(e, next);
    ei_slurm_changed(e);
    ei_mapping(e, r->gpu, r->slot, NULL);
    /* Its instance is free once nothing the job started is left. */
    if (!ei_leftovers(e, r, &e->gpu[r->gpu].inst[r->slot], ms_monotonic_seconds()))
        ei_release(e, r->gpu, r->slot);
    int rc = MS_OK;
    if (next->state == MD_JOB_QUEUED) { /* interrupted under retry: back in line, by id */
        md_job *q = malloc(sizeof *q);
        if (q)
            *q = *next;
        if (!q || ei_queue_insert(e, q)) {
            free(q); /* next still owns the spec */
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        } else {
            memset(&next->spec, 0, sizeof next->spec);
        }
    }
    md_job_free(next);
    e->run[i] = e->run[--e->nrun];
    return rc;
}

/* Ends the jobs of `en` (by increasing run index) with one transaction for all of them
 * (one fsync), then frees their instances: nothing is acted on before it is durable. On a
 * store failure every one of them stays running, to be tried again. */
static int end_runs(md_engine *e, const ending *en, size_t n, ms_error *err)
{
    md_job *next = malloc((n ? n : 1) * sizeof *next);
    md_job_transition *ts = malloc((n ? n : 1) * sizeof *ts);
    const md_job **ptr = malloc((n ? n : 1) * sizeof *ptr);
    int rc = next && ts && ptr ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    double now = ei_now();
    for (size_t k = 0; !rc && k < n; k++) {
        next[k] = e->run[en[k].i].job;
        ptr[k] = &next[k];
        if (en[k].ev == MD_JOB_EV_REQUEUE) {
            /* Not placed again before its wait, which doubles with each failure in a row. */
            double wait = md_backoff_delay(EI_START_FIRST, EI_START_MAX,
                                           next[k].start_failures + 1);
            next[k].not_before = ms_monotonic_seconds() + wait;
            rc = md_job_requeue(&next[k], now, next[k].start_error, wait, &ts[k], err);
            continue;
        }
        rc = en[k].ev == MD_JOB_EV_FINISH
                 ? md_job_finish(&next[k], now, en[k].exit_status, &ts[k], err)
             : en[k].ev == MD_JOB_EV_INTERRUPT ? md_job_interrupt(&next[k], now, &ts[k], err)
                                               : md_job_cancel(&next[k], now, &ts[k], err);
    }
    if (!rc && n) {
        e->flushing = true; /* the views wait until the ends are acted on */
        rc = ei_commit(e, ptr, ts, n, true, err);
    }
    /* Backwards: dropping run[i] moves the last running job into i. */
    for (size_t k = n; !rc && k-- > 0;)
        rc = after_end(e, en[k].i, &next[k], en[k].ev, err);
    if (n) {
        e->flushing = false;
        pthread_cond_broadcast(&e->changed);
    }
    free(next);
    free(ts);
    free(ptr);
    return rc;
}

/* One pass: jobs whose hold ended or that were cancelled end, then the queue is placed. A
 * failing step (the ends' commit; the placement, its backend calls and commits) waits for
 * its backoff, whatever else falls due meanwhile. Returns the monotonic time of the next
 * thing to do (INFINITY: none). */
/* Instances whose ended jobs left processes: idle once those are gone. */
static void drain(md_engine *e, double now)
{
    for (int g = 0; g < e->ngpus; g++)
        for (int k = 0; k < e->m->slots; k++)
            if (e->gpu[g].inst[k].state == EI_DRAINING && ei_drained(e, &e->gpu[g].inst[k], now))
                ei_release(e, g, k);
}

static bool draining(const md_engine *e)
{
    for (int g = 0; g < e->ngpus; g++)
        for (int k = 0; k < e->m->slots; k++)
            if (e->gpu[g].inst[k].state == EI_DRAINING)
                return true;
    return false;
}

static double step(md_engine *e)
{
    ms_error err = {0};
    double now = ms_monotonic_seconds(), next = INFINITY;
    drain(e, now);
    ending *en = malloc((e->nrun ? e->nrun : 1) * sizeof *en);
    size_t nen = 0;
    for (size_t i = 0; en && i < e->nrun; i++) {
        ei_run *r = &e->run[i];
        /* An allocation is the Slurm job's, not ours to stop: it outlives a stop. */
        bool alloc = ei_is_alloc(&r->job);
        bool requeue = !alloc && e->stopping && e->on_stop == MD_ON_STOP_REQUEUE && !e->quit;
        if (e->nvml && !alloc) {
            /* A process is stopped first; its job ends once it is reaped. */
            ei_watch(e, r, r->cancel || requeue, now);
            if (!r->exited && !r->node_fault) /* polled below: waitpid on our own children */
                continue;
        }
        /* A start that ran nothing for the node's reason goes back to the queue, even at a
         * stop: it was never interrupted. */
        md_job_event ev = r->cancel       ? MD_JOB_EV_CANCEL
                          : r->node_fault ? MD_JOB_EV_REQUEUE
                          : requeue       ? MD_JOB_EV_INTERRUPT
                                          : MD_JOB_EV_FINISH;
        if (r->cancel || requeue || r->exited || r->release || r->node_fault)
            en[nen++] = (ending){i, ev, r->exit_status};
        else if (r->end_mono <= now)
            en[nen++] = (ending){i, MD_JOB_EV_FINISH, 0};
    }
    /* On a store failure the jobs stay as they are, to be ended at the next try. */
    if ((nen || !en) && md_backoff_due(&e->ends, now)) {
        if (!en || end_runs(e, en, nen, &err))
            md_backoff_fail(&e->ends, ms_monotonic_seconds(), en ? err.msg : "out of memory");
        else
            md_backoff_ok(&e->ends);
    }
    free(en);
    bool batch = e->c->mode == MD_BATCH;
    if (md_backoff_due(&e->schedule, now)) {
        int rc = batch ? ei_batch_step(e, &err) : e->stopping ? MS_OK : ei_place_queued(e, &err);
        if (rc)
            md_backoff_fail(&e->schedule, ms_monotonic_seconds(), err.msg);
        else
            md_backoff_ok(&e->schedule);
    }
    /* A step that failed is due at its retry, not before. */
    double ends_at = e->ends.delay > 0 ? e->ends.retry_at : -INFINITY;
    double schedule_at = e->schedule.delay > 0 ? e->schedule.retry_at : -INFINITY;
    if (e->schedule.delay > 0)
        next = fmin(next, schedule_at);
    if (batch) /* a batch falls due by time too */
        next = fmin(next, fmax(schedule_at, now + (ei_batch_due(e) - ei_now())));
    for (size_t i = 0; i < e->nqueue; i++) /* a job's backoff after a node failure */
        if (e->queue[i]->not_before > now)
            next = fmin(next, e->queue[i]->not_before);
    if (draining(e)) /* a poll, as for running processes */
        next = fmin(next, now + 0.05);
    for (size_t i = 0; i < e->nrun; i++) /* those just started included */
        next = fmin(next, e->nvml && !ei_is_alloc(&e->run[i].job)
                              ? now + 0.05 /* a poll: the end itself waits for ends_at */
                              : fmax(ends_at, e->run[i].end_mono));
    return next;
}

static void *loop(void *arg)
{
    md_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        e->kicked = false;
        double next = step(e);
        if (e->stopping && ei_jobs_running(e) == 0 && !draining(e))
            break;
        if (e->stopping && e->ends.delay > 0) {
            /* The store keeps failing: the stop ends at stop-grace all the same, and the
             * jobs it could not end are left to the next start's recovery, as after a crash. */
            double give_up = e->stop_mono + e->stop_grace;
            if (ms_monotonic_seconds() >= give_up) {
                e->abandoned = ei_jobs_running(e);
                char q[MS_ERR_LEN + 32];
                md_log(MD_LOG_ERROR, "engine.stop_abandoned", "jobs=%zu error=%s repeated=%lu",
                       e->abandoned, md_log_quote(e->ends.error, q, sizeof q), e->ends.repeated);
                pthread_cond_broadcast(&e->changed); /* a cancel waiting for one of them */
                break;
            }
            next = fmin(next, give_up);
        }
        if (e->kicked)
            continue;
        if (isinf(next)) {
            pthread_cond_wait(&e->wake, &e->mu);
        } else {
            double whole;
            double frac = modf(next, &whole);
            struct timespec ts = {(time_t)whole, (long)(frac * 1e9)};
            pthread_cond_timedwait(&e->wake, &e->mu, &ts);
        }
    }
    ms_error err = {0};
    char q[MS_ERR_LEN + 64];
    if (ei_destroy_all(e, &err))
        md_log(MD_LOG_ERROR, "instance.destroy_failed", "error=%s",
               md_log_quote(err.msg, q, sizeof q));
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* Counts the store's jobs by state and queues the queued ones (by id). */
static int load_jobs(md_engine *e, ms_error *err)
{
    /* Counted in SQL: only the queued jobs are read, never every job ever run. */
    int rc = md_store_count_jobs(e->st, e->jobs, err);
    md_job *all;
    size_t n;
    if (rc || (rc = md_store_list_jobs(e->st, MD_JOB_QUEUED, &all, &n, err)))
        return rc;
    e->queue = malloc((n ? n : 1) * sizeof *e->queue);
    e->capqueue = n ? n : 1;
    if (!e->queue)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        md_job *q = malloc(sizeof *q);
        if (!q) {
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        *q = all[i];
        if (ei_tally_job(e, q, 1)) {
            free(q);
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        memset(&all[i].spec, 0, sizeof all[i].spec);
        e->queue[e->nqueue++] = q;
    }
    md_store_free_jobs(all, n);
    return rc;
}

/* Reconciliation with the store: no hold survives the process (sim), and no process or
 * instance of the previous owner survives ei_nvml_open (nvml: stopped, destroyed or left as
 * foreign), so every instance the store lists as live is recorded destroyed and every job
 * it says was running is interrupted (requeued under retry, failed under fail). Allocations
 * are the exception: the Slurm job holding one still uses its instance, adopted by
 * ei_nvml_open (nvml) or made again (sim), and it runs on. */
static int reconcile_store(md_engine *e, ms_error *err)
{
    md_store_instance *live;
    size_t n;
    int rc = md_store_live_instances(e->st, &live, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        if (!ei_alloc_keeps_row(e, &live[i]))
            rc = md_store_instance_destroyed(e->st, live[i].id, ei_now(), err);
    if (!rc && n)
        md_log(MD_LOG_INFO, "recover.instances", "gone=%zu", n);
    free(live);
    md_job *run;
    if (rc || (rc = md_store_running_jobs(e->st, &run, &n, err)))
        return rc;
    md_job_transition *ts = calloc(n ? n : 1, sizeof *ts);
    const md_job **ptr = calloc(n ? n : 1, sizeof *ptr);
    if (!ts || !ptr)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        bool resumed = false;
        if (ei_is_alloc(&run[i]) && ((rc = ei_alloc_resume(e, &run[i], &resumed, err)) || resumed))
            continue;
        rc = md_job_recover(&run[i], ei_now(), e->c->max_attempts, &ts[k], err);
        ptr[k++] = &run[i];
    }
    if (!rc && k && !(rc = md_store_transitions(e->st, ptr, ts, k, err)))
        md_log(MD_LOG_INFO, "recover.jobs", "interrupted=%zu", k);
    for (size_t i = 0; !rc && i < k; i++)
        ei_job_ended(e, ptr[i]);
    free(ts);
    free(ptr);
    md_store_free_jobs(run, n);
    return rc;
}

static void free_engine(md_engine *e)
{
    ei_nvml_close(e, false);
    md_store_free_jobs(e->held, e->nheld);
    for (int g = 0; g < e->ngpus; g++)
        ms_backend_close(e->gpu[g].be);
    for (size_t i = 0; i < e->nqueue; i++) {
        md_job_free(e->queue[i]);
        free(e->queue[i]);
    }
    free(e->queue);
    free(e->tally);
    for (size_t i = 0; i < e->nrun; i++)
        md_job_free(&e->run[i].job);
    free(e->run);
    free(e->starting);
    free(e->placed);
    ei_batch_free(e->batch);
    ms_schedule_free(e->plan);
    ms_workload_free(e->plan_w);
    ms_online_frag_table_free(e->ft);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->cmu);
    pthread_mutex_destroy(&e->smu);
    pthread_cond_destroy(&e->wake);
    pthread_cond_destroy(&e->changed);
    pthread_cond_destroy(&e->committed);
    free(e);
}

static int open_backends(md_engine *e, ms_error *err)
{
    const md_config *c = e->c;
    if (c->backend == MD_NVML)
        return ei_nvml_open(e, err);
    if (*c->sim_state)
        return ei_sim_state_open(e, err);
    /* Creations and destructions take the model's times, scaled like the jobs. */
    ms_backend_options opt = {.sim_delay_scale = 1.0 / c->time_scale};
    e->ngpus = c->gpus;
    for (int g = 0; g < e->ngpus; g++) {
        int rc = ms_backend_open("sim", g, e->m, &opt, &e->gpu[g].be, err);
        if (rc)
            return rc;
        e->gpu[g].device = g;
        /* A stable made-up UUID in NVIDIA's shape, for the metrics' labels. */
        snprintf(e->gpu[g].uuid, sizeof e->gpu[g].uuid, "GPU-51300000-0000-4000-8000-%012d", g);
        for (int k = 0; k < MS_MAX_SLOTS; k++)
            e->gpu[g].inst[k] = (ei_inst){.profile = -1};
    }
    return MS_OK;
}

/* What the metrics label each GPU with besides its UUID. Only labels depend on it, so a
 * backend that cannot tell is logged and the label left empty. */
static void read_identity(ei_gpu *gp)
{
    char q[MS_ERR_LEN + 64];
    ms_error err = {0};
    unsigned minor;
    gp->minor = -1;
    if (ms_backend_gpu_minor(gp->be, &minor, &err))
        md_log(MD_LOG_WARN, "gpu.identity_unknown", "gpu=%d label=device error=%s", gp->device,
               md_log_quote(err.msg, q, sizeof q));
    else
        gp->minor = (int)minor;
    if (ms_backend_gpu_pci_bus_id(gp->be, gp->pci_bus_id, &err)) {
        *gp->pci_bus_id = '\0';
        md_log(MD_LOG_WARN, "gpu.identity_unknown", "gpu=%d label=pci_bus_id error=%s", gp->device,
               md_log_quote(err.msg, q, sizeof q));
    }
    snprintf(gp->model_name, sizeof gp->model_name, "%s", ms_backend_device_name(gp->be));
}

int md_engine_open(const md_config *c, md_store *st, md_engine **out, ms_error *err)
{
    *out = NULL;
    if (!c->has_model) /* migschedd sets the nvml devices' own when the key is absent */
        return ms_error_set(err, MS_EINVAL, "the configuration has no GPU model (gpu)");
    md_engine *e = calloc(1, sizeof *e);
    if (!e)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    e->c = c;
    e->m = &c->model;
    e->stop_grace = c->stop_grace; /* the recovery may stop leftover processes */
    e->st = st;
    e->time_scale = c->time_scale;
    e->tau = c->tau;
    e->queue_limit = c->queue_limit;
    e->user_queue_limit = c->user_queue_limit;
    e->user_queue_bytes = c->user_queue_bytes;
    snprintf(e->access.admin_group, sizeof e->access.admin_group, "%s", c->admin_group);
    snprintf(e->access.slurm_user, sizeof e->access.slurm_user, "%s", c->slurm_user);
    e->on_stop = c->on_stop;
    e->batch_size = c->batch_size;
    e->batch_period = c->batch_period;
    e->batch_concat = c->batch_concat;
    e->pending_tail = &e->pending;
    e->ends = md_backoff_init("job.end_failed", MD_BACKOFF_FIRST, MD_BACKOFF_MAX);
    e->schedule = md_backoff_init("schedule.failed", MD_BACKOFF_FIRST, MD_BACKOFF_MAX);
    e->plan_retry = md_backoff_init("batch.plan_failed", 1, 60);
    e->starts = md_backoff_init("job.start_failed", EI_START_FIRST, EI_START_MAX);
    e->destroys = md_backoff_init("instance.destroy_failed", MD_BACKOFF_FIRST, MD_BACKOFF_MAX);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->cmu, NULL);
    pthread_mutex_init(&e->smu, NULL);
    pthread_cond_init(&e->wake, &ca);
    pthread_cond_init(&e->changed, NULL);
    pthread_cond_init(&e->committed, NULL);
    pthread_condattr_destroy(&ca);
    int rc = MS_OK;
    if (!(e->ft = ms_online_frag_table_new(e->m)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc)
        rc = ei_alloc_load_held(e, err);
    if (!rc)
        rc = open_backends(e, err);
    for (int g = 0; !rc && g < e->ngpus; g++)
        read_identity(&e->gpu[g]);
    pthread_mutex_lock(&e->mu); /* a resumed sim allocation creates its instance */
    if (!rc)
        rc = reconcile_store(e, err);
    pthread_mutex_unlock(&e->mu);
    if (!rc)
        rc = load_jobs(e, err);
    if (!rc)
        rc = ei_alloc_mapping_init(e, err);
    if (!rc && (errno = pthread_create(&e->thread, NULL, loop, e)))
        rc = ms_error_set(err, MS_ENOMEM, "cannot start the scheduling thread: %s",
                          strerror(errno));
    if (rc) {
        free_engine(e);
        return rc;
    }
    e->thread_started = true;
    char qm[sizeof e->m->name + 64];
    md_log(MD_LOG_INFO, "engine.open", "backend=%s gpus=%d model=%s queued=%zu",
           c->backend == MD_SIM ? "sim" : "nvml", e->ngpus, md_log_quote(e->m->name, qm, sizeof qm),
           e->nqueue);
    *out = e;
    return MS_OK;
}

int md_engine_stop(md_engine *e, ms_error *err)
{
    pthread_mutex_lock(&e->mu);
    bool first = !e->stopping;
    if (first)
        e->stop_mono = ms_monotonic_seconds();
    e->stopping = true;
    ei_wake(e);
    pthread_mutex_unlock(&e->mu);
    if (!first || !e->thread_started)
        return MS_OK;
    pthread_join(e->thread, NULL);
    e->thread_started = false;
    int left = 0, held = 0; /* held: allocations' instances, kept for the next start */
    for (int g = 0; g < e->ngpus; g++)
        for (int k = 0; k < e->m->slots; k++) {
            const ei_inst *in = &e->gpu[g].inst[k];
            bool busy = in->profile >= 0 && in->state == EI_BUSY;
            held += busy;
            left += in->profile >= 0 && !busy;
        }
    /* The journal's "finished": nothing of ours is left (else the next start reads it). */
    ei_nvml_close(e, left == 0 && held == 0);
    held -= (int)e->abandoned; /* their instances are busy too */
    md_log(MD_LOG_INFO, "engine.stop",
           "queued=%zu instances_left=%d allocations_held=%d "
           "abandoned=%zu",
           e->nqueue, left, held, e->abandoned);
    if (e->abandoned)
        return ms_error_set(err, MS_EIO,
                            "%zu jobs left running in the store, which failed to "
                            "record their ends: %s (the next start recovers them)",
                            e->abandoned, e->ends.error);
    if (left)
        return ms_error_set(err, MS_EBACKEND,
                            "%d instances could not be destroyed (see the "
                            "log; migsched run --cleanup removes them)",
                            left);
    return MS_OK;
}

void md_engine_close(md_engine *e)
{
    if (!e)
        return;
    if (e->thread_started) { /* closed without a stop: end the thread, leave jobs as they are */
        pthread_mutex_lock(&e->mu);
        e->quit = e->stopping = true;
        ei_wake(e);
        pthread_mutex_unlock(&e->mu);
        pthread_join(e->thread, NULL);
    }
    free_engine(e);
}

void md_engine_access_get(md_engine *e, md_engine_access *out)
{
    pthread_mutex_lock(&e->mu);
    *out = e->access;
    pthread_mutex_unlock(&e->mu);
}

int md_engine_reload(md_engine *e, const md_config *next, ms_error *err)
{
    (void)err;
    pthread_mutex_lock(&e->mu);
    e->time_scale = next->time_scale; /* for holds that start from now on */
    e->stop_grace = next->stop_grace;
    e->tau = next->tau;
    e->queue_limit = next->queue_limit;
    e->user_queue_limit = next->user_queue_limit;
    e->user_queue_bytes = next->user_queue_bytes;
    snprintf(e->access.admin_group, sizeof e->access.admin_group, "%s", next->admin_group);
    snprintf(e->access.slurm_user, sizeof e->access.slurm_user, "%s", next->slurm_user);
    e->on_stop = next->on_stop;
    e->batch_size = next->batch_size; /* from the next batch on */
    e->batch_period = next->batch_period;
    e->batch_concat = next->batch_concat;
    md_log_set_level(next->log_level);
    ei_wake(e);
    pthread_mutex_unlock(&e->mu);
    char ag[160], su[160];
    md_log(MD_LOG_INFO, "engine.reload",
           "time_scale=%g on_stop=%s queue_limit=%d "
           "user_queue_limit=%d user_queue_bytes=%lld admin_group=%s slurm_user=%s",
           next->time_scale, next->on_stop == MD_ON_STOP_WAIT ? "wait" : "requeue",
           next->queue_limit, next->user_queue_limit, next->user_queue_bytes,
           md_log_quote(*next->admin_group ? next->admin_group : "none", ag, sizeof ag),
           md_log_quote(*next->slurm_user ? next->slurm_user : "none", su, sizeof su));
    return MS_OK;
}
