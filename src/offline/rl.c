/* rl.c: the learned scheduler (paper 001) behind the offline entry point: loads the
 * policy file named in the options, plans queues of any length (the batch refilled as tasks
 * are placed, or balanced batches joined by FAR's overlap concatenation) and guards the plan
 * with FAR's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "migsched/learn.h"
#include "search_internal.h"

/* A valid plan of "a, then b": the instances of a still alive at its end that overlap
 * one of b's are destroyed one at a time, then b (tasks renumbered from `first`) runs
 * shifted to start after that. */
static ms_schedule *append(const ms_schedule *a, const ms_schedule *b, int first)
{
    ms_schedule *s = ms_schedule_clone(a);
    if (!s)
        return NULL;
    const ms_gpu_model *g = &s->gpu;
    double clock = ms_schedule_makespan(a);
    for (int i = 0; i < a->ninst; i++)
        clock = fmax(clock, fmax(isnan(a->inst[i].create_end) ? 0 : a->inst[i].create_end,
                                 isnan(a->inst[i].destroy_end) ? 0 : a->inst[i].destroy_end));
    uint32_t used = 0; /* slots b's instances occupy */
    for (int i = 0; i < b->ninst; i++)
        used |= ms_gpu_slot_mask(g, (ms_placement){b->inst[i].profile, b->inst[i].start_slot});
    for (int i = 0; i < s->ninst; i++) {
        ms_sched_instance *in = &s->inst[i];
        if (!isnan(in->destroy_start) ||
            !(ms_gpu_slot_mask(g, (ms_placement){in->profile, in->start_slot}) & used))
            continue;
        in->destroy_start = clock;
        clock += ms_gpu_destroy_time(g, g->profiles[in->profile].slices);
        in->destroy_end = clock;
    }
    int base = s->ninst;
    bool ok = true;
    for (int i = 0; i < b->ninst && ok; i++) {
        const ms_sched_instance *in = &b->inst[i];
        ok = ms_schedule_add_instance(s, 0, in->profile, in->start_slot, clock + in->create_start,
                                      clock + in->create_end, clock + in->destroy_start,
                                      clock + in->destroy_end) >= 0;
    }
    for (int k = 0; k < b->ntasks && ok; k++) {
        const ms_sched_task *t = &b->task[k];
        ok = !ms_schedule_add_task(s, first + t->index, base + t->instance, clock + t->start,
                                   clock + t->end);
    }
    if (!ok) {
        ms_schedule_free(s);
        return NULL;
    }
    ms_schedule_normalize(s);
    return s;
}

/* The model partition GPU 0 holds in l (its instances exactly that partition's, busy[k]
 * the k-th one's busy time), -1 when none. */
static int held_partition(const ms_gpu_model *gpu, const ms_initial *l,
                          double busy[MS_MAX_INSTANCES])
{
    ms_placement at[MS_MAX_SLOTS];
    double b[MS_MAX_SLOTS];
    int n = ms_initial_on_gpu(l, 0, at, b);
    for (int k = 0; k < gpu->npartitions; k++) {
        const ms_partition *p = &gpu->partitions[k];
        bool same = p->n == n;
        for (int i = 0; i < n && same; i++)
            same = p->inst[i].profile == at[i].profile && p->inst[i].start == at[i].start;
        if (same) {
            memcpy(busy, b, (size_t)n * sizeof *busy);
            return k;
        }
    }
    return -1;
}

/* The agent's plan of w with the options' rule of decision (greedy or rollout), from the
 * GPU's layout `initial` (NULL: empty): an episode from that partition where the
 * environment knows it, else from an empty GPU after the initial instances in the plan's
 * way are destroyed. */
