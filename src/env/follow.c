/* follow.c: a single-GPU plan of the episode's workload (e.g. FAR's) as the environment's
 * actions, for demonstrations (ours). The plan is cut into phases, the sets of instances
 * it holds between reconfigurations. The follower starts each phase's tasks in the plan's
 * order on their own instances where it has them (waiting a little for one), else on free
 * instances of their size, advances while none can start, and once a phase's
 * tasks have all started reconfigures for the next: to the configuration that holds the
 * next phase's instances (a larger instance standing in for one the canonical set
 * dropped, e.g. a 3g on slots 0-3) and can be reached soonest from the environment's
 * partition, at the plan's slots where it can. The environment keeps its
 * own clock and a class of equal discretised times stands for each task, so the episode's
 * makespan is near the plan's, not always equal to it.
 * Where every partition is an action (every_partition with keep_useless), the follower is
 * strict instead: a phase is entered only at a partition with its instances at their own
 * slots and sizes, a task waits for its own instance, and tasks start in the plan's order
 * (an instance's first task at its creation's start). With async_reconfig, create_on_use
 * and task_classes as well, the episode repeats FAR's plans task by task
 * (tests/test_env_follow.c): otherwise a larger stand-in or another free instance runs a
 * task sooner or later than the plan, the canonical placement is a symmetric one and not
 * the plan's, the instances a full partition holds beyond the plan's take the
 * reconfiguration clock, and a task of equal levels runs for another. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env_internal.h"

_Static_assert(MS_FOLLOW_MAX_TASKS == ENV_MAX_N, "a follower holds a whole batch");

/* Whether the follower carries the plan out as it is (file comment). */
static bool strict(const ms_env *e) { return e->cfg.every_partition && e->cfg.keep_useless; }

/* Whether task t of s is the first its instance runs (by start, then index). */
static bool first_on_instance(const ms_schedule *s, int t)
{
    const ms_sched_task *st = &s->task[t];
    for (int u = 0; u < s->ntasks; u++) {
        const ms_sched_task *o = &s->task[u];
        if (o->instance == st->instance &&
            !(o->start > st->start || (o->start == st->start && o->index >= st->index)))
            return false;
    }
    return true;
}

