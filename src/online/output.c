/* output.c: what a simulation writes: the per-job CSV, the timeline CSV, and an SVG of
 * system fragmentation, instance counts and desired against actual instances per profile
 * over time with migration decisions marked (paper 002 Figs. 6, 8), the SVG through the
 * chart writer. */
#include "internal.h"

#include <stdlib.h>

#include "migsched/chart.h"
#include "migsched/io.h"

int ms_online_write_jobs_csv(const char *path, const ms_gpu_model *m, const ms_online_workload *w,
                             const ms_online_result *r, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    fprintf(o.f, "name,arrival,profile,work,start,end,wait,exec,turnaround,gpu,migrations\n");
    for (int j = 0; j < w->n; j++) {
        const ms_online_job *jb = &w->jobs[j];
        const char *name = ms_online_job_name(w, j);
        if (name)
            fprintf(o.f, "%s,", name);
        else
            fprintf(o.f, "job%d,", j);
        fprintf(o.f, "%.6f,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%d\n", jb->arrival,
                m->profiles[jb->profile].name, jb->work, r->start[j], r->end[j],
                r->start[j] - jb->arrival, r->end[j] - r->start[j], r->end[j] - jb->arrival,
                r->gpu[j], r->migrations[j]);
    }
    return ms_output_commit(&o, err);
}

/* Profiles that ever had a job or an instance: the ones the timeline shows. */
static int shown_profiles(const ms_gpu_model *m, const ms_online_result *r, int *out)
{
    int n = 0;
    for (int p = 0; p < m->nprofiles; p++)
        for (int i = 0; i < r->nsamples; i++)
            if (r->samples[i].desired[p] || r->samples[i].actual[p]) {
                out[n++] = p;
                break;
            }
    return n;
}

/* A file drawn from the timeline needs one recorded. */
static int need_timeline(const char *path, const ms_online_result *r, ms_error *err)
{
    if (r->nsamples == 0)
        return ms_error_set(err, MS_EINVAL, "%s: no timeline recorded (empty workload?)", path);
    return MS_OK;
}

int ms_online_write_timeline_csv(const char *path, const ms_gpu_model *m, const ms_online_result *r,
                                 ms_error *err)
{
    ms_output o;
    int rc = need_timeline(path, r, err);
    if (!rc)
        rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    int shown[MS_MAX_PROFILES], ns = shown_profiles(m, r, shown);
    fprintf(o.f, "t,fragmentation,instances,busy,queued");
    for (int i = 0; i < ns; i++)
        fprintf(o.f, ",desired_%s,actual_%s", m->profiles[shown[i]].name,
                m->profiles[shown[i]].name);
    fprintf(o.f, "\n");
    for (int k = 0; k < r->nsamples; k++) {
        const ms_online_sample *v = &r->samples[k];
        fprintf(o.f, "%.6f,%.6f,%d,%d,%d", v->t, v->frag, v->instances, v->busy, v->queued);
        for (int i = 0; i < ns; i++)
            fprintf(o.f, ",%d,%d", v->desired[shown[i]], v->actual[shown[i]]);
        fprintf(o.f, "\n");
    }
    return ms_output_commit(&o, err);
}

#define SVG_MAX_POINTS 4000 /* long runs are thinned to this many points per line */

/* 0 fragmentation, 1 instances, 2 busy, 3 queued; 4 + 2p desired, 5 + 2p actual of p */
static double field(const ms_online_sample *s, int which)
{
    if (which >= 4)
        return which % 2 ? s->actual[(which - 4) / 2] : s->desired[(which - 4) / 2];
    return which == 0 ? s->frag : which == 1 ? s->instances : which == 2 ? s->busy : s->queued;
}

/* The timeline's values thinned to at most SVG_MAX_POINTS samples: times, then one row per
 * drawn field (the 4 system fields, then desired and actual of each shown profile). */
typedef struct timeline_data {
    int n, nfields;
    double *t, *v, *marks;
} timeline_data;

