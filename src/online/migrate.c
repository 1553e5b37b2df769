/* migrate.c: departure migration (paper 002 IV-D): intra-GPU moves that lower F(g) while
 * g stays Busy, inter-GPU moves onto g from more loaded Busy GPUs once g is Lazy. The
 * replica starts before the original stops: both instances are held until it ends. Under
 * the cost-aware rule a move is made only when its expected gain exceeds its cost
 * (docs/online.md, "Departure migration"). */
#include "internal.h"
#include "migsched/io.h"

#include <stdlib.h>

#define MSI_MAX_MOVES 64 /* per departure; each move strictly improves, this only guards */

static const char *const rule_names[] = {"cost-aware", "always"};

const char *ms_online_migration_rule_name(int rule)
{
    return rule == MS_MIGRATE_COST_AWARE || rule == MS_MIGRATE_ALWAYS ? rule_names[rule] : "?";
}

int ms_online_migration_rule_parse(const char *text)
{
    return ms_name_index(rule_names, MS_MIGRATE_ALWAYS + 1, text);
}

/* A move's expected value, in slice-seconds. */
typedef struct move_value {
    double gain, cost, rate;
} move_value;

/* Usable free capacity of g (free compute slices not lost to fragmentation) when it holds
 * `delta` more slices and its F is f. */
static double usable(const msi_sim *s, int g, int delta, double f)
{
    return (1.0 - f) * (s->S - s->gpu[g].load - delta);
}

/* Slice-weighted work rate of g's running jobs (kappa model) with `dn` more jobs of `dc`
 * more slices running there. */
static double throughput(const msi_sim *s, int g, int dn, int dc)
{
    const msi_gpu *gp = &s->gpu[g];
    int slices = dc, n = gp->nrunning + dn;
    for (int k = 0; k < s->m->slots; k++) {
        int j = gp->inst[k].profile >= 0 ? gp->inst[k].job : -1;
        if (j >= 0 && s->job[j].state == MSI_J_RUNNING && s->job[j].gpu == g && s->job[j].slot == k)
            slices += s->m->profiles[gp->inst[k].profile].slices;
    }
    return n > 0 ? slices / (1.0 + s->c.kappa * (n - 1)) : 0.0;
}

/* Moving running job j to (tg, tstart), leaving F(tg) = f_to (and F(source) = f_from for
 * an inter-GPU move): the gain rate is the usable capacity it frees plus the work rate it
 * adds, earned from the switch (target ready + migration cost) to the job's expected end;
 * the cost is the target's slices held while the replica is prepared. */
static move_value value(const msi_sim *s, int j, int tg, int tstart, double f_to, double f_from)
{
    const msi_job *jb = &s->job[j];
    int g = jb->gpu, p = s->w->jobs[j].profile, c = s->m->profiles[p].slices;
    double rate;
    if (tg == g) {
        rate = usable(s, g, 0, f_to) - usable(s, g, 0, s->gpu[g].frag);
    } else {
        rate = usable(s, tg, c, f_to) - usable(s, tg, 0, s->gpu[tg].frag) +
               usable(s, g, -c, f_from) - usable(s, g, 0, s->gpu[g].frag) +
               throughput(s, tg, 1, c) - throughput(s, tg, 0, 0) + throughput(s, g, -1, -c) -
               throughput(s, g, 0, 0);
    }
    double t_switch = msi_claim_ready(s, tg, tstart, p) + s->c.migration_cost;
    double window = msi_expected_end(s, j) - t_switch;
    return (move_value){
        .gain = window > 0 ? rate * window : 0.0, .cost = c * (t_switch - s->now), .rate = rate};
}

static bool worth_it(const msi_sim *s, const move_value *v)
{
    return s->c.migration_rule == MS_MIGRATE_ALWAYS || v->gain > v->cost;
}

static void start_migration(msi_sim *s, int j, int tg, int tstart, const move_value *v)
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
    r->mig[r->nmig++] = (ms_online_migration){
        s->now, j, g, tg, before, msi_system_frag(s), v->gain, v->cost, v->rate};
}

/* The move of one running job of g to a free placement on g that lowers F(g) most (among
 * those worth their cost). */
static bool best_intra(const msi_sim *s, int g, int *job, int *to, move_value *val)
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
            if (!msi_frag_less(f, best))
                continue;
            move_value v = value(s, j, g, p.start, f, 0);
            if (!worth_it(s, &v))
                continue;
            best = f;
            found = true;
            *job = j;
            *to = p.start;
            *val = v;
        }
    }
    return found;
}

/* The running job of profile p on src with the most work left (it gains most), -1 none. */
static int longest_job(const msi_sim *s, int src, int p)
{
    const msi_gpu *sp = &s->gpu[src];
    double most = -1;
    int best = -1;
    for (int k = 0; k < s->m->slots; k++) {
        int j = sp->inst[k].profile == p ? sp->inst[k].job : -1;
        if (j < 0 || s->job[j].state != MSI_J_RUNNING || s->job[j].tgpu >= 0 ||
            s->job[j].gpu != src || s->job[j].slot != k)
            continue;
        double rem = msi_expected_end(s, j);
        if (rem > most) {
            most = rem;
            best = j;
        }
    }
    return best;
}

/* The job (of the most loaded Busy GPU hosting its profile) whose move to g leaves the
 * lowest F(g), among moves after which g is still less loaded than the source (and that
 * are worth their cost). */
static bool best_inter(const msi_sim *s, int g, int *job, int *to, move_value *val)
{
    const ms_gpu_model *m = s->m;
    double best = 0;
    bool found = false;
    for (int p = 0; p < m->nprofiles; p++) {
        int src = msi_mintree_argmin(&s->source[p]);
        int st = s->cand_start[(size_t)g * m->nprofiles + p];
        int c = m->profiles[p].slices;
        if (src < 0 || st < 0 || msi_mintree_get(&s->place[p], g) == MSI_NONE ||
            s->gpu[src].load - c <= s->gpu[g].load + c)
            continue;
        ms_placement pl = {p, st};
        double f = msi_frag_with(s, g, ms_gpu_slot_mask(m, pl), ms_gpu_slice_mask(m, pl), 0, 0);
        int j = longest_job(s, src, p);
        if (j < 0 || (found && !msi_frag_less(f, best)))
            continue;
        ms_placement from = {p, s->job[j].slot};
        double f_from = msi_frag_with(s, src, 0, 0, ms_gpu_slot_mask(m, from),
                                      ms_gpu_slice_mask(m, from));
        move_value v = value(s, j, g, st, f, f_from);
        if (!worth_it(s, &v))
            continue;
        best = f;
        found = true;
        *job = j;
        *to = st;
        *val = v;
    }
    return found;
}

void msi_on_departure(msi_sim *s, int g)
{
    if (g == s->resv_gpu) /* the reserved GPU takes no replica: it would delay the reservation */
        return;
    bool lazy = msi_lazy(s, g);
    for (int moves = 0; moves < MSI_MAX_MOVES && !s->failed; moves++) {
        int j = -1, to = -1;
        move_value v = {0};
        if (!(lazy ? best_inter(s, g, &j, &to, &v) : best_intra(s, g, &j, &to, &v)))
            return;
        start_migration(s, j, g, to, &v);
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
