/* engine_online.c: online mode's placement: each GPU seen as paper 002's policy
 * (src/online/policy.c) sees it, and the FCFS queue placed on them (engine_gpu.c makes
 * the instances), keeping room for the sizes the queue and Slurm's pending jobs ask
 * (placement.h). */
#include <string.h>

#include "engine_internal.h"
#include "migsched/online.h"
#include "placement.h"

void ei_view(const md_engine *e, int g, ms_online_gpu_view *v)
{
    const ms_gpu_model *m = e->m;
    memset(v, 0, sizeof *v);
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        v->idle[k] = -1;
    /* Foreign instances: their slots are never ours to use or to count free. */
    v->job_slots = v->locked_slots = v->frag_slots = e->gpu[g].foreign_slots;
    v->frag_slices = e->gpu[g].foreign_slices;
    for (int k = 0; k < m->slots; k++) {
        const ei_inst *in = &e->gpu[g].inst[k];
        if (in->profile < 0)
            continue;
        ms_placement p = {in->profile, k};
        uint32_t mask = ms_gpu_slot_mask(m, p);
        if (in->state == EI_IDLE) {
            v->idle[k] = (int8_t)in->profile;
            continue;
        }
        v->locked_slots |= mask;
        if (in->job) { /* holding a job, or being created for one */
            v->job_slots |= mask;
            v->frag_slots |= mask;
            v->frag_slices |= ms_gpu_slice_mask(m, p);
            v->load += m->profiles[in->profile].slices;
        }
    }
}

bool ei_place(const md_engine *e, int profile, const int *demand, int *g, int *start)
{
    ms_online_rule rule = {.frag = true, .balance = true, .dynamic = true, .tau = e->tau};
    ms_online_gpu_view views[MD_MAX_DEVICES];
    for (int k = 0; k < e->ngpus; k++)
        ei_view(e, k, &views[k]);
    return md_place_for_demand(e->m, &rule, e->ft, views, e->ngpus, profile, demand, g, start);
}

int ei_place_queued(md_engine *e, ms_error *err)
{
    bool blocked[MS_MAX_PROFILES] = {false};
    int rc = MS_OK;
    double now = ms_monotonic_seconds();
    /* What waits: Slurm's pending jobs and this queue, by profile. */
    int demand[MS_MAX_PROFILES];
    memcpy(demand, e->slurm_pending, sizeof demand);
    for (size_t i = 0; i < e->nqueue; i++) {
        int profile;
        double seconds;
        ei_job_size(e->m, &e->queue[i]->spec, &profile, &seconds);
        demand[profile]++;
    }
    for (size_t i = 0; i < e->nqueue && !e->stopping;) {
        int profile, g, st;
        double seconds;
        md_job *q = e->queue[i];
        ei_job_size(e->m, &q->spec, &profile, &seconds);
        /* FCFS per profile: a job that cannot be placed holds back the later jobs of its
         * profile (they need the same room) but not the others; one waiting out its
         * backoff after a node failure holds back none. */
        if (blocked[profile] || q->not_before > now) {
            i++;
            continue;
        }
        demand[profile]--; /* its own room is not one to keep */
        if (!ei_place(e, profile, demand, &g, &st)) {
            demand[profile]++;
            blocked[profile] = true;
            if (ei_is_alloc(q) && !q->found_no_room) {
                q->found_no_room = true;
                e->alloc_blocked_total++;
            }
            i++;
            continue;
        }
        int64_t id = e->queue[i]->id;
        if ((rc = ei_start(e, i, g, (ms_placement){profile, st}, err)))
            break; /* queue[i] is still queued; the loop tries again later */
        /* It stays queued until the flush; submissions may have come before it meanwhile. */
        size_t at = ei_queued_at(e, id);
        i = at < e->nqueue ? at + 1 : i;
    }
    /* Every start of the pass in one transaction. */
    ms_error ferr = {0};
    int frc = ei_start_flush(e, &ferr);
    if (!rc && frc)
        *err = ferr;
    return rc ? rc : frc;
}
