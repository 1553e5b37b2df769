/* check.c: the simulator's invariants: only allowed placements, no slot used twice, cached
 * masks match the instances, every job is in exactly one place (not arrived, queued once,
 * on its instance(s), done), and no job has overtaken the reserved one by delaying it.
 * After each event only what it changed is checked (its job, the GPUs it touched and the
 * jobs on them, the queue ends, the reservation); the whole state at the end of a run and
 * every check_full_every events. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int fail(ms_error *err, const msi_sim *s, const char *what, int a, int b)
{
    return ms_error_set(err, MS_EINVAL,
                        "online simulator invariant violated at t=%.6f: %s "
                        "(%d, %d)",
                        s->now, what, a, b);
}

static bool holds(const msi_sim *s, int g, int k, int j)
{
    return g >= 0 && k >= 0 && s->gpu[g].inst[k].profile >= 0 && s->gpu[g].inst[k].job == j;
}

/* Job j from its own side: the instances it names hold it, its queue link is sound. */
static int check_job(const msi_sim *s, int j, ms_error *err)
{
    const msi_job *jb = &s->job[j];
    if ((jb->state != MSI_J_PENDING) != (j < s->next_arrival))
        return fail(err, s, "job handled before its arrival, or arrived and still pending", j,
                    jb->state);
    switch (jb->state) {
    case MSI_J_QUEUED:
        if (jb->next >= 0 ? s->job[jb->next].state != MSI_J_QUEUED || jb->next <= j ||
                                s->w->jobs[jb->next].profile != s->w->jobs[j].profile
                          : s->qtail[s->w->jobs[j].profile] != j)
            return fail(err, s, "queued job badly linked in its profile's queue", j, jb->next);
        break;
    case MSI_J_STARTING:
    case MSI_J_RUNNING:
        if (!holds(s, jb->gpu, jb->slot, j) ||
            (jb->tgpu >= 0 && (jb->state != MSI_J_RUNNING || !holds(s, jb->tgpu, jb->tslot, j))))
            return fail(err, s, "job not on the instance(s) it names", j, jb->gpu);
        break;
    case MSI_J_DONE:
        if (holds(s, jb->gpu, jb->slot, j))
            return fail(err, s, "finished job still holds its instance", j, jb->gpu);
        break;
    }
    return MS_OK;
}

/* One GPU: placements, slots, masks; refs counts the instances holding each job (the whole
 * state), or, when NULL, each job held is checked from its side. */
static int check_gpu(const msi_sim *s, int g, int *refs, ms_error *err)
{
    const ms_gpu_model *m = s->m;
    const msi_gpu *gp = &s->gpu[g];
    uint32_t used = 0, jobslots = 0;
    for (int k = 0; k < m->slots; k++) {
        const msi_inst *in = &gp->inst[k];
        if (in->profile < 0)
            continue;
        ms_placement p = {in->profile, k};
        if (!ms_gpu_placement_allowed(m, p))
            return fail(err, s, "instance at a placement its profile does not allow", g, k);
        uint32_t mask = ms_gpu_slot_mask(m, p);
        if (used & mask)
            return fail(err, s, "two instances share a slot on GPU", g, k);
        used |= mask;
        if (in->job < 0)
            continue;
        const msi_job *jb = &s->job[in->job];
        bool here = jb->gpu == g && jb->slot == k, target = jb->tgpu == g && jb->tslot == k;
        if ((!here && !target) || (jb->state != MSI_J_STARTING && jb->state != MSI_J_RUNNING))
            return fail(err, s, "instance holds a job that is not on it", g, in->job);
        if (in->profile != s->w->jobs[in->job].profile)
            return fail(err, s, "job on an instance of another profile", g, in->job);
        jobslots |= mask;
        if (refs)
            refs[in->job]++;
        else if (check_job(s, in->job, err))
            return MS_EINVAL;
    }
    if (used != gp->used || jobslots != gp->jobslots)
        return fail(err, s, "cached slot masks disagree with the instances on GPU", g, 0);
    if (gp->load < 0 || gp->load > s->S)
        return fail(err, s, "load out of range on GPU", g, gp->load);
    return MS_OK;
}

static int check_queue_ends(const msi_sim *s, ms_error *err)
{
    for (int p = 0; p < s->m->nprofiles; p++) {
        int h = s->qhead[p], t = s->qtail[p];
        if ((h < 0) != (t < 0) ||
            (h >= 0 && (s->job[h].state != MSI_J_QUEUED || s->w->jobs[h].profile != p || h > t ||
                        s->job[t].next >= 0)))
            return fail(err, s, "queue ends disagree with their jobs", p, h);
    }
    if (s->queued < 0 || s->done < 0 || s->queued + s->done > s->next_arrival)
        return fail(err, s, "queued/done counts out of range", s->queued, s->done);
    return MS_OK;
}