static int policy_plan(const ms_rl_model *m, const ms_gpu_model *gpu, const ms_workload *w,
                       bool online, const ms_offline_options *opt, const ms_initial *initial,
                       ms_schedule **out, ms_error *err)
{
    if (!initial || initial->n == 0)
        return ms_rl_schedule(m, gpu, w, online, opt->rl.rollout, opt->rl.rollout_gap, out, err);
    double busy[MS_MAX_INSTANCES];
    int part = held_partition(gpu, initial, busy);
    if (part >= 0 && ms_rl_schedule_from(m, gpu, w, online, opt->rl.rollout, opt->rl.rollout_gap,
                                         part, busy, out, NULL) == MS_OK)
        return MS_OK;
    for (int i = 0; i < initial->n; i++)
        if (initial->inst[i].busy_until > 0)
            return ms_error_set(err, MS_EINVAL,
                                "rl: the policy cannot plan around busy "
                                "instances outside its configurations");
    ms_schedule *fresh = NULL, *held = ms_schedule_new(gpu, 1, "rl");
    int rc = held ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; i < initial->n && !rc; i++)
        if (ms_schedule_add_instance(held, 0, initial->inst[i].at.profile,
                                     initial->inst[i].at.start, NAN, NAN, NAN, NAN) < 0)
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc)
        rc = ms_rl_schedule(m, gpu, w, online, opt->rl.rollout, opt->rl.rollout_gap, &fresh, err);
    if (!rc && !(*out = append(held, fresh, 0)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc) { /* the agent's own counters (decisions, passes) */
        memcpy((*out)->stats, fresh->stats, sizeof fresh->stats);
        (*out)->nstats = fresh->nstats;
    }
    ms_schedule_free(held);
    ms_schedule_free(fresh);
    return rc;
}

/* The agent's plan s of batch b (tasks numbered within the batch wb) into batch b of p. */
static int put_batch(far_plan *p, int b, int first, const ms_workload *wb,
                     const ms_offline_options *opt, const ms_schedule *s, ms_error *err)
{
    far_plan one;
    if (far_plan_init(&one, wb, p->gpu, 1, 1))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    far_plan_set_rules(&one, opt);
    int rc = MS_OK;
    if (!search_plan_from_schedule(&one, s))
        rc = ms_error_set(err, MS_EINVAL,
                          "rl: batch %d's plan uses an instance off the "
                          "repartitioning tree of %s (use --rl-queue fill)",
                          b + 1, p->gpu->name);
    else if ((rc = far_plan_put_batch(p, b, first, &one)))
        ms_error_set(err, rc, "out of memory");
    far_plan_free(&one);
    return rc;
}

/* Balanced batches of at most N tasks, each planned alone, joined by the overlap
 * concatenation of paper 000 4.3. */
static int split_queue(const ms_rl_model *m, const ms_workload *w, const ms_gpu_model *gpu,
                       const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    int N = m->env.n_batch, nb = (w->n + N - 1) / N;
    far_plan p;
    if (far_plan_init(&p, w, gpu, 1, nb))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    far_plan_set_rules(&p, opt);
    int rc = MS_OK;
    for (int b = 0, first = 0; b < nb && !rc; b++) {
        int n = w->n / nb + (b < w->n % nb);
        ms_workload *wb = ms_workload_slice(w, first, n);
        ms_schedule *s = NULL;
        if (!wb)
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        if (!rc && !(rc = policy_plan(m, gpu, wb, false, opt, NULL, &s, err)))
            rc = put_batch(&p, b, first, wb, opt, s, err);
        ms_schedule_free(s);
        ms_workload_free(wb);
        first += n;
    }
    ms_offline_options co = *opt;
    co.far.concat = MS_CONCAT_OVERLAP;
    far_engine e = {.initial = opt->initial};
    ms_schedule *s = rc ? NULL : ms_schedule_new(gpu, 1, "rl");
    if (!rc && !s)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc)
        rc = far_concat_run(&p, &e, &co, s, err);
    far_engine_free(&e);
    far_plan_free(&p);
    if (rc)
        ms_schedule_free(s);
    else
        ms_schedule_normalize(s);
    *out = rc ? NULL : s;
    return rc;
}

/* Keeps the shorter of *best and c (ties: *best); frees the other. */
static void keep_shorter(ms_schedule **best, ms_schedule *c)
{
    if (ms_schedule_makespan(c) < ms_schedule_makespan(*best)) {
        ms_schedule_free(*best);
        *best = c;
    } else {
        ms_schedule_free(c);
    }
}

/* The guard: FAR's plan of the queue and, for a queue longer than N, the agent's plan of
 * its first N tasks followed by FAR's plan of the rest replace the agent's plan when
 * shorter. */
