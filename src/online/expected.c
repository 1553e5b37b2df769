/* expected.c: when jobs and slots are expected to be free, from the jobs' known work
 * alone (contention is not foreseen), below placement, queue and migration. */
#include "internal.h"

double msi_expected_end(const msi_sim *s, int j)
{
    const msi_job *jb = &s->job[j];
    if (jb->state == MSI_J_STARTING) {
        const msi_inst *in = &s->gpu[jb->gpu].inst[jb->slot];
        double ready = in->state == MSI_I_READY || in->ready_at < s->now ? s->now : in->ready_at;
        return ready + s->w->jobs[j].work;
    }
    double left = jb->remaining - (s->now - jb->last) * jb->rate;
    return s->now + (left > 0 ? left : 0);
}

/* When the slots `mask` of g are expected to be free: the latest expected end of the jobs
 * holding them, creations in progress, now at least. */
double msi_slots_free_at(const msi_sim *s, int g, uint32_t mask)
{
    const msi_gpu *gp = &s->gpu[g];
    double t = s->now;
    for (int k = 0; k < s->m->slots; k++) {
        const msi_inst *in = &gp->inst[k];
        if (in->profile < 0 || !(ms_gpu_slot_mask(s->m, (ms_placement){in->profile, k}) & mask))
            continue;
        double e = in->job >= 0                  ? msi_expected_end(s, in->job)
                   : in->state == MSI_I_CREATING ? in->ready_at
                                                 : s->now;
        t = e > t ? e : t;
    }
    return t;
}
