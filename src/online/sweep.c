/* sweep.c: results as curves: each policy at each offered load over several
 * seeds, with the static baseline's layout chosen out of sample per load, and the curves'
 * CSV. Offered load is defined in generate.c (ms_online_gen_load). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"

int ms_online_sweep_parse_loads(const char *text, ms_online_sweep *s, ms_error *err)
{
    double v[3] = {0, 0, 0};
    int n = 0;
    for (const char *p = text;; n++) {
        char *end;
        if (n == 3)
            return ms_error_set(err, MS_EINVAL, "--load '%s': at most LO:HI:STEP", text);
        v[n] = strtod(p, &end);
        if (end == p || (*end && *end != ':'))
            return ms_error_set(err, MS_EINVAL,
                                "--load '%s': expected LO:HI:STEP or one "
                                "load, numbers separated by ':'",
                                text);
        if (!*end) {
            n++;
            break;
        }
        p = end + 1;
    }
    if (n == 2)
        return ms_error_set(err, MS_EINVAL, "--load '%s': LO:HI needs a :STEP", text);
    double lo = v[0], hi = n == 3 ? v[1] : v[0], step = n == 3 ? v[2] : 1;
    if (!(lo > 0 && hi <= 10 && lo <= hi && step > 0))
        return ms_error_set(err, MS_EINVAL, "--load '%s': need 0 < LO <= HI <= 10 and STEP > 0",
                            text);
    double count = floor((hi - lo) / step + 1e-9) + 1;
    if (count > MS_SWEEP_MAX_LOADS)
        return ms_error_set(err, MS_EINVAL, "--load '%s': more than %d loads", text,
                            MS_SWEEP_MAX_LOADS);
    s->nloads = (int)count;
    for (int i = 0; i < s->nloads; i++) /* by multiplication: no drift from adding */
        s->loads[i] = lo + i * step;
    return MS_OK;
}

int ms_online_sweep_parse_policies(const char *text, ms_online_sweep *s, ms_error *err)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return ms_error_set(err, MS_EINVAL, "--policies: too long");
    strcpy(buf, text);
    s->npolicies = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(t, '/');
        int q = -1;
        if (slash) {
            *slash = '\0';
            if ((q = ms_online_queue_parse(slash + 1)) < 0)
                return ms_error_set(err, MS_EINVAL,
                                    "--policies: unknown queue discipline '%s' "
                                    "(fcfs-profile, fcfs or reserve)",
                                    slash + 1);
        }
        int p = ms_online_policy_parse(t);
        if (p < 0)
            return ms_error_set(err, MS_EINVAL, "--policies: unknown policy '%s'", t);
        if (s->npolicies == MS_SWEEP_MAX_POLICIES)
            return ms_error_set(err, MS_EINVAL, "--policies: at most %d", MS_SWEEP_MAX_POLICIES);
        s->queues[s->npolicies] = q;
        s->policies[s->npolicies++] = p;
    }
    if (s->npolicies == 0)
        return ms_error_set(err, MS_EINVAL, "--policies: none given");
    return MS_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Waits of every seed's jobs, by profile, for the pooled quantiles. */
typedef struct waits {
    double *v[MS_MAX_PROFILES];
    int n[MS_MAX_PROFILES], cap[MS_MAX_PROFILES];
} waits;

static void waits_free(waits *w)
{
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        free(w->v[p]);
}

static int add_run(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_result *r,
                   int gpus, int seeds, ms_online_point *pt, waits *wt)
{
    double busy = 0;
    for (int j = 0; j < w->n; j++) {
        int p = w->jobs[j].profile;
        busy += m->profiles[p].slices * (r->end[j] - r->start[j]);
        if (!msi_reserve(&wt->v[p], wt->n[p], &wt->cap[p], sizeof *wt->v[p], 256))
            return MS_ENOMEM;
        wt->v[p][wt->n[p]++] = r->start[j] - w->jobs[j].arrival;
    }
    pt->turnaround += r->mean_turnaround / seeds;
    pt->makespan += r->makespan / seeds;
    pt->wait += r->mean_wait / seeds;
    pt->execution += r->mean_exec / seeds;
    pt->fragmentation += r->mean_frag / seeds;
    pt->utilisation += busy / ((double)gpus * m->slices * r->makespan) / seeds;
    for (int p = 0; p < m->nprofiles; p++)
        if (!isnan(r->tpot[p]))
            pt->tpot[p] = (isnan(pt->tpot[p]) ? 0 : pt->tpot[p]) + r->tpot[p];
    return MS_OK;
}

