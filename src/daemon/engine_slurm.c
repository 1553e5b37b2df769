/* engine_slurm.c: the node as Slurm should see it (engine.h, "Slurm's view of the node"):
 * the count-only slices that keep its admission truthful, the placements whose jobs'
 * AdminComment is still to be set (their jobs wait for it), and the sizes Slurm's pending
 * jobs ask. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "placement.h"

int md_engine_slurm_take(md_engine *e, md_engine_slurm_view *out, ms_error *err)
{
    (void)err;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&e->mu);
    ei_settle(e);
    ms_online_rule rule = {.frag = true, .balance = true, .dynamic = true, .tau = e->tau};
    ms_online_gpu_view views[MD_MAX_DEVICES];
    for (int g = 0; g < e->ngpus; g++)
        ei_view(e, g, &views[g]);
    /* Slurm counts its running jobs' slices as used: theirs, plus what one more could get. */
    long held = 0;
    for (size_t i = 0; i < e->nrun; i++)
        if (ei_is_alloc(&e->run[i].job))
            held += e->m->profiles[e->gpu[e->run[i].gpu].inst[e->run[i].slot].profile].slices;
    out->node_slices = md_slurm_count(e->m, held,
                                      md_largest_placeable(e->m, &rule, views, e->ngpus));
    out->placed = e->placed;
    out->nplaced = e->nplaced;
    e->placed = NULL;
    e->nplaced = e->capplaced = 0;
    pthread_mutex_unlock(&e->mu);
    return MS_OK;
}

void md_engine_slurm_pending(md_engine *e, const long *slices, size_t n)
{
    int by_profile[MS_MAX_PROFILES] = {0};
    for (size_t i = 0; i < n; i++) {
        int p = slices[i] > 0 && slices[i] <= MS_MAX_SLICES
                    ? md_profile_for_slices(e->m, (int)slices[i])
                    : -1;
        if (p >= 0)
            by_profile[p]++;
    }
    pthread_mutex_lock(&e->mu);
    memcpy(e->slurm_pending, by_profile, sizeof by_profile);
    pthread_mutex_unlock(&e->mu);
}

bool md_engine_slurm_commented(md_engine *e, int64_t slurm_job)
{
    bool running = false;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < e->nrun; i++)
        if (e->run[i].job.spec.slurm_job_id == slurm_job && !e->run[i].release) {
            e->run[i].comment_due = 0;
            running = true;
        }
    pthread_mutex_unlock(&e->mu);
    return running;
}

void md_engine_slurm_hook(md_engine *e, void (*fn)(void *ctx), void *ctx, bool comments)
{
    pthread_mutex_lock(&e->mu);
    e->slurm_hook = fn;
    e->slurm_hook_ctx = ctx;
    bool start = fn && comments && !e->slurm_comments;
    e->slurm_comments = fn && comments;
    /* The allocations already running (recovered at open, placed before a crash took
     * their comment with it) are told again: the comment is only ever the same. */
    for (size_t i = 0; start && i < e->nrun; i++)
        if (ei_is_alloc(&e->run[i].job) && !e->run[i].release)
            ei_placed_for_slurm(e, &e->run[i]);
    if (start && e->nplaced)
        ei_slurm_changed(e);
    pthread_mutex_unlock(&e->mu);
}
