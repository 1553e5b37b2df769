/* rl.c: the learned scheduler (paper 001) behind the offline entry point: loads the
 * policy file named in the options, plans queues of any length (the batch refilled as tasks
 * are placed, or balanced batches joined by FAR's overlap concatenation) and guards each
 * batch with FAR's plan. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "migsched/learn.h"
#include "search_internal.h"

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
        rc = ms_error_set(err, MS_EINVAL, "rl: batch %d's plan uses an instance off the "
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
        if (!rc && !(rc = ms_rl_schedule(m, gpu, wb, false, &s, err)))
            rc = put_batch(&p, b, first, wb, opt, s, err);
        ms_schedule_free(s);
        ms_workload_free(wb);
        first += n;
    }
    ms_offline_options co = *opt;
    co.concat = MS_CONCAT_OVERLAP;
    far_engine e = {0};
    ms_schedule *s = rc ? NULL : ms_schedule_new(gpu, 1, "rl");
    if (!rc && !s)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc)
        rc = far_concat_run(&p, &e, &co, s, err);
    far_engine_free(&e);
    far_plan_free(&p);
    if (rc) {
        ms_schedule_free(s);
        return rc;
    }
    ms_schedule_normalize(s);
    *out = s;
    return MS_OK;
}

/* The guard: FAR's plan of the same queue replaces the agent's when it is shorter. */
static int guard(const ms_workload *w, const ms_gpu_model *gpu, const ms_offline_options *opt,
                 ms_schedule **s, ms_error *err)
{
    ms_offline_options fo = *opt;
    fo.batch = 0;
    fo.refine = 1;
    ms_schedule *far = NULL;
    int rc = ms_far_schedule(w, gpu, 1, &fo, &far, err);
    if (rc)
        return rc;
    double agent = ms_schedule_makespan(*s), fm = ms_schedule_makespan(far);
    if (fm < agent) {
        ms_schedule_free(*s);
        *s = far;
    } else {
        ms_schedule_free(far);
    }
    ms_schedule_set_stat(*s, "guard_far", fm < agent);
    ms_schedule_set_stat(*s, "agent_makespan", agent);
    ms_schedule_set_stat(*s, "far_makespan", fm);
    return MS_OK;
}

int ms_rl_offline_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    if (!opt->model)
        return ms_error_set(err, MS_EINVAL, "rl: a policy file is required (--model FILE)");
    if (gpus != 1)
        return ms_error_set(err, MS_EINVAL, "rl: the learned policy schedules one GPU, not %d",
                            gpus);
    ms_rl_model m;
    if (ms_model_load(opt->model, &m, err))
        return err ? err->code : MS_EINVAL;
    /* An online policy, or a queue that fits the batch, is one episode; fill runs an
     * offline policy with the online refill. */
    bool online = opt->online || m.env.online;
    bool split = !online && opt->rl_queue == MS_RL_QUEUE_SPLIT && w->n > m.env.n_batch;
    int rc = split ? split_queue(&m, w, gpu, opt, out, err)
                   : ms_rl_schedule(&m, gpu, w, true, out, err);
    if (!rc && !opt->no_guard)
        rc = guard(w, gpu, opt, out, err);
    if (rc) {
        ms_schedule_free(*out);
        *out = NULL;
        ms_error_prefix(err, "%s", opt->model);
    } else {
        ms_schedule *s = *out;
        snprintf(s->algorithm, sizeof s->algorithm, "%s", online ? "rl-online" : "rl");
        ms_schedule_set_stat(s, "rl_queue", split ? MS_RL_QUEUE_SPLIT : MS_RL_QUEUE_FILL);
        ms_schedule_set_stat(s, "guard", !opt->no_guard);
    }
    ms_model_destroy(&m);
    return rc;
}
