/* queue.c: what happens to jobs that cannot be placed at once: FCFS per profile (a blocked
 * job holds back only its profile), strict FCFS, and FCFS per profile with an aging
 * reservation (beyond paper 002): the oldest queued job, once it has waited reserve_after
 * seconds, reserves the slots of the GPU expected to free them soonest (from the known
 * work of the jobs there), and other jobs may use that GPU only outside those slots and
 * when they are expected to leave before they free. */
#include "internal.h"
#include "migsched/io.h"

static const char *const queue_names[] = {"fcfs-profile", "fcfs", "reserve"};

const char *ms_online_queue_name(int queue)
{
    return queue >= 0 && queue < MS_QUEUE_COUNT ? queue_names[queue] : "?";
}

int ms_online_queue_parse(const char *text)
{
    return ms_name_index(queue_names, MS_QUEUE_COUNT, text);
}

static void enqueue(msi_sim *s, int j)
{
    int p = s->w->jobs[j].profile;
    s->job[j].state = MSI_J_QUEUED;
    s->job[j].next = -1;
    if (s->qtail[p] >= 0)
        s->job[s->qtail[p]].next = j;
    else
        s->qhead[p] = j;
    s->qtail[p] = j;
    s->queued++;
}

static void dequeue_head(msi_sim *s, int p)
{
    int j = s->qhead[p];
    s->qhead[p] = s->job[j].next;
    if (s->qhead[p] < 0)
        s->qtail[p] = -1;
    s->job[j].next = -1;
    s->queued--;
}

/* The oldest head among the profiles not blocked (jobs are indexed in arrival order). */
static int oldest_head(const msi_sim *s, const bool *blocked)
{
    int best = -1;
    for (int p = 0; p < s->m->nprofiles; p++)
        if (!(blocked && blocked[p]) && s->qhead[p] >= 0 &&
            (best < 0 || s->qhead[p] < s->qhead[best]))
            best = p;
    return best;
}

/* The GPU and start whose slots for `profile` are expected to free soonest (first GPU,
 * then lowest start on ties); false when none can ever hold it (a static layout without
 * an instance of the profile). */
static bool soonest_slots(const msi_sim *s, int profile, int *gpu, int *start)
{
    const ms_profile *pr = &s->m->profiles[profile];
    double best = INFINITY;
    for (int g = 0; g < s->G; g++)
        for (int i = 0; i < pr->nstarts; i++) {
            int st = pr->starts[i];
            if (s->static_layout && s->gpu[g].inst[st].profile != profile)
                continue;
            double t = msi_slots_free_at(s, g, ms_gpu_slot_mask(s->m, (ms_placement){profile, st}));
            if (t < best) {
                best = t;
                *gpu = g;
                *start = st;
            }
        }
    return best < INFINITY;
}

/* Drops a reservation whose job has started; makes one for the oldest queued job once it
 * has waited reserve_after seconds. The reserved GPU stays the same until the job starts
 * (anywhere: it is always tried first). */
static void resv_update(msi_sim *s)
{
    if (s->resv_job >= 0 && s->job[s->resv_job].state == MSI_J_QUEUED)
        return;
    s->resv_job = s->resv_gpu = -1;
    s->resv_mask = 0;
    int p = s->c.queue == MS_QUEUE_RESERVE ? oldest_head(s, NULL) : -1;
    if (p < 0 || s->now - s->w->jobs[s->qhead[p]].arrival < s->c.reserve_after)
        return;
    int g = -1, st = -1;
    if (!soonest_slots(s, p, &g, &st))
        return;
    s->resv_job = s->qhead[p];
    s->resv_gpu = g;
    s->resv_mask = ms_gpu_slot_mask(s->m, (ms_placement){p, st});
    s->resv_since = s->claims;
}

/* The policy's placement, or the caller's callback when one is set. */
static bool try_place(msi_sim *s, int j)
{
    return s->c.place ? msi_try_place_custom(s, j) : msi_try_place(s, j);
}

void msi_on_arrival_queue(msi_sim *s, int j)
{
    resv_update(s);
    int p = s->w->jobs[j].profile;
    bool behind = s->c.queue == MS_QUEUE_FCFS ? s->queued > 0 : s->qhead[p] >= 0;
    if (behind || !try_place(s, j)) {
        enqueue(s, j);
        resv_update(s); /* reserve_after 0: it may reserve at once */
    }
}

/* Queued jobs are tried oldest first whenever something is freed. A job that cannot be
 * placed holds back the later jobs of its profile (they need the same room), or every
 * later job under strict FCFS. */
void msi_dispatch_queue(msi_sim *s)
{
    bool blocked[MS_MAX_PROFILES] = {false};
    resv_update(s);
    while (s->queued > 0) {
        int p = oldest_head(s, blocked);
        if (p < 0)
            break;
        if (!try_place(s, s->qhead[p])) {
            if (s->c.queue == MS_QUEUE_FCFS)
                break;
            blocked[p] = true;
            continue;
        }
        dequeue_head(s, p);
        resv_update(s);
    }
}
