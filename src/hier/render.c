/* render.c: a hierarchical plan as concrete MIG instances on a GPU model (a schedule the
 * validator and `migsched run` take) with the MPS share of every job in its launch line. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/hier.h"

void ms_hier_exec_fini(ms_hier_exec *x)
{
    if (!x)
        return;
    ms_schedule_free(x->schedule);
    ms_workload_free(x->workload);
    free(x->mps_daemon);
    memset(x, 0, sizeof *x);
}

int ms_hier_render_pct(const ms_hier_setup *s, int k)
{
    int pct = s->slot[k].pct;
    if (s->layout != MS_HIER_SHARED || pct == 0)
        return pct == 100 && s->c == 1 ? 0 : pct;
    /* One 7g compute instance stands for the 3g and 4g ones: scale by GPCs over 7. */
    int v = (int)lround(pct * s->ci[s->slot[k].ci].gpcs / 7.0);
    return v < 1 ? 1 : v;
}

/* The profile of `slices` compute slices with the least memory, or -1. */
static int profile_of(const ms_gpu_model *gpu, int slices)
{
    return slices <= MS_MAX_SLICES ? gpu->base_profile[slices] : -1;
}

/* Appends printf-style text to a growing string; 0 on success. */
static int appendf(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *nb = realloc(*buf, *len + (size_t)need + 1);
    if (!nb)
        return -1;
    va_start(ap, fmt);
    vsnprintf(nb + *len, (size_t)need + 1, fmt, ap);
    va_end(ap);
    *buf = nb;
    *len += (size_t)need;
    return 0;
}

/* A shell-quoted copy of s ('...' with ' written as '\''). */
static char *quote(const char *s)
{
    size_t n = 3;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = 0;
    return q;
}

/* The launch line of the jobs `slots` of group g: each job in the background with its
 * thread percentage, then a wait on each, failing if any failed. NULL command when a job
 * has none. */
static int batch_command(const ms_hier_group *g, const ms_hier_window *w, const int *slots, int n,
                         char **out)
{
    *out = NULL;
    if (!w->commands)
        return 0;
    for (int i = 0; i < n; i++)
        if (!w->commands[g->job[slots[i]]])
            return 0;
    if (n == 1 && ms_hier_render_pct(&g->setup, slots[0]) == 0) /* alone, no limit */
        return (*out = strdup(w->commands[g->job[slots[0]]])) ? 0 : MS_ENOMEM;
    char *buf = NULL;
    size_t len = 0;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char *q = quote(w->commands[g->job[slots[i]]]);
        int pct = ms_hier_render_pct(&g->setup, slots[i]);
        if (!q)
            rc = -1;
        else if (pct > 0)
            rc = appendf(&buf, &len, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d sh -c %s & p%d=$!; ",
                         pct, q, i);
        else
            rc = appendf(&buf, &len, "sh -c %s & p%d=$!; ", q, i);
        free(q);
    }
    if (!rc)
        rc = appendf(&buf, &len, "rc=0;");
    for (int i = 0; i < n && !rc; i++)
        rc = appendf(&buf, &len, " wait $p%d || rc=1;", i);
    if (!rc)
        rc = appendf(&buf, &len, " exit $rc");
    if (rc) {
        free(buf);
        return MS_ENOMEM;
    }
    *out = buf;
    return 0;
}

int ms_hier_render(const ms_hier_plan *p, const ms_hier_window *w, const ms_gpu_model *gpu,
                   ms_hier_exec *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    int p7 = profile_of(gpu, 7), p4 = profile_of(gpu, 4), p3 = profile_of(gpu, 3);
    if (p7 < 0 || p4 < 0 || p3 < 0)
        return ms_error_set(
            err, MS_EINVAL,
            "GPU %s has no 7-, 4- and 3-slice profiles: paper 004's setups need an A100-class GPU",
            gpu->name);
    /* 4g and 3g side by side: the first allowed starts whose slots do not overlap. */
    ms_placement pl4 = {p4, gpu->profiles[p4].starts[0]}, pl3 = {p3, -1};
    for (int i = 0; i < gpu->profiles[p3].nstarts && pl3.start < 0; i++) {
        ms_placement t = {p3, gpu->profiles[p3].starts[i]};
        if (!(ms_gpu_slot_mask(gpu, t) & ms_gpu_slot_mask(gpu, pl4)))
            pl3 = t;
    }
    if (pl3.start < 0)
        return ms_error_set(err, MS_EINVAL, "GPU %s: no 3-slice placement beside the 4-slice one",
                            gpu->name);
    ms_placement pl7 = {p7, gpu->profiles[p7].starts[0]};
    out->schedule = ms_schedule_new(gpu, 1, "hier");
    out->workload = ms_workload_new();
    int cap = (int)p->n * 2 + 1;
    out->mps_daemon = calloc((size_t)cap, sizeof *out->mps_daemon);
    if (!out->schedule || !out->workload || !out->mps_daemon) {
        ms_hier_exec_fini(out);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    int rc = MS_OK;
    double t = 0;
    for (size_t gi = 0; gi < p->n && !rc; gi++) {
        const ms_hier_group *g = &p->groups[gi];
        int private = g->setup.layout == MS_HIER_PRIVATE;
        int ninst = private ? 2 : 1, ids[2];
        double end = t;
        /* creations one after another, then each instance's batch of jobs */
        for (int k = 0; k < ninst && !rc; k++) {
            ms_placement pl = !private ? pl7 : g->setup.ci[k].gpcs == 3 ? pl3 : pl4;
            int slices = gpu->profiles[pl.profile].slices;
            double c0 = t, c1 = t + ms_gpu_create_time(gpu, slices);
            t = c1;
            ids[k] = ms_schedule_add_instance(out->schedule, 0, pl.profile, pl.start, c0, c1, NAN,
                                              NAN);
            int slots[MS_HIER_MAX_C], n = 0;
            double dur = 0;
            char name[MS_HIER_MAX_C * MS_HIER_NAME_LEN + 16];
            size_t at = (size_t)snprintf(name, sizeof name, "g%zu-", gi + 1);
            for (int s = 0; s < g->c; s++) {
                if (private && g->setup.slot[s].ci != k)
                    continue;
                slots[n++] = s;
                dur = fmax(dur, g->time[s]);
                at += (size_t)snprintf(name + at, sizeof name - at, "%s%s", n > 1 ? "+" : "",
                                       w->jobs[g->job[s]].name);
            }
            out->mps_daemon[ids[k]] = n > 1 ||
                                      (n == 1 && ms_hier_render_pct(&g->setup, slots[0]) > 0);
            double times[MS_MAX_SLICES + 1];
            for (int s = 0; s <= MS_MAX_SLICES; s++)
                times[s] = INFINITY;
            times[slices] = dur;
            char *cmd;
            if (batch_command(g, w, slots, n, &cmd))
                rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            if (!rc)
                rc = ms_workload_add(out->workload, name, times, cmd, NULL, err);
            free(cmd);
            if (!rc &&
                ms_schedule_add_task(out->schedule, out->workload->n - 1, ids[k], c1, c1 + dur))
                rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            end = fmax(end, c1 + dur);
        }
        /* destructions one after another once the group is done */
        t = end;
        for (int k = 0; k < ninst && !rc; k++) {
            ms_sched_instance *in = &out->schedule->inst[ids[k]];
            in->destroy_start = t;
            t += ms_gpu_destroy_time(gpu, gpu->profiles[in->profile].slices);
            in->destroy_end = t;
        }
    }
    if (rc)
        ms_hier_exec_fini(out);
    return rc;
}
