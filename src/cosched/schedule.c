/* schedule.c: co-scheduling schedules (interval sequences), validator, counters, JSON output. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"

ms_cosched_schedule *ms_cosched_schedule_new(int n)
{
    ms_cosched_schedule *s = calloc(1, sizeof *s);
    if (s)
        s->n = n;
    return s;
}

void ms_cosched_schedule_free(ms_cosched_schedule *s)
{
    if (s)
        free(s->iv);
    free(s);
}

int ms_cosched_schedule_add(ms_cosched_schedule *s, double d, int a, int b, ms_error *err)
{
    if (!(d > 0))
        return MS_OK;
    if (s->len == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        ms_cosched_interval *iv = realloc(s->iv, sizeof *iv * (size_t)cap);
        if (!iv)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        s->iv = iv;
        s->cap = cap;
    }
    s->iv[s->len++] = (ms_cosched_interval){d, a, b == a ? -1 : b};
    return MS_OK;
}

double ms_cosched_makespan(const ms_cosched_schedule *s)
{
    double t = 0;
    for (int l = 0; l < s->len; l++)
        t += s->iv[l].d;
    return t;
}

int ms_cosched_preemptions(const ms_cosched_schedule *s, int *per_task)
{
    int *last = malloc(sizeof *last * (size_t)(s->n + 1)), total = 0;
    if (!last)
        return -1;
    for (int i = 0; i < s->n; i++) {
        last[i] = -2;
        if (per_task)
            per_task[i] = 0;
    }
    /* A task is preempted each time it reappears after an interval without it. */
    for (int l = 0; l < s->len; l++) {
        int t[2] = {s->iv[l].a, s->iv[l].b};
        for (int k = 0; k < 2; k++) {
            int i = t[k];
            if (i < 0 || i >= s->n)
                continue;
            if (last[i] >= 0 && last[i] < l - 1) {
                total++;
                if (per_task)
                    per_task[i]++;
            }
            last[i] = l;
        }
    }
    free(last);
    return total;
}

int ms_cosched_validate(const ms_cosched_instance *in, const ms_cosched_schedule *s,
                        int nonpreemptive, ms_error *err)
{
    if (s->n != in->n)
        return ms_error_set(err, MS_EINVAL, "schedule has %d tasks, instance %d", s->n, in->n);
    double *prog = calloc((size_t)in->n + 1, sizeof *prog);
    if (!prog)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    int rc = MS_OK;
    for (int l = 0; l < s->len && !rc; l++) {
        const ms_cosched_interval *v = &s->iv[l];
        if (!isfinite(v->d) || v->d < 0)
            rc = ms_error_set(err, MS_EINVAL, "interval %d: bad duration %g", l, v->d);
        else if (v->a < 0 || v->a >= in->n || v->b < -1 || v->b >= in->n || v->a == v->b)
            rc = ms_error_set(err, MS_EINVAL, "interval %d: bad running set {%d,%d}", l, v->a,
                              v->b);
        else if (v->b < 0)
            prog[v->a] += v->d;
        else {
            prog[v->a] += v->d * ms_cosched_s(in, v->a, v->b);
            prog[v->b] += v->d * ms_cosched_s(in, v->b, v->a);
        }
    }
    for (int i = 0; i < in->n && !rc; i++)
        if (fabs(prog[i] - in->p[i]) > 1e-6 * in->p[i])
            rc = ms_error_set(err, MS_EINVAL, "task '%s' progresses %.9g, needs exactly %.9g",
                              in->names[i], prog[i], in->p[i]);
    free(prog);
    if (!rc && nonpreemptive) {
        int *per = malloc(sizeof *per * (size_t)(in->n + 1));
        if (!per)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        ms_cosched_preemptions(s, per);
        for (int i = 0; i < in->n && !rc; i++)
            if (per[i])
                rc = ms_error_set(err, MS_EINVAL, "task '%s' is preempted %d time(s)", in->names[i],
                                  per[i]);
        free(per);
    }
    return rc;
}

int ms_cosched_schedule_write_json(const ms_cosched_instance *in, const ms_cosched_schedule *s,
                                   const char *algorithm, FILE *f, ms_error *err)
{
    int *per = malloc(sizeof *per * (size_t)(in->n + 1));
    json_t *root = json_object(), *ivs = json_array(), *pre = json_object();
    if (!per || !root || !ivs || !pre) {
        free(per);
        json_decref(root);
        json_decref(ivs);
        json_decref(pre);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    int total = ms_cosched_preemptions(s, per);
    double t = 0;
    for (int l = 0; l < s->len; l++) {
        const ms_cosched_interval *v = &s->iv[l];
        json_t *run = json_array();
        json_array_append_new(run, json_string(in->names[v->a]));
        if (v->b >= 0)
            json_array_append_new(run, json_string(in->names[v->b]));
        json_array_append_new(
            ivs, json_pack("{s:f, s:f, s:o}", "start", t, "duration", v->d, "running", run));
        t += v->d;
    }
    for (int i = 0; i < in->n; i++)
        if (per[i])
            json_object_set_new(pre, in->names[i], json_integer(per[i]));
    json_object_set_new(root, "format", json_string("migsched-cosched-schedule/1"));
    json_object_set_new(root, "algorithm", json_string(algorithm));
    json_object_set_new(root, "tasks", json_integer(in->n));
    json_object_set_new(root, "makespan", json_real(ms_cosched_makespan(s)));
    json_object_set_new(root, "preemptions", json_integer(total));
    json_object_set_new(root, "preempted_tasks", pre);
    json_object_set_new(root, "intervals", ivs);
    free(per);
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(root);
    fputc('\n', f);
    return rc ? ms_error_set(err, MS_EIO, "cannot write the schedule") : MS_OK;
}