static int guard(const ms_rl_model *m, const ms_workload *w, const ms_gpu_model *gpu,
                 const ms_offline_options *opt, ms_schedule **s, ms_error *err)
{
    ms_offline_options fo = *opt;
    fo.batch = 0;
    fo.far.refine = 1;
    int N = m->env.n_batch;
    double agent = ms_schedule_makespan(*s);
    ms_schedule *far = NULL, *head = NULL, *tail = NULL, *seq = NULL;
    ms_workload *wh = NULL, *wt = NULL;
    ms_offline_options after = fo; /* the rest starts from what the head leaves */
    after.initial = NULL;
    int rc = ms_far_schedule(w, gpu, 1, &fo, &far, err);
    if (!rc && w->n > N && !m->env.online) {
        if (!(wh = ms_workload_slice(w, 0, N)) || !(wt = ms_workload_slice(w, N, w->n - N)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        if (!rc && !(rc = policy_plan(m, gpu, wh, false, opt, opt->initial, &head, err)) &&
            !(rc = ms_far_schedule(wt, gpu, 1, &after, &tail, err)) &&
            !(seq = append(head, tail, N)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    ms_workload_free(wh);
    ms_workload_free(wt);
    ms_schedule_free(head);
    ms_schedule_free(tail);
    if (rc) {
        ms_schedule_free(far);
        return rc;
    }
    double fm = ms_schedule_makespan(far), sm = seq ? ms_schedule_makespan(seq) : INFINITY;
    keep_shorter(s, far);
    if (seq)
        keep_shorter(s, seq);
    /* 0: the agent's plan, 1: FAR's, 2: the agent's first N then FAR's rest. */
    double won = ms_schedule_makespan(*s) < agent ? (sm < fm ? 2 : 1) : 0;
    ms_schedule_set_stat(*s, "guard_won", won);
    ms_schedule_set_stat(*s, "agent_makespan", agent);
    ms_schedule_set_stat(*s, "far_makespan", fm);
    if (seq)
        ms_schedule_set_stat(*s, "head_far_makespan", sm);
    return MS_OK;
}

/* The agent's plan in the queue mode asked for; MS_RL_QUEUE_BEST plans both ways. */
static int agent_plan(const ms_rl_model *m, const ms_workload *w, const ms_gpu_model *gpu,
                      const ms_offline_options *opt, bool online, ms_schedule **out, int *used,
                      ms_error *err)
{
    bool longer = !online && w->n > m->env.n_batch;
    *used = MS_RL_QUEUE_FILL;
    if (!longer || opt->rl.queue == MS_RL_QUEUE_FILL)
        return policy_plan(m, gpu, w, true, opt, opt->initial, out, err);
    *used = MS_RL_QUEUE_SPLIT;
    int rc = split_queue(m, w, gpu, opt, out, err);
    if (rc || opt->rl.queue == MS_RL_QUEUE_SPLIT)
        return rc;
    ms_schedule *fill = NULL;
    if ((rc = policy_plan(m, gpu, w, true, opt, opt->initial, &fill, err)))
        return rc;
    if (ms_schedule_makespan(fill) < ms_schedule_makespan(*out))
        *used = MS_RL_QUEUE_FILL;
    keep_shorter(out, fill);
    return MS_OK;
}

int ms_rl_offline_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    if (!opt->rl.model)
        return ms_error_set(err, MS_EINVAL, "rl: a policy file is required (--model FILE)");
    if (gpus != 1)
        return ms_error_set(err, MS_EINVAL, "rl: the learned policy schedules one GPU, not %d",
                            gpus);
    ms_rl_model m;
    if (ms_model_load(opt->rl.model, &m, err))
        return err ? err->code : MS_EINVAL;
    /* An online policy, or a queue that fits the batch, is one episode; fill runs an
     * offline policy with the online refill. */
    bool online = opt->rl.online || m.env.online;
    int used;
    int rc = agent_plan(&m, w, gpu, opt, online, out, &used, err);
    if (!rc && !opt->rl.no_guard)
        rc = guard(&m, w, gpu, opt, out, err);
    if (rc) {
        ms_schedule_free(*out);
        *out = NULL;
        ms_error_prefix(err, "%s", opt->rl.model);
    } else {
        ms_schedule *s = *out;
        snprintf(s->algorithm, sizeof s->algorithm, "%s", online ? "rl-online" : "rl");
        ms_schedule_set_stat(s, "rl_queue", used);
        ms_schedule_set_stat(s, "guard", !opt->rl.no_guard);
        float gap = isnan(opt->rl.rollout_gap) ? ms_rl_model_gap(&m) : opt->rl.rollout_gap;
        if (ms_rl_rule_rolls_out(opt->rl.rollout, gap)) {
            ms_schedule_set_stat(s, "rollout", opt->rl.rollout);
            if (isfinite(gap)) /* absent: at every decision */
                ms_schedule_set_stat(s, "rollout_gap", gap);
        }
    }
    ms_model_fini(&m);
    return rc;
}
