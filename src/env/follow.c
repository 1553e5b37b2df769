/* follow.c: a single-GPU plan of the episode's workload (e.g. FAR's) as the environment's
 * actions, for demonstrations (ours). The plan is cut into phases, the sets of instances
 * it holds between reconfigurations. The follower starts each phase's tasks in the plan's
 * order on free instances of their size, advances while none can start, and once a phase's
 * tasks have all started reconfigures for the next: to the configuration that holds the
 * next phase's instance sizes (a larger instance standing in for one the canonical set
 * dropped, e.g. a 3g on slots 0-3) and can be reached soonest from the environment's
 * partition, which need not place instances where the plan did. The environment keeps its
 * own clock and a class of equal discretised times stands for each task, so the episode's
 * makespan is near the plan's, not always equal to it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env_internal.h"

_Static_assert(MS_FOLLOW_MAX_TASKS == ENV_MAX_N, "a follower holds a whole batch");

int ms_env_follow_start(ms_env_follow *f, const ms_env *e, const ms_schedule *s, ms_error *err)
{
    memset(f, 0, sizeof *f);
    const ms_workload *w = e->w;
    if (!w || e->done || e->part >= 0 || e->nsteps)
        return ms_error_set(err, MS_EINVAL, "follow: the episode must be at its start, on an "
                                            "empty GPU");
    if (e->cfg.online || w->n > e->cfg.n_batch)
        return ms_error_set(err, MS_EINVAL, "follow: only an offline episode of one batch");
    if (s->gpus != 1 || s->ntasks != w->n || s->ninst > MS_FOLLOW_MAX_INST ||
        strcmp(s->gpu.name, e->gpu.name))
        return ms_error_set(err, MS_EINVAL, "follow: the plan is not one of this episode's %d "
                                            "tasks on one %s", w->n, e->gpu.name);
    /* Phases: the instances alive after each run of creations that a destruction (or the
     * plan's end) closes; a phase opens with the first operation after the last closed. */
    int op[2 * MS_FOLLOW_MAX_INST], nops = ms_schedule_ops(s, 0, op);
    bool alive[MS_FOLLOW_MAX_INST] = {false}, created = false, opened = false;
    double open = 0, open_at[MS_FOLLOW_MAX_PHASES];
    bool member[MS_FOLLOW_MAX_PHASES][MS_FOLLOW_MAX_INST];
    for (int i = 0; i <= nops; i++) {
        bool destroy = i < nops && (op[i] & 1);
        if ((i == nops || destroy) && created) {
            if (f->nphases == MS_FOLLOW_MAX_PHASES)
                return ms_error_set(err, MS_EINVAL, "follow: the plan has over %d partitions",
                                    MS_FOLLOW_MAX_PHASES);
            int8_t *need = f->need[f->nphases];
            for (int k = 0; k < s->ninst; k++)
                need[s->gpu.profiles[s->inst[k].profile].slices] += alive[k];
            memcpy(member[f->nphases], alive, sizeof alive);
            open_at[f->nphases++] = open;
            created = opened = false;
        }
        if (i == nops)
            break;
        const ms_sched_instance *in = &s->inst[op[i] >> 1];
        double at = destroy ? in->destroy_start : in->create_start;
        if (!opened)
            open = isnan(at) ? 0 : at;
        opened = true;
        alive[op[i] >> 1] = !destroy;
        created |= !destroy;
    }
    /* A task belongs to the last phase that holds its instance and opened by its start. */
    for (int t = 0; t < s->ntasks; t++) {
        const ms_sched_task *st = &s->task[t];
        ms_follow_entry *x = &f->entry[t];
        x->phase = -1;
        for (int p = 0; p < f->nphases; p++)
            if (member[p][st->instance] && (x->phase < 0 || open_at[p] <= st->start))
                x->phase = p;
        if (x->phase < 0 || st->index < 0 || st->index >= w->n)
            return ms_error_set(err, MS_EINVAL, "follow: task %d of the plan is on no "
                                                "instance of its partitions", st->index);
        x->key = e->key[st->index];
        x->size = s->gpu.profiles[s->inst[st->instance].profile].slices;
        x->start = st->start;
        x->index = st->index;
    }
    f->n = s->ntasks;
    /* In phase order, then the plan's start order. */
    for (int i = 1; i < f->n; i++) {
        ms_follow_entry x = f->entry[i];
        int j = i;
        while (j > 0 && (f->entry[j - 1].phase > x.phase ||
                         (f->entry[j - 1].phase == x.phase &&
                          (f->entry[j - 1].start > x.start ||
                           (f->entry[j - 1].start == x.start && f->entry[j - 1].index > x.index))))) {
            f->entry[j] = f->entry[j - 1];
            j--;
        }
        f->entry[j] = x;
    }
    f->phase = -1;
    return MS_OK;
}

