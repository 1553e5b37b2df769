/* migrate.c: departure migration (paper 002 IV-D): intra-GPU moves that lower F(g) while
 * g stays Busy, inter-GPU moves onto g from more loaded Busy GPUs once g is Lazy. The
 * replica starts before the original stops: both instances are held until it ends. */
#include "internal.h"

#include <stdlib.h>

#define MSI_MAX_MOVES 64  /* per departure; each move strictly improves, this only guards */

static double job_remaining(const msi_sim *s, int j)
{
    const msi_job *jb = &s->job[j];
    double r = jb->remaining - (s->now - jb->last) * jb->rate;
    return r > 0 ? r : 0;
}

static void start_migration(msi_sim *s, int j, int tg, int tstart)
{
    msi_job *jb = &s->job[j];
    int g = jb->gpu, p = s->w->jobs[j].profile;
    double before = msi_system_frag(s), ready;
    jb->tgpu = tg;
    jb->tslot = (int8_t)tstart;
    jb->mversion++;
    msi_claim(s, tg, tstart, p, j, &ready);
    msi_gpu_changed(s, g);
    if (tg != g)
        msi_gpu_changed(s, tg);
    msi_push(s, (ready > s->now ? ready : s->now) + s->c.migration_cost, MSI_EV_MIG_END, j, 0,
             jb->mversion);
    ms_online_result *r = s->r;
    r->total_migrations++;
    if (tg == g)
        r->intra_migrations++;
    else
        r->inter_migrations++;
    if (!s->c.timeline)
        return;
    if (!msi_reserve(&r->mig, r->nmig, &r->cap_mig, sizeof *r->mig, 64)) {
        s->failed = MS_ENOMEM;
        return;
    }
    r->mig[r->nmig++] = (ms_online_migration){s->now, j, g, tg, before, msi_system_frag(s)};
}

/* The move of one running job of g to a free placement on g that lowers F(g) most. */
static bool best_intra(const msi_sim *s, int g, int *job, int *to)
{
    const ms_gpu_model *m = s->m;
    const msi_gpu *gp = &s->gpu[g];
    double best = gp->frag;
    bool found = false;
    for (int k = 0; k < m->slots; k++) {
        int j = gp->inst[k].profile >= 0 ? gp->inst[k].job : -1;
        if (j < 0 || s->job[j].state != MSI_J_RUNNING || s->job[j].tgpu >= 0 ||
            s->job[j].gpu != g || s->job[j].slot != k)
            continue;
        ms_placement from = {gp->inst[k].profile, k};
        const ms_profile *pr = &m->profiles[from.profile];
        for (int i = 0; i < pr->nstarts; i++) {
            ms_placement p = {from.profile, pr->starts[i]};
            if (!msi_target_ok(s, g, p.profile, p.start))
                continue;
            double f = msi_frag_with(s, g, ms_gpu_slot_mask(m, p), ms_gpu_slice_mask(m, p),
                                     ms_gpu_slot_mask(m, from), ms_gpu_slice_mask(m, from));
            if (msi_frag_less(f, best)) {
                best = f;
                found = true;
                *job = j;
                *to = p.start;
            }
        }
    }
    return found;
}

/* The job (of the most loaded Busy GPU hosting its profile) whose move to g leaves the
 * lowest F(g), among moves after which g is still less loaded than the source. */
static bool best_inter(const msi_sim *s, int g, int *job, int *to)
{
    const ms_gpu_model *m = s->m;
    double best = 0;
    int best_p = -1, best_src = -1;
    for (int p = 0; p < m->nprofiles; p++) {
        int src = msi_mintree_argmin(&s->source[p]);
        int st = s->cand_start[(size_t)g * m->nprofiles + p];
        int c = m->profiles[p].slices;
        if (src < 0 || st < 0 || msi_mintree_get(&s->place[p], g) == MSI_NONE ||
            s->gpu[src].load - c <= s->gpu[g].load + c)
            continue;
        ms_placement pl = {p, st};
        double f = msi_frag_with(s, g, ms_gpu_slot_mask(m, pl), ms_gpu_slice_mask(m, pl), 0, 0);
        if (best_p < 0 || msi_frag_less(f, best)) {
            best = f;
            best_p = p;
            best_src = src;
        }
    }
    if (best_p < 0)
        return false;
    double most = -1;
    const msi_gpu *sp = &s->gpu[best_src];
    for (int k = 0; k < m->slots; k++) {  /* the job with the most work left gains most */
        int j = sp->inst[k].profile == best_p ? sp->inst[k].job : -1;
        if (j < 0 || s->job[j].state != MSI_J_RUNNING || s->job[j].tgpu >= 0 ||
            s->job[j].gpu != best_src || s->job[j].slot != k)
            continue;
        double rem = job_remaining(s, j);
        if (rem > most) {
            most = rem;
            *job = j;
        }
    }
    *to = s->cand_start[(size_t)g * m->nprofiles + best_p];
    return most >= 0;
}

void msi_on_departure(msi_sim *s, int g)
{
    bool lazy = msi_lazy(s, g);
    for (int moves = 0; moves < MSI_MAX_MOVES && !s->failed; moves++) {
        int j = -1, to = -1;
        if (!(lazy ? best_inter(s, g, &j, &to) : best_intra(s, g, &j, &to)))
            return;
        start_migration(s, j, g, to);
    }
}

void msi_migration_end(msi_sim *s, int j)
{
    msi_job *jb = &s->job[j];
    int g = jb->gpu, tg = jb->tgpu;
    jb->remaining -= (s->now - jb->last) * jb->rate;
    if (jb->remaining < 0)
        jb->remaining = 0;
    jb->last = s->now;
    s->gpu[g].inst[jb->slot].job = -1;
    jb->gpu = tg;
    jb->slot = jb->tslot;
    jb->tgpu = -1;
    jb->tslot = -1;
    s->r->migrations[j]++;
    msi_gpu_changed(s, g);
    msi_rerate(s, g);
    if (tg != g) {
        msi_gpu_changed(s, tg);
        msi_rerate(s, tg);
    }
}