static int run_point(const ms_gpu_model *m, const ms_online_sweep *s, int which, double load,
                     ms_online_point *pt, ms_error *err)
{
    ms_online_gen g = s->gen;
    ms_online_gen_set_load(m, &g, s->cfg.gpus, load);
    ms_online_config c = s->cfg;
    int policy = s->policies[which];
    c.policy = policy;
    c.queue = s->queues[which] >= 0 ? s->queues[which] : c.queue;
    c.layout = MS_LAYOUT_BEST;
    *pt = (ms_online_point){.policy = policy,
                            .queue = c.queue,
                            .load = load,
                            .arrival_mean = g.arrival_mean,
                            .layout = -1};
    snprintf(pt->label, sizeof pt->label, "%s%s%s", ms_online_policy_name(policy),
             s->queues[which] >= 0 ? "/" : "",
             s->queues[which] >= 0 ? ms_online_queue_name(c.queue) : "");
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        pt->p50_wait[p] = pt->p99_wait[p] = pt->tpot[p] = NAN;
    int rc = MS_OK, tpot_n[MS_MAX_PROFILES] = {0};
    if (policy == MS_POLICY_FF_STATIC) {
        if ((rc = ms_online_choose_layout(m, &g, &c, MS_ONLINE_TRAIN_SEED(s->seed), s->seeds, err)))
            return rc;
        pt->layout = c.layout;
    }
    waits wt = {0};
    for (int i = 0; i < s->seeds && !rc; i++) {
        ms_online_workload w;
        ms_online_result r;
        if ((rc = ms_online_run_seed(m, &g, &c, s->seed + (unsigned long long)i, &w, &r, err)))
            break;
        if ((rc = add_run(m, &w, &r, c.gpus, s->seeds, pt, &wt)))
            ms_error_set(err, rc, "out of memory in the sweep");
        for (int p = 0; !rc && p < m->nprofiles; p++)
            tpot_n[p] += !isnan(r.tpot[p]);
        ms_online_result_fini(&r);
        ms_online_workload_fini(&w);
    }
    for (int p = 0; !rc && p < m->nprofiles; p++) {
        if (tpot_n[p])
            pt->tpot[p] /= tpot_n[p];
        if (!wt.n[p])
            continue;
        qsort(wt.v[p], (size_t)wt.n[p], sizeof *wt.v[p], cmp_double);
        pt->p50_wait[p] = ms_online_quantile(wt.v[p], wt.n[p], 0.5);
        pt->p99_wait[p] = ms_online_quantile(wt.v[p], wt.n[p], 0.99);
    }
    waits_free(&wt);
    return rc;
}

int ms_online_sweep_run(const ms_gpu_model *m, const ms_online_sweep *s,
                        void (*progress)(void *arg, int done, int total), void *arg,
                        ms_online_point **out, ms_error *err)
{
    *out = NULL;
    if (s->nloads < 1 || s->npolicies < 1 || s->seeds < 1)
        return ms_error_set(err, MS_EINVAL, "sweep: no load, policy or seed to run");
    int total = s->nloads * s->npolicies;
    ms_online_point *pts = calloc((size_t)total, sizeof *pts);
    if (!pts)
        return ms_error_set(err, MS_ENOMEM, "out of memory for the sweep");
    for (int i = 0; i < s->npolicies; i++)
        for (int l = 0; l < s->nloads; l++) {
            int k = i * s->nloads + l, rc = run_point(m, s, i, s->loads[l], &pts[k], err);
            if (rc) {
                free(pts);
                return rc;
            }
            if (progress)
                progress(arg, k + 1, total);
        }
    *out = pts;
    return MS_OK;
}

static void csv_num(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, ",");
    else
        fprintf(f, ",%.6f", v);
}

int ms_online_sweep_write_csv(const char *path, const ms_gpu_model *m, const ms_online_sweep *s,
                              const ms_online_point *pts, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    fprintf(o.f, "policy,load,arrival_mean,turnaround,makespan,wait,execution,utilisation,"
                 "fragmentation,layout");
    for (int i = 0; i < s->gen.nmix; i++) {
        const char *n = m->profiles[s->gen.mix_profile[i]].name;
        fprintf(o.f, ",wait_p50_%s,wait_p99_%s,tpot_ms_%s", n, n, n);
    }
    fprintf(o.f, "\n");
    for (int k = 0; k < s->npolicies * s->nloads; k++) {
        const ms_online_point *pt = &pts[k];
        fprintf(o.f, "%s,%.4f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%s", pt->label, pt->load,
                pt->arrival_mean, pt->turnaround, pt->makespan, pt->wait, pt->execution,
                pt->utilisation, pt->fragmentation,
                pt->layout >= 0 ? ms_online_layout_name(pt->layout) : "");
        for (int i = 0; i < s->gen.nmix; i++) {
            int p = s->gen.mix_profile[i];
            csv_num(o.f, pt->p50_wait[p]);
            csv_num(o.f, pt->p99_wait[p]);
            csv_num(o.f, 1000 * pt->tpot[p]);
        }
        fprintf(o.f, "\n");
    }
    return ms_output_commit(&o, err);
}
