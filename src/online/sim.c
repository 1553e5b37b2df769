/* sim.c: the discrete-event simulator's loop on top of the other files: job arrival,
 * start and finish, instances becoming ready, the timeline, the event loop with its
 * optional invariant check, and the state's set-up and release. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void job_begin(msi_sim *s, int j)
{
    msi_job *jb = &s->job[j];
    jb->state = MSI_J_RUNNING;
    jb->remaining = s->w->jobs[j].work;
    jb->last = s->now;
    jb->rate = 1.0;
    s->r->start[j] = s->now;
    msi_gpu_changed(s, jb->gpu);
    msi_rerate(s, jb->gpu);
}

static void on_arrival(msi_sim *s, int j)
{
    s->in_node[s->w->jobs[j].profile]++;
    s->next_arrival++;
    if (!s->fed && s->next_arrival < s->w->n)
        msi_push(s, s->w->jobs[s->next_arrival].arrival, MSI_EV_ARRIVAL, s->next_arrival, 0, 0);
    msi_on_arrival_queue(s, j);
}

static void on_reconf_end(msi_sim *s, int g, int k)
{
    msi_inst *in = &s->gpu[g].inst[k];
    in->state = MSI_I_READY;
    int j = in->job;
    if (j >= 0 && s->job[j].state == MSI_J_STARTING && s->job[j].gpu == g && s->job[j].slot == k)
        msi_push(s, s->now, MSI_EV_START, j, 0, 0);
    msi_gpu_changed(s, g);
}

static void on_finish(msi_sim *s, int j)
{
    msi_job *jb = &s->job[j];
    int g = jb->gpu, tg = jb->tgpu;
    jb->state = MSI_J_DONE;
    s->in_node[s->w->jobs[j].profile]--;
    s->r->end[j] = s->now;
    s->r->gpu[j] = g;
    s->gpu[g].inst[jb->slot].job = -1;
    if (tg >= 0) { /* finished before its migration did: call the migration off */
        s->gpu[tg].inst[jb->tslot].job = -1;
        jb->tgpu = -1;
        jb->mversion++;
        if (tg != g)
            msi_gpu_changed(s, tg);
    }
    msi_gpu_changed(s, g);
    msi_rerate(s, g);
    s->done++;
    if (s->queued)
        msi_dispatch_queue(s);
    if (s->c.migration)
        msi_on_departure(s, g);
}

static void sample(msi_sim *s)
{
    ms_online_result *r = s->r;
    ms_online_sample v = {.t = s->now,
                          .frag = msi_system_frag(s),
                          .instances = s->instances,
                          .busy = s->busy,
                          .queued = s->queued};
    memcpy(v.desired, s->in_node, sizeof v.desired);
    for (int g = 0; g < s->G; g++) /* a scan per event, paid only for a timeline */
        for (int k = 0; k < s->m->slots; k++)
            if (s->gpu[g].inst[k].profile >= 0)
                v.actual[s->gpu[g].inst[k].profile]++;
    if (r->nsamples > 0 && r->samples[r->nsamples - 1].t == s->now) {
        r->samples[r->nsamples - 1] = v;
        return;
    }
    if (!msi_reserve(&r->samples, r->nsamples, &r->cap_samples, sizeof *r->samples, 1024)) {
        s->failed = MS_ENOMEM;
        return;
    }
    r->samples[r->nsamples++] = v;
}

/* Runs one event; returns false for a stale one (a superseded finish or migration end). */
static bool handle(msi_sim *s, const msi_event *e)
{
    switch (e->kind) {
    case MSI_EV_ARRIVAL: on_arrival(s, e->id); break;
    case MSI_EV_START: job_begin(s, e->id); break;
    case MSI_EV_RECONF_END: on_reconf_end(s, e->id, e->slot); break;
    case MSI_EV_FINISH:
        if (s->job[e->id].state != MSI_J_RUNNING || s->job[e->id].version != e->version)
            return false;
        on_finish(s, e->id);
        break;
    case MSI_EV_MIG_END:
        if (s->job[e->id].tgpu < 0 || s->job[e->id].mversion != e->version)
            return false;
        msi_migration_end(s, e->id);
        break;
    }
    /* a ready instance nobody waits for, or a migration's source, may serve a queued job */
    if (s->queued && (e->kind == MSI_EV_RECONF_END || e->kind == MSI_EV_MIG_END))
        msi_dispatch_queue(s);
    return true;
}