static int thin(const ms_online_result *r, const int *shown, int ns, timeline_data *d)
{
    int stride = r->nsamples / SVG_MAX_POINTS + 1;
    d->n = (r->nsamples + stride - 1) / stride;
    d->nfields = 4 + 2 * ns;
    d->t = malloc(sizeof(double) * (size_t)d->n * (size_t)(1 + d->nfields));
    d->marks = malloc(sizeof(double) * (size_t)(r->nmig > 0 ? r->nmig : 1));
    if (!d->t || !d->marks)
        return MS_ENOMEM;
    d->v = d->t + d->n;
    for (int k = 0; k < d->n; k++) {
        const ms_online_sample *smp = &r->samples[k * stride];
        d->t[k] = smp->t;
        for (int i = 0; i < d->nfields; i++) {
            int which = i < 4 ? i : 4 + 2 * shown[(i - 4) / 2] + (i - 4) % 2;
            d->v[(size_t)i * (size_t)d->n + (size_t)k] = field(smp, which);
        }
    }
    for (int i = 0; i < r->nmig; i++)
        d->marks[i] = r->mig[i].t;
    return MS_OK;
}

static ms_chart_series step_line(const timeline_data *d, int i, const char *label,
                                 const char *colour, unsigned style)
{
    return (ms_chart_series){label, d->t,   d->v + (size_t)i * (size_t)d->n,
                             d->n,  colour, MS_CHART_STEPS | style};
}

/* Paper 002 Figs. 6 and 8: fragmentation with the migrations marked, the instance counts,
 * and per profile the jobs wanting an instance (dashed) against its instances (solid). */
static int write_svg(const char *path, const ms_gpu_model *m, const ms_online_result *r,
                     const char *title, ms_error *err)
{
    int shown[MS_MAX_PROFILES], ns = shown_profiles(m, r, shown);
    timeline_data d = {0};
    ms_chart_series sys[4], prof[2 * MS_MAX_PROFILES];
    char names[2 * MS_MAX_PROFILES][64];
    int rc = thin(r, shown, ns, &d);
    if (rc) {
        free(d.t), free(d.marks);
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    }
    sys[0] = step_line(&d, 0, "fragmentation", "#000", 0);
    sys[1] = step_line(&d, 1, "instances", NULL, 0);
    sys[2] = step_line(&d, 2, "busy instances", NULL, 0);
    sys[3] = step_line(&d, 3, "queued jobs", NULL, 0);
    for (int i = 0; i < 2 * ns; i++) {
        snprintf(names[i], sizeof names[i], "%s %s", m->profiles[shown[i / 2]].name,
                 i % 2 ? "actual" : "desired");
        prof[i] = step_line(&d, 4 + i, names[i], ms_chart_colour(i / 2),
                            i % 2 ? 0 : MS_CHART_DASHED);
    }
    ms_chart_axis time = {
        "time (s)", "t", MS_CHART_LINEAR, r->samples[0].t, r->samples[r->nsamples - 1].t, true};
    ms_chart_panel p[3] = {
        {"system fragmentation (mean F(g)); red marks: migrations",
         time,
         {NULL, "F", MS_CHART_LINEAR, 0, 1, true},
         sys,
         1,
         d.marks,
         r->nmig,
         "migration"},
        {"instances, busy instances and queued jobs",
         time,
         {NULL, "count", MS_CHART_LINEAR, 0, 1, false},
         sys + 1,
         3,
         NULL,
         0,
         NULL},
        {"desired (dashed) and actual (solid) instances per profile",
         time,
         {NULL, "instances", MS_CHART_LINEAR, 0, 1, false},
         prof,
         2 * ns,
         NULL,
         0,
         NULL},
    };
    char note[160];
    snprintf(note, sizeof note, "time %.0f s to %.0f s; %ld migrations, %ld reconfigurations",
             time.lo, time.hi, r->total_migrations, r->reconfigurations);
    ms_chart c = {.title = title, .note = note, .panel_width = 640, .panel_height = 200};
    rc = ms_chart_write_file(path, &c, p, 3, err);
    free(d.t), free(d.marks);
    return rc;
}

int ms_online_write_svg(const char *path, const ms_gpu_model *m, const ms_online_result *r,
                        const char *title, ms_error *err)
{
    int rc = need_timeline(path, r, err);
    return rc ? rc : write_svg(path, m, r, title, err);
}