/* Whether partition q holds the instance sizes need (each on one of its size or larger,
 * the largest first, each on the smallest that fits); fills the sizes each needed size
 * lands on (bits of on[size]) and counts the larger ones used in *larger, the rest left
 * over in *spare. */
static bool holds(const ms_env *e, int q, const int8_t *need, uint32_t *on, int *larger,
                  int *spare)
{
    int have[MS_MAX_SLICES + 1] = {0};
    for (int k = 0; k < e->ninst[q]; k++)
        have[e->isize[q][k]]++;
    *larger = 0;
    *spare = e->ninst[q];
    for (int sl = MS_MAX_SLICES; sl >= 1; sl--) {
        on[sl] = 0;
        for (int n = 0; n < need[sl]; n++) {
            int h = sl;
            while (h <= MS_MAX_SLICES && !have[h])
                h++;
            if (h > MS_MAX_SLICES)
                return false;
            have[h]--;
            on[sl] |= 1u << h;
            *larger += h > sl;
            (*spare)--;
        }
    }
    return true;
}

/* The reconfiguration into phase p (or staying, 0, where the partition holds it), -1 if
 * none can hold it: the soonest done (the busy instances it destroys wait for their
 * tasks), then the fewest larger stand-ins, then the fewest spare instances. Fills
 * f->on. */
static int enter_phase(ms_env_follow *f, const ms_env *e, int p, const uint8_t *mask)
{
    uint32_t on[MS_MAX_SLICES + 1], busy = env_busy_slices(e);
    int larger, spare, best = -1, best_larger = 0, best_spare = 0;
    if (e->part >= 0 && holds(e, e->part, f->need[p], f->on, &larger, &spare))
        return 0; /* nothing to wait for, nothing to create */
    double best_wait = 0;
    for (int c = 0; c < e->C; c++) {
        int a = ms_env_action_reconfig(e, c);
        const env_trans *t = &e->trans[e->part < 0 ? ENV_EMPTY : e->part][c];
        if (!mask[a] || !holds(e, t->target, f->need[p], on, &larger, &spare))
            continue;
        double wait = 0;
        for (int i = 0; i < e->K; i++)
            if ((t->changed & busy) >> i & 1)
                wait = fmax(wait, e->free_at[i] - e->now);
        if (best < 0 || wait < best_wait ||
            (wait == best_wait && (larger < best_larger ||
                                   (larger == best_larger && spare < best_spare)))) {
            best = a;
            best_wait = wait;
            best_larger = larger;
            best_spare = spare;
            memcpy(f->on, on, sizeof on);
        }
    }
    return best;
}

/* The exec action for entry x at e's state, or -1: on a free instance of a size its own
 * lands on in this phase (equal instances are interchangeable, and the environment's times
 * are not quite the plan's, so waiting for a particular one would only lose time). */
static int exec_for(const ms_env_follow *f, const ms_env *e, const ms_follow_entry *x,
                    const uint8_t *mask)
{
    int j = 0, p = e->part;
    while (j < e->nclass && e->key[e->class_task[j]] != x->key)
        j++;
    for (int m = 0; j < e->nclass && m < e->ninst[p]; m++) {
        int a = ms_env_action_exec(e, j, m);
        if ((f->on[x->size] >> e->isize[p][e->cinst[p][m]] & 1) && mask[a])
            return a;
    }
    return -1;
}

int ms_env_follow_action(ms_env_follow *f, const ms_env *e)
{
    uint8_t mask[1 + MS_MAX_PARTITIONS + ENV_MAX_N * MS_MAX_SLICES];
    if (e->done || f->n == 0)
        return -1;
    ms_env_mask(e, mask);
    /* The next phase once this one's tasks have all started. */
    if (f->phase < 0 || f->entry[0].phase > f->phase) {
        f->phase = f->entry[0].phase;
        int a = enter_phase(f, e, f->phase, mask);
        if (a != 0)
            return a;
    }
    for (int i = 0; i < f->n && f->entry[i].phase == f->phase; i++) {
        int a = exec_for(f, e, &f->entry[i], mask);
        if (a >= 0) {
            memmove(&f->entry[i], &f->entry[i + 1], (size_t)(f->n - i - 1) * sizeof *f->entry);
            f->n--;
            return a;
        }
    }
    return mask[MS_ACTION_ADVANCE] ? MS_ACTION_ADVANCE : -1;
}
