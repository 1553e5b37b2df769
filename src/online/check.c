/* check.c: the simulator's invariants, checked after every event in Debug builds or when
 * asked: only allowed placements, no slot used twice, cached masks match the instances,
 * and every job is in exactly one place (not arrived, queued once, on its instance(s), done). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int fail(ms_error *err, const msi_sim *s, const char *what, int a, int b)
{
    return ms_error_set(err, MS_EINVAL, "online simulator invariant violated at t=%.6f: %s "
                        "(%d, %d)", s->now, what, a, b);
}

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
        refs[in->job]++;
    }
    if (used != gp->used || jobslots != gp->jobslots)
        return fail(err, s, "cached slot masks disagree with the instances on GPU", g, 0);
    if (gp->load < 0 || gp->load > s->S)
        return fail(err, s, "load out of range on GPU", g, gp->load);
    return MS_OK;
}

static int check_jobs(const msi_sim *s, const int *refs, ms_error *err)
{
    int queued = 0, done = 0;
    for (int j = 0; j < s->w->n; j++) {
        const msi_job *jb = &s->job[j];
        int want = 0;
        switch (jb->state) {
        case MSI_J_PENDING:
            if (j < s->next_arrival)
                return fail(err, s, "arrived job still pending", j, 0);
            break;
        case MSI_J_QUEUED: queued++; break;
        case MSI_J_STARTING: want = 1; break;
        case MSI_J_RUNNING: want = jb->tgpu >= 0 ? 2 : 1; break;
        case MSI_J_DONE: done++; break;
        }
        if (refs[j] != want)
            return fail(err, s, "job held by the wrong number of instances", j, refs[j]);
        if (jb->state != MSI_J_PENDING && j >= s->next_arrival)
            return fail(err, s, "job handled before its arrival", j, jb->state);
    }
    if (queued != s->queued || done != s->done)
        return fail(err, s, "queued/done counts disagree", queued, done);
    int inqueue = 0;
    for (int p = 0; p < s->m->nprofiles; p++)
        for (int j = s->qhead[p]; j >= 0; j = s->job[j].next) {
            if (s->job[j].state != MSI_J_QUEUED || s->w->jobs[j].profile != p ||
                ++inqueue > queued)
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
    free(refs);
    return rc;
}