int ms_env_follow_start(ms_env_follow *f, const ms_env *e, const ms_schedule *s, ms_error *err)
{
    memset(f, 0, sizeof *f);
    const ms_workload *w = e->w;
    if (!w || e->done || e->part >= 0 || e->nsteps)
        return ms_error_set(err, MS_EINVAL,
                            "follow: the episode must be at its start, on an "
                            "empty GPU");
    if (e->cfg.online || w->n > e->cfg.n_batch)
        return ms_error_set(err, MS_EINVAL, "follow: only an offline episode of one batch");
    if (s->gpus != 1 || s->ntasks != w->n || s->ninst > MS_FOLLOW_MAX_INST ||
        strcmp(s->gpu.name, e->gpu.name))
        return ms_error_set(err, MS_EINVAL,
                            "follow: the plan is not one of this episode's %d "
                            "tasks on one %s",
                            w->n, e->gpu.name);
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
            ms_follow_phase *ph = &f->phases[f->nphases];
            for (int k = 0; k < s->ninst; k++) {
                if (!alive[k])
                    continue;
                if (ph->n == MS_MAX_INSTANCES)
                    return ms_error_set(err, MS_EINVAL,
                                        "follow: the plan holds over %d "
                                        "instances at once",
                                        MS_MAX_INSTANCES);
                ph->size[ph->n] = (int8_t)s->gpu.profiles[s->inst[k].profile].slices;
                ph->start[ph->n++] = (int8_t)s->inst[k].start_slot;
            }
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
    /* A task belongs to the last phase that holds its instance and opened by its start;
     * strictly, opened before it: one starting as the next phase opens starts on an
     * instance created before that phase's first destruction. */
    bool before = strict(e);
    for (int t = 0; t < s->ntasks; t++) {
        const ms_sched_task *st = &s->task[t];
        ms_follow_entry *x = &f->entry[t];
        x->phase = -1;
        for (int p = 0; p < f->nphases && st->instance >= 0 && st->instance < s->ninst; p++)
            if (member[p][st->instance] &&
                (x->phase < 0 || open_at[p] < st->start || (!before && open_at[p] == st->start)))
                x->phase = p;
        if (x->phase < 0 || st->index < 0 || st->index >= w->n)
            return ms_error_set(err, MS_EINVAL,
                                "follow: task %d of the plan is on no "
                                "instance of its partitions",
                                st->index);
        x->key = e->key[st->index];
        x->size = s->gpu.profiles[s->inst[st->instance].profile].slices;
        x->slot = s->inst[st->instance].start_slot;
        x->start = st->start;
        x->index = st->index;
        /* Strictly, an instance's first task is taken when the plan creates the instance
         * (create_on_use creates it then), before tasks that start in between. */
        const ms_sched_instance *in = &s->inst[st->instance];
        if (before && !isnan(in->create_start) && first_on_instance(s, t))
            x->start = in->create_start;
    }
    f->n = s->ntasks;
    /* In phase order, then the plan's start order. */
    for (int i = 1; i < f->n; i++) {
        ms_follow_entry x = f->entry[i];
        int j = i;
        while (j > 0 &&
               (f->entry[j - 1].phase > x.phase ||
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

/* Whether partition q holds phase ph's instances, each on an instance of its size or
 * larger: first those q has at the plan's own slots and size (an instance kept where the
 * plan keeps it can be kept through its later phases too), then the rest on the smallest
 * that fits, the largest first. Fills the sizes each of the phase's sizes lands on (bits
 * of on[size]) and counts the instances off their slots (*moved), the larger stand-ins
 * (*larger) and q's instances left over (*spare). */
static bool holds(const ms_env *e, int q, const ms_follow_phase *ph, uint32_t *on, int *moved,
                  int *larger, int *spare)
{
    int passes = strict(e) ? 1 : 2;
    const ms_partition *part = &e->gpu.partitions[q];
    bool used[MS_MAX_INSTANCES] = {false}, placed[MS_MAX_INSTANCES] = {false};
    memset(on, 0, (MS_MAX_SLICES + 1) * sizeof *on);
    *moved = *larger = 0;
    *spare = part->n - ph->n;
    for (int pass = 0; pass < passes; pass++)
        for (int sl = MS_MAX_SLICES; sl >= 1; sl--)
            for (int i = 0; i < ph->n; i++) {
                if (ph->size[i] != sl || placed[i])
                    continue;
                int pick = -1, have = 0;
                for (int k = 0; k < part->n; k++) {
                    int h = e->gpu.profiles[part->inst[k].profile].slices;
                    bool fits = pass ? h >= sl : h == sl && part->inst[k].start == ph->start[i];
                    if (!used[k] && fits && (pick < 0 || h < have)) {
                        pick = k;
                        have = h;
                    }
                }
                if (pick < 0)
                    continue;
                used[pick] = placed[i] = true;
                on[sl] |= 1u << have;
                *moved += part->inst[pick].start != ph->start[i];
                *larger += have > sl;
            }
    for (int i = 0; i < ph->n; i++)
        if (!placed[i])
            return false;
    return true;
}

/* The reconfiguration into phase p (or staying, 0, where the partition holds it), -1 if
 * none can hold it: the soonest done (the busy instances it destroys wait for their
 * tasks), then the fewest instances off the plan's slots, the fewest larger stand-ins, the
 * fewest spare instances. Fills f->on. */
static int enter_phase(ms_env_follow *f, const ms_env *e, int p, const uint8_t *mask)
{
    uint32_t on[MS_MAX_SLICES + 1], busy = env_busy_slices(e);
    int cost[3], best_cost[3], best = -1;
    const ms_follow_phase *ph = &f->phases[p];
    if (e->part >= 0 && holds(e, e->part, ph, f->on, &cost[0], &cost[1], &cost[2]))
        return 0; /* nothing to wait for, nothing to create */
    double best_wait = 0;
    for (int c = 0; c < e->C; c++) {
        int a = ms_env_action_reconfig(e, c);
        env_trans scratch;
        const env_trans *t = env_transition(e, c, &scratch);
        if (!mask[a] || !holds(e, t->target, ph, on, &cost[0], &cost[1], &cost[2]))
            continue;
        double wait = 0;
        for (int i = 0; i < e->K; i++)
            if ((t->changed & busy) >> i & 1)
                wait = fmax(wait, e->free_at[i] - e->now);
        int k = 0;
        while (k < 3 && cost[k] == best_cost[k])
            k++;
        if (best < 0 || wait < best_wait ||
            (wait == best_wait && k < 3 && cost[k] < best_cost[k])) {
            best = a;
            best_wait = wait;
            memcpy(best_cost, cost, sizeof cost);
            memcpy(f->on, on, sizeof on);
        }
    }
    return best;
}

/* Whether m, an instance of e's partition, is one x may start on: of a size its own
 * lands on in this phase, and one it runs on. */
static bool fits_entry(const ms_env_follow *f, const ms_env *e, const ms_follow_entry *x, int j,
                       int m)
{
    int size = e->isize[e->part][e->cinst[e->part][m]];
    return (f->on[x->size] >> size & 1) && isfinite(e->w->tasks[e->class_task[j]].time[size]);
}

/* How long, as a share of its time there, a task waits for its own busy instance rather
 * than take another free one (1 %, 50 % and 100 % followed the search's plans less
 * closely; docs/rl.md). */
#define OWN_INSTANCE_WAIT 0.1

/* The exec action for entry x at e's state, -1 if it cannot start now. On its own instance
 * (the plan's start slot) if the partition has it there: where that one is busy, x waits
 * for it if it frees within OWN_INSTANCE_WAIT of x's time on it, since the plan keeps the
 * other instances for other tasks and later phases (taking one of those cost the search's
 * plans 0.74 points of p_opt on class-sorted MIXSCALINGEXTREME batches); otherwise, or
 * where waiting would cost more, on any free one that fits (equal instances are
 * interchangeable, and the environment's times are not quite the plan's). */
static int exec_for(const ms_env_follow *f, const ms_env *e, const ms_follow_entry *x,
                    const uint8_t *mask)
{
    /* x's class: the one x runs as (its own with task_classes), else the one of its key */
    int j = 0, p = e->part;
    while (j < e->nclass && e->class_task[j] != x->index)
        j++;
    if (j == e->nclass) {
        j = 0;
        while (j < e->nclass && e->key[e->class_task[j]] != x->key)
            j++;
    }
    if (j == e->nclass)
        return -1;
    for (int m = 0; m < e->ninst[p]; m++) {
        int k = e->cinst[p][m];
        if (e->gpu.partitions[p].inst[k].start != x->slot || !fits_entry(f, e, x, j, m))
            continue;
        if (mask[ms_env_action_exec(e, j, m)])
            return ms_env_action_exec(e, j, m);
        if (strict(e))
            return -1;
        double wait = env_instance_free_at(e, p, k) - e->now;
        if (wait <= OWN_INSTANCE_WAIT * e->w->tasks[e->class_task[j]].time[e->isize[p][k]])
            return -1;
        break;
    }
    for (int m = 0; m < e->ninst[p] && !strict(e); m++)
        if (fits_entry(f, e, x, j, m) && mask[ms_env_action_exec(e, j, m)])
            return ms_env_action_exec(e, j, m);
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
    /* Strictly, in the plan's order: an instance created for a later task must not take
     * the reconfiguration clock before an earlier one's. */
    for (int i = 0; i < f->n && f->entry[i].phase == f->phase && (i == 0 || !strict(e)); i++) {
        int a = exec_for(f, e, &f->entry[i], mask);
        if (a >= 0) {
            memmove(&f->entry[i], &f->entry[i + 1], (size_t)(f->n - i - 1) * sizeof *f->entry);
            f->n--;
            return a;
        }
    }
    return mask[MS_ACTION_ADVANCE] ? MS_ACTION_ADVANCE : -1;
}
