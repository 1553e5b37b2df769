/* place.c: arrival placement (paper 002 IV-C and the first-fit baselines): per-GPU
 * candidate placements, the trees that pick a GPU (kept up to date whenever a GPU
 * changes), instance claiming and the aging reservation's admission of other jobs (the
 * queue is queue.c). */
#include "internal.h"

static uint32_t bits(int n) { return (1u << n) - 1u; }

bool msi_lazy(const msi_sim *s, int g) { return s->gpu[g].load < s->c.tau * s->S; }

double msi_frag_with(const msi_sim *s, int g, uint32_t add_slots, uint32_t add_slices,
                     uint32_t drop_slots, uint32_t drop_slices)
{
    const msi_gpu *gp = &s->gpu[g];
    uint32_t slots = ((gp->keepslots & ~drop_slots) | add_slots) & bits(s->m->slots);
    uint32_t slices = ((gp->keepslices & ~drop_slices) | add_slices) & bits(s->S);
    return ms_online_frag_lookup(s->ft, s->m, slots, slices);
}

static bool reusable(const msi_gpu *gp, int profile, int start)
{
    return gp->inst[start].profile == profile && gp->inst[start].job < 0;
}

/* The simulator's state of g as the shared decision (policy.c) sees it. */
static void view(const msi_sim *s, int g, ms_online_gpu_view *v, ms_online_rule *r)
{
    const msi_gpu *gp = &s->gpu[g];
    *v = (ms_online_gpu_view){.job_slots = gp->jobslots,
                              .frag_slots = gp->keepslots,
                              .frag_slices = gp->keepslices,
                              .locked_slots = gp->lock,
                              .load = gp->load};
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        v->idle[k] = (int8_t)(k < s->m->slots && reusable(gp, gp->inst[k].profile, k)
                                  ? gp->inst[k].profile
                                  : -1);
    int fit = s->c.policy == MS_POLICY_OWP            ? MS_FIT_BEST
              : s->c.policy == MS_POLICY_ELASTICBATCH ? MS_FIT_WORST
                                                      : MS_FIT_FIRST;
    *r = (ms_online_rule){.frag = s->c.policy == MS_POLICY_FRAG,
                          .fit = fit,
                          .balance = s->c.balance,
                          .dynamic = !s->static_layout,
                          .tau = s->c.tau};
}

void msi_view(const msi_sim *s, int g, ms_online_gpu_view *v, ms_online_rule *r)
{
    view(s, g, v, r);
}

bool msi_target_ok(const msi_sim *s, int g, int profile, int start)
{
    ms_online_gpu_view v;
    ms_online_rule r;
    view(s, g, &v, &r);
    return ms_online_can_take(s->m, &r, &v, profile, start);
}

static bool migratable_here(const msi_sim *s, int g, int slot, int profile)
{
    int j = s->gpu[g].inst[slot].job;
    if (j < 0 || s->gpu[g].inst[slot].profile != profile)
        return false;
    const msi_job *jb = &s->job[j];
    return jb->state == MSI_J_RUNNING && jb->gpu == g && jb->slot == slot && jb->tgpu < 0;
}

void msi_update_keys(msi_sim *s, int g)
{
    int np = s->m->nprofiles;
    ms_online_gpu_view v;
    ms_online_rule r;
    view(s, g, &v, &r);
    for (int p = 0; p < np; p++) {
        int st = -1;
        uint64_t key = ms_online_place_key(s->m, &r, s->ft, &v, p, &st);
        s->cand_start[(size_t)g * np + p] = (int8_t)st;
        msi_mintree_set(&s->place[p], g, key);
        if (!s->c.migration)
            continue;
        uint64_t src = MSI_NONE;
        if (!msi_lazy(s, g))
            for (int k = 0; k < s->m->slots && src == MSI_NONE; k++)
                if (migratable_here(s, g, k, p))
                    src = (uint64_t)(s->S - s->gpu[g].load);
        msi_mintree_set(&s->source[p], g, src);
    }
}

void msi_gpu_changed(msi_sim *s, int g)
{
    msi_gpu *gp = &s->gpu[g];
    if (!s->is_dirty[g]) { /* for the incremental check */
        s->is_dirty[g] = 1;
        s->dirty[s->ndirty++] = g;
    }
    s->instances -= gp->ninst;
    s->busy -= gp->nbusy;
    s->frag_sum -= llround(gp->frag * 1e12);
    msi_recount(s, g);
    gp->frag = msi_frag_with(s, g, 0, 0, 0, 0);
    s->instances += gp->ninst;
    s->busy += gp->nbusy;
    s->frag_sum += llround(gp->frag * 1e12);
    msi_update_keys(s, g);
}

