/* apply_plan.c: the fewest changes that take one GPU from its instances to a target
 * count per profile: every feasible arrangement of the target is tried (at most 7
 * instances on 8 slots, so brute force is cheap) and the one keeping every busy instance
 * and then the most instances wins. */
#include <string.h>

#include "apply_fit.h"
#include "migsched/exec.h"

typedef struct search {
    const ms_gpu_model *m;
    const ms_mig_instance *cur;
    int ncur;
    const bool *busy;
    int n;                             /* instances to place */
    int profile[MS_MAX_INSTANCES];     /* largest first */
    ms_placement at[MS_MAX_INSTANCES]; /* the arrangement being built */
    bool found;
    int best_busy, best_kept;
    ms_placement best[MS_MAX_INSTANCES];
} search;

/* Only an instance with one compute instance is the MIG device a profile name denotes;
 * one split into several compute instances (or none) is recreated. */
static bool keepable(const ms_mig_instance *in) { return in->profile >= 0 && in->nci == 1; }

static bool holds(const search *s, const ms_mig_instance *in)
{
    for (int k = 0; k < s->n; k++)
        if (s->at[k].profile == in->profile && s->at[k].start == in->start_slot)
            return true;
    return false;
}

static void score(search *s)
{
    int busy = 0, kept = 0;
    for (int i = 0; i < s->ncur; i++)
        if (keepable(&s->cur[i]) && holds(s, &s->cur[i])) {
            kept++;
            busy += s->busy[i];
        }
    if (!s->found || busy > s->best_busy || (busy == s->best_busy && kept > s->best_kept)) {
        s->found = true;
        s->best_busy = busy;
        s->best_kept = kept;
        memcpy(s->best, s->at, sizeof s->best);
    }
}

/* Places instance k and the ones after it; equal profiles take increasing starts so each
 * set of placements is visited once. */
static void place(search *s, int k, uint32_t used)
{
    if (k == s->n) {
        score(s);
        return;
    }
    const ms_profile *pr = &s->m->profiles[s->profile[k]];
    int after = k > 0 && s->profile[k - 1] == s->profile[k] ? s->at[k - 1].start : -1;
    for (int i = 0; i < pr->nstarts; i++) {
        ms_placement p = {s->profile[k], pr->starts[i]};
        uint32_t mask = ms_gpu_slot_mask(s->m, p);
        if (p.start <= after || (mask & used))
            continue;
        s->at[k] = p;
        place(s, k + 1, used | mask);
    }
}

static int misfit(const ms_gpu_model *m, const int count[MS_MAX_PROFILES], ms_error *err)
{
    char why[400];
    exec_apply_explain_misfit(m, count, why, sizeof why);
    return ms_error_set(err, MS_EINFEASIBLE, "the target does not fit on a %s: %s", m->name,
                        why[0] ? why : "no arrangement of its instances at allowed placements");
}

int ms_apply_plan_device(const ms_gpu_model *m, const ms_mig_instance *cur, int ncur,
                         const bool *busy, const int count[MS_MAX_PROFILES], ms_apply_plan *plan,
                         ms_error *err)
{
    memset(plan, 0, sizeof *plan);
    search s = {.m = m, .cur = cur, .ncur = ncur, .busy = busy};
    int slots = 0;
    for (int p = 0; p < m->nprofiles; p++) {
        slots += count[p] * m->profiles[p].size_slots;
        if (count[p] < 0 || slots > m->slots || s.n + count[p] > MS_MAX_INSTANCES)
            return misfit(m, count, err);
        for (int i = 0; i < count[p]; i++)
            s.profile[s.n++] = p;
    }
    /* Largest first: the big ones have few placements and prune the rest early. */
    for (int i = 1; i < s.n; i++)
        for (int j = i; j > 0; j--) {
            const ms_profile *a = &m->profiles[s.profile[j - 1]], *b = &m->profiles[s.profile[j]];
            if (a->size_slots > b->size_slots ||
                (a->size_slots == b->size_slots && s.profile[j - 1] <= s.profile[j]))
                break;
            int t = s.profile[j];
            s.profile[j] = s.profile[j - 1];
            s.profile[j - 1] = t;
        }
    place(&s, 0, 0);
    if (!s.found)
        return misfit(m, count, err);
    memcpy(s.at, s.best, sizeof s.at);
    int nbusy = 0;
    for (int i = 0; i < ncur; i++) {
        bool kept = keepable(&cur[i]) && holds(&s, &cur[i]);
        nbusy += busy[i];
        if (kept)
            plan->keep[plan->nkeep++] = i;
        else if (busy[i])
            plan->blocking |= 1u << i;
        else
            plan->destroy[plan->ndestroy++] = i;
    }
    if (s.best_busy < nbusy)
        return ms_error_set(err, MS_EBUSY, "the target needs the slots of a busy instance");
    for (int k = 0; k < s.n; k++) {
        bool exists = false;
        for (int i = 0; i < plan->nkeep; i++)
            exists |= cur[plan->keep[i]].profile == s.at[k].profile &&
                      cur[plan->keep[i]].start_slot == s.at[k].start;
        if (!exists)
            plan->create[plan->ncreate++] = s.at[k];
    }
    ms_placements_sort(plan->create, plan->ncreate);
    return MS_OK;
}