/* The invariants after an event: what it changed, and every `every` events the whole
 * state; the dirty list restarts. */
static int check_event(msi_sim *s, int job, long every, ms_error *err)
{
    int rc = msi_check_event(s, job, err);
    if (!rc && every > 0 && s->r->events % every == 0)
        rc = msi_check(s, err);
    for (int i = 0; i < s->ndirty; i++)
        s->is_dirty[s->dirty[i]] = 0;
    s->ndirty = 0;
    return rc;
}

/* The time-weighted fragmentation up to t, which becomes now. */
static void advance(msi_sim *s, double t)
{
    s->frag_area += msi_system_frag(s) * (t - s->last_t);
    s->now = s->last_t = t;
}

/* What follows every event that ran: its count, the check, the timeline. */
static int after_event(msi_sim *s, int job, ms_error *err)
{
    s->r->events++;
    if (s->checking && check_event(s, job, s->check_every, err))
        return err ? err->code : MS_EINVAL;
    if (s->c.timeline)
        sample(s);
    return MS_OK;
}

int msi_sim_step(msi_sim *s, int *finished, ms_error *err)
{
    msi_event e = msi_pop(s);
    advance(s, e.t);
    *finished = -1;
    if (!handle(s, &e))
        return MS_OK;
    if (e.kind == MSI_EV_FINISH)
        *finished = e.id;
    return after_event(s, e.kind == MSI_EV_RECONF_END ? -1 : e.id, err);
}

/* Room for job j in the state and the result of a fed simulator. */
static bool grow_jobs(msi_sim *s, int j)
{
    if (j < s->cap_jobs)
        return true;
    ms_online_result *r = s->r;
    int cap = s->cap_jobs ? 2 * s->cap_jobs : 16;
    msi_job *job = realloc(s->job, (size_t)cap * sizeof *job);
    if (job)
        s->job = job;
    double *start = realloc(r->start, (size_t)cap * sizeof *start);
    if (start)
        r->start = start;
    double *end = realloc(r->end, (size_t)cap * sizeof *end);
    if (end)
        r->end = end;
    int *gpu = realloc(r->gpu, (size_t)cap * sizeof *gpu);
    if (gpu)
        r->gpu = gpu;
    int *mig = realloc(r->migrations, (size_t)cap * sizeof *mig);
    if (mig)
        r->migrations = mig;
    if (!job || !start || !end || !gpu || !mig)
        return false;
    s->cap_jobs = cap;
    return true;
}

static msi_job fresh_job(void)
{
    return (msi_job){
        .gpu = -1, .tgpu = -1, .slot = -1, .tslot = -1, .next = -1, .admit_slack = -INFINITY};
}

/* What stopped the run: an allocation, or the placement callback (its message). */
static int failure(const msi_sim *s, ms_error *err)
{
    if (s->failed == MS_ENOMEM)
        return ms_error_set(err, MS_ENOMEM, "out of memory in the online simulator");
    if (err)
        *err = s->custom->err;
    return s->failed;
}

int msi_sim_admit(msi_sim *s, int j, double t, ms_error *err)
{
    if (!grow_jobs(s, j))
        return ms_error_set(err, MS_ENOMEM, "out of memory in the online simulator");
    s->job[j] = fresh_job();
    s->r->start[j] = s->r->end[j] = 0;
    s->r->gpu[j] = s->r->migrations[j] = 0;
    s->r->n = j + 1;
    if (j == 0)
        s->last_t = t;
    advance(s, t);
    on_arrival(s, j);
    int rc = after_event(s, j, err);
    return !rc && s->failed ? failure(s, err) : rc;
}

int msi_sim_finish(msi_sim *s, ms_error *err)
{
    if (s->failed)
        return failure(s, err);
    if (s->done < s->w->n)
        return ms_error_set(err, MS_EINFEASIBLE,
                            "%d of %d jobs could never start (no GPU can ever hold their "
                            "profile, e.g. a static layout without it)",
                            s->w->n - s->done, s->w->n);
    return s->checking ? msi_check(s, err) : MS_OK;
}