/* The reservation: held by the oldest queued job once it waited reserve_after; since it
 * was taken, nothing was given the reserved slots or migrated onto the reserved GPU, and
 * every job admitted there was expected to leave before the reserved slots free. */
static int check_reservation(const msi_sim *s, ms_error *err)
{
    int r = s->resv_job, g = s->resv_gpu;
    if (r < 0)
        return MS_OK;
    int oldest = -1;
    for (int p = 0; p < s->m->nprofiles; p++)
        if (s->qhead[p] >= 0 && (oldest < 0 || s->qhead[p] < oldest))
            oldest = s->qhead[p];
    if (s->c.queue != MS_QUEUE_RESERVE || s->job[r].state != MSI_J_QUEUED || r != oldest ||
        s->now - s->w->jobs[r].arrival < s->c.reserve_after - 1e-9)
        return fail(err, s, "reservation held by a job that is not the oldest waiting one", r,
                    oldest);
    for (int k = 0; k < s->m->slots; k++) {
        const msi_inst *in = &s->gpu[g].inst[k];
        int j = in->profile >= 0 ? in->job : -1;
        if (j < 0 || s->job[j].claim_seq <= s->resv_since)
            continue;
        const msi_job *jb = &s->job[j];
        if (jb->tgpu >= 0 && jb->gpu == g && jb->slot == k)
            continue; /* the source of a migration away: its claim was the target's */
        if (ms_gpu_slot_mask(s->m, (ms_placement){in->profile, k}) & s->resv_mask)
            return fail(err, s, "a job took the reserved slots", j, r);
        if (jb->tgpu == g && jb->tslot == k)
            return fail(err, s, "a job migrates onto the reserved GPU", j, r);
        if (jb->gpu == g && jb->slot == k && !(jb->admit_slack >= -1e-9))
            return fail(err, s, "a job overtook the reserved one and delays its start", j, r);
    }
    return MS_OK;
}

int msi_check_event(const msi_sim *s, int job, ms_error *err)
{
    for (int i = 0; i < s->ndirty; i++)
        if (check_gpu(s, s->dirty[i], NULL, err))
            return MS_EINVAL;
    if (job >= 0 && check_job(s, job, err))
        return MS_EINVAL;
    if (check_queue_ends(s, err) || check_reservation(s, err))
        return MS_EINVAL;
    return MS_OK;
}

static int check_jobs(const msi_sim *s, const int *refs, ms_error *err)
{
    int queued = 0, done = 0;
    for (int j = 0; j < s->w->n; j++) {
        const msi_job *jb = &s->job[j];
        int want = 0;
        switch (jb->state) {
        case MSI_J_QUEUED: queued++; break;
        case MSI_J_STARTING: want = 1; break;
        case MSI_J_RUNNING: want = jb->tgpu >= 0 ? 2 : 1; break;
        case MSI_J_DONE: done++; break;
        }
        if (refs[j] != want)
            return fail(err, s, "job held by the wrong number of instances", j, refs[j]);
        if (check_job(s, j, err))
            return MS_EINVAL;
    }
    if (queued != s->queued || done != s->done)
        return fail(err, s, "queued/done counts disagree", queued, done);
    int inqueue = 0;
    for (int p = 0; p < s->m->nprofiles; p++)
        for (int j = s->qhead[p]; j >= 0; j = s->job[j].next) {
            if (s->job[j].state != MSI_J_QUEUED || s->w->jobs[j].profile != p || ++inqueue > queued)
                return fail(err, s, "queue holds a job twice or in the wrong state", j, p);
        }
    if (inqueue != queued)
        return fail(err, s, "queued job missing from the queue", inqueue, queued);
    return MS_OK;
}

int msi_check(const msi_sim *s, ms_error *err)
{
    int *refs = calloc((size_t)(s->w->n ? s->w->n : 1), sizeof *refs);
    if (!refs)
        return ms_error_set(err, MS_ENOMEM, "out of memory in the invariant check");
    int rc = MS_OK;
    for (int g = 0; g < s->G && !rc; g++)
        rc = check_gpu(s, g, refs, err);
    if (!rc)
        rc = check_jobs(s, refs, err);
    if (!rc)
        rc = check_queue_ends(s, err) || check_reservation(s, err) ? MS_EINVAL : MS_OK;
    free(refs);
    return rc;
}