/* Instance o (starting at slot k) overlaps `mask`: it is in the way of a new instance there. */
static bool in_the_way(const ms_gpu_model *m, const msi_inst *o, int k, uint32_t mask)
{
    return o->profile >= 0 && (ms_gpu_slot_mask(m, (ms_placement){o->profile, k}) & mask);
}

double msi_claim_ready(const msi_sim *s, int g, int start, int profile)
{
    const msi_gpu *gp = &s->gpu[g];
    if (reusable(gp, profile, start))
        return gp->inst[start].state == MSI_I_READY ? s->now : gp->inst[start].ready_at;
    const ms_gpu_model *m = s->m;
    uint32_t mask = ms_gpu_slot_mask(m, (ms_placement){profile, start});
    double t = s->now > gp->reconf_free ? s->now : gp->reconf_free;
    for (int k = 0; k < m->slots; k++)
        if (in_the_way(m, &gp->inst[k], k, mask))
            t += ms_gpu_destroy_time(m, m->profiles[gp->inst[k].profile].slices);
    return t + ms_gpu_create_time(m, m->profiles[profile].slices);
}

/* Gives (g, start) to job j, creating the instance when it is not there (destroying the
 * idle instances in its way first); *ready is when the instance can run the job. */
void msi_claim(msi_sim *s, int g, int start, int profile, int j, double *ready)
{
    msi_gpu *gp = &s->gpu[g];
    msi_inst *in = &gp->inst[start];
    *ready = msi_claim_ready(s, g, start, profile);
    s->job[j].claim_seq = ++s->claims;
    if (reusable(gp, profile, start)) {
        in->job = j;
        return;
    }
    const ms_gpu_model *m = s->m;
    uint32_t mask = ms_gpu_slot_mask(m, (ms_placement){profile, start});
    for (int k = 0; k < m->slots; k++) {
        msi_inst *o = &gp->inst[k];
        if (!in_the_way(m, o, k, mask))
            continue;
        o->profile = -1;
        o->state = MSI_I_NONE;
        s->r->destructions++;
    }
    gp->reconf_free = *ready;
    *in = (msi_inst){(int8_t)profile, MSI_I_CREATING, j, *ready};
    s->r->creations++;
    msi_push(s, *ready, MSI_EV_RECONF_END, g, start, 0);
}

bool msi_resv_admit(msi_sim *s, int j, int g, int start)
{
    int p = s->w->jobs[j].profile;
    double slack = msi_slots_free_at(s, g, s->resv_mask) -
                   (msi_claim_ready(s, g, start, p) + s->w->jobs[j].work);
    if (slack < -1e-9)
        return false;
    s->job[j].admit_slack = slack;
    return true;
}

/* The best start of `profile` on g outside the slots `avoid`, -1 when none fits. */
static int start_outside(const msi_sim *s, int g, int profile, uint32_t avoid)
{
    ms_online_gpu_view v;
    ms_online_rule r;
    view(s, g, &v, &r);
    v.job_slots |= avoid;
    int st = -1;
    return ms_online_place_key(s->m, &r, s->ft, &v, profile, &st) == MS_ONLINE_NO_FIT ? -1 : st;
}

static void place_at(msi_sim *s, int j, int g, int start)
{
    int p = s->w->jobs[j].profile;
    msi_job *jb = &s->job[j];
    jb->state = MSI_J_STARTING;
    jb->placed = s->now;
    jb->gpu = g;
    jb->slot = (int8_t)start;
    double ready;
    msi_claim(s, g, start, p, j, &ready);
    msi_gpu_changed(s, g);
    if (s->gpu[g].inst[start].state == MSI_I_READY)
        msi_push(s, s->now, MSI_EV_START, j, 0, 0);
}

void msi_place_at(msi_sim *s, int j, int g, int start) { place_at(s, j, g, start); }

bool msi_try_place(msi_sim *s, int j)
{
    int p = s->w->jobs[j].profile;
    int g = msi_mintree_argmin(&s->place[p]);
    if (g < 0)
        return false;
    int start = s->cand_start[(size_t)g * s->m->nprofiles + p];
    if (g == s->resv_gpu && j != s->resv_job &&
        ((start = start_outside(s, g, p, s->resv_mask)) < 0 || !msi_resv_admit(s, j, g, start))) {
        /* the reserved GPU cannot take it: the next best GPU, with the reserved one hidden */
        uint64_t key = msi_mintree_get(&s->place[p], g);
        msi_mintree_set(&s->place[p], g, MSI_NONE);
        int other = msi_mintree_argmin(&s->place[p]);
        msi_mintree_set(&s->place[p], g, key);
        if (other < 0)
            return false;
        g = other;
        start = s->cand_start[(size_t)g * s->m->nprofiles + p];
    }
    place_at(s, j, g, start);
    return true;
}