static int run_loop(msi_sim *s, ms_error *err)
{
    if (s->w->n > 0)
        msi_push(s, s->w->jobs[0].arrival, MSI_EV_ARRIVAL, 0, 0, 0);
    s->last_t = s->w->n > 0 ? s->w->jobs[0].arrival : 0.0;
    while (s->nheap > 0 && !s->failed) {
        int finished;
        int rc = msi_sim_step(s, &finished, err);
        if (rc)
            return rc;
    }
    return msi_sim_finish(s, err);
}

void msi_sim_free(msi_sim *s)
{
    for (int p = 0; p < MS_MAX_PROFILES; p++) {
        msi_mintree_free(&s->place[p]);
        msi_mintree_free(&s->source[p]);
    }
    free(s->gpu);
    free(s->job);
    free(s->cand_start);
    free(s->heap);
    if (s->own_ft)
        free(s->ft);
    free(s->dirty);
    free(s->is_dirty);
    free(s->custom);
}

int msi_sim_init(msi_sim *s, const ms_gpu_model *m, const ms_online_workload *w,
                 const ms_online_config *c, const ms_partition *layout, bool fed,
                 msi_frag_table *shared_ft, ms_online_result *r)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->w = w;
    s->c = *c;
    s->r = r;
    s->G = c->gpus;
    s->S = m->slices;
    s->static_layout = layout != NULL;
    s->fed = fed;
    s->cap_jobs = fed ? 0 : w->n;
#ifdef MIGSCHED_DEBUG_CHECKS
    s->checking = true;
    s->check_every = c->check_full_every > 0 && c->check_full_every < 1024 ? c->check_full_every
                                                                           : 1024;
#else
    s->checking = c->check;
    s->check_every = c->check_full_every;
#endif
    s->gpu = calloc((size_t)s->G, sizeof *s->gpu);
    s->job = fed ? NULL : malloc((size_t)(w->n ? w->n : 1) * sizeof *s->job);
    s->cand_start = malloc((size_t)s->G * m->nprofiles);
    s->own_ft = !shared_ft;
    s->ft = shared_ft ? shared_ft : malloc(sizeof *s->ft);
    s->dirty = malloc((size_t)s->G * sizeof *s->dirty);
    s->is_dirty = calloc((size_t)s->G, 1);
    s->custom = c->place ? malloc(sizeof *s->custom + (size_t)s->G * sizeof *s->custom->views)
                         : NULL;
    s->resv_job = s->resv_gpu = -1;
    if (!s->gpu || (!fed && !s->job) || !s->cand_start || !s->ft || !s->dirty || !s->is_dirty ||
        (c->place && !s->custom))
        return MS_ENOMEM;
    for (int p = 0; p < m->nprofiles; p++)
        if (msi_mintree_init(&s->place[p], s->G) || msi_mintree_init(&s->source[p], s->G))
            return MS_ENOMEM;
    if (s->own_ft)
        msi_frag_table_init(s->ft, m);
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        s->qhead[p] = s->qtail[p] = -1;
    for (int j = 0; !fed && j < w->n; j++)
        s->job[j] = fresh_job();
    for (int g = 0; g < s->G; g++) {
        for (int k = 0; k < MS_MAX_SLOTS; k++)
            s->gpu[g].inst[k] = (msi_inst){-1, MSI_I_NONE, -1, 0.0};
        for (int i = 0; layout && i < layout[g].n; i++) /* present before the run starts */
            s->gpu[g].inst[layout[g].inst[i].start] = (msi_inst){(int8_t)layout[g].inst[i].profile,
                                                                 MSI_I_READY, -1, 0.0};
        msi_gpu_changed(s, g);
    }
    return MS_OK;
}

int msi_run(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_config *c,
            const ms_partition *layout, ms_online_result *r, ms_error *err)
{
    msi_sim s;
    int rc = msi_sim_init(&s, m, w, c, layout, false, NULL, r);
    if (rc)
        ms_error_set(err, rc, "out of memory setting up the online simulator");
    else
        rc = run_loop(&s, err);
    if (!rc)
        r->mean_frag = s.now > (w->n ? w->jobs[0].arrival : 0.0)
                           ? s.frag_area / (s.now - w->jobs[0].arrival)
                           : msi_system_frag(&s);
    msi_sim_free(&s);
    return rc;
}
