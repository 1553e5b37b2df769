/* output.c: what a simulation writes: the per-job CSV, the timeline CSV, and an SVG of
 * system fragmentation, instance counts and desired against actual instances per profile
 * over time with migration decisions marked (paper 002 Figs. 6, 8). The SVG is written by
 * hand: a few polylines need no library. */
#include "internal.h"

#include "migsched/io.h"

int ms_online_write_jobs_csv(const char *path, const ms_gpu_model *m,
                             const ms_online_workload *w, const ms_online_result *r,
                             ms_error *err)
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

/* Opens the output of a file drawn from the timeline, which must have been recorded. */
static int open_timeline(ms_output *o, const char *path, const ms_online_result *r,
                         ms_error *err)
{
    if (r->nsamples == 0)
        return ms_error_set(err, MS_EINVAL, "%s: no timeline recorded (empty workload?)", path);
    return ms_output_open(o, path, err);
}

int ms_online_write_timeline_csv(const char *path, const ms_gpu_model *m,
                                 const ms_online_result *r, ms_error *err)
{
    ms_output o;
    int rc = open_timeline(&o, path, r, err);
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

#define SVG_W 900.0
#define SVG_LEFT 60.0
#define SVG_PLOT_W (SVG_W - SVG_LEFT - 40.0)
#define SVG_PANEL_H 200.0
#define SVG_MAX_POINTS 4000  /* long runs are thinned to this many points per line */

typedef struct svg_frame {
    double t0, t1, top, ymax;
} svg_frame;

static double sx(const svg_frame *f, double t)
{
    return SVG_LEFT + (f->t1 > f->t0 ? (t - f->t0) / (f->t1 - f->t0) : 0) * SVG_PLOT_W;
}

static double sy(const svg_frame *f, double v) { return f->top + SVG_PANEL_H * (1 - v / f->ymax); }

/* 0 fragmentation, 1 instances, 2 busy, 3 queued; 4 + 2p desired, 5 + 2p actual of p */
static double field(const ms_online_sample *s, int which)
{
    if (which >= 4)
        return which % 2 ? s->actual[(which - 4) / 2] : s->desired[(which - 4) / 2];
    return which == 0 ? s->frag : which == 1 ? s->instances : which == 2 ? s->busy : s->queued;
}

/* A step line (values hold until the next sample). */
static void polyline(FILE *f, const svg_frame *fr, const ms_online_result *r, int which,
                     const char *color, const char *dash)
{
    int stride = r->nsamples / SVG_MAX_POINTS + 1;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\"%s points=\"",
            color, dash);
    double prev = 0;
    for (int i = 0; i < r->nsamples; i += stride) {
        double v = field(&r->samples[i], which), x = sx(fr, r->samples[i].t);
        if (i > 0)
            fprintf(f, "%.1f,%.1f ", x, sy(fr, prev));
        fprintf(f, "%.1f,%.1f ", x, sy(fr, v));
        prev = v;
    }
    fprintf(f, "\"/>\n");
}

static void axes(FILE *f, const svg_frame *fr, const char *label, const char *ymax_text)
{
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
               "stroke=\"#888\"/>\n", SVG_LEFT, fr->top, SVG_PLOT_W, SVG_PANEL_H);
    fprintf(f, "<text x=\"5\" y=\"%.0f\">%s</text>\n", fr->top + 14, ymax_text);
    fprintf(f, "<text x=\"5\" y=\"%.0f\">0</text>\n", fr->top + SVG_PANEL_H);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", SVG_LEFT + 5,
            fr->top - 6, label);
}

static const char *const profile_colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                             "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

static void ticks(FILE *f, const svg_frame *fr)
{
    for (int k = 0; k <= 5; k++) {
        double t = fr->t0 + (fr->t1 - fr->t0) * k / 5;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f s</text>\n",
                sx(fr, t), fr->top + SVG_PANEL_H + 14, t);
    }
}

static double panel_max(const ms_online_result *r, const int *which, int n)
{
    double top = 1;
    for (int i = 0; i < r->nsamples; i++)
        for (int k = 0; k < n; k++)
            top = field(&r->samples[i], which[k]) > top ? field(&r->samples[i], which[k]) : top;
    return top;
}

/* Paper 002 Fig. 6: per profile, jobs wanting an instance (dashed) and instances (solid). */
static void desired_panel(FILE *f, const svg_frame *fr, const ms_gpu_model *m,
                          const ms_online_result *r, const int *shown, int ns)
{
    char ymax[32], label[512];
    snprintf(ymax, sizeof ymax, "%.0f", fr->ymax);
    int len = snprintf(label, sizeof label, "desired (dashed) and actual (solid) instances:");
    for (int i = 0; i < ns && len < (int)sizeof label - 40; i++)
        len += snprintf(label + len, sizeof label - (size_t)len, " <tspan fill=\"%s\">%s</tspan>",
                        profile_colors[i % 8], m->profiles[shown[i]].name);
    axes(f, fr, label, ymax);
    ticks(f, fr);
    for (int i = 0; i < ns; i++) {
        polyline(f, fr, r, 4 + 2 * shown[i], profile_colors[i % 8], " stroke-dasharray=\"4 3\"");
        polyline(f, fr, r, 5 + 2 * shown[i], profile_colors[i % 8], "");
    }
}

static void write_svg(FILE *f, const ms_gpu_model *m, const ms_online_result *r,
                      const char *title)
{
    svg_frame top = {r->samples[0].t, r->samples[r->nsamples - 1].t, 40, 1.0};
    svg_frame mid = top, bot = top;
    mid.top = top.top + SVG_PANEL_H + 50;
    bot.top = mid.top + SVG_PANEL_H + 50;
    mid.ymax = panel_max(r, (const int[]){1, 2, 3}, 3);
    int shown[MS_MAX_PROFILES], ns = shown_profiles(m, r, shown), which[2 * MS_MAX_PROFILES];
    for (int i = 0; i < ns; i++) {
        which[2 * i] = 4 + 2 * shown[i];
        which[2 * i + 1] = 5 + 2 * shown[i];
    }
    bot.ymax = panel_max(r, which, 2 * ns);
    double h = bot.top + SVG_PANEL_H + 50;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", SVG_W, h);
    fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">%s</text>\n", SVG_LEFT, title);
    axes(f, &top, "system fragmentation (mean F(g)); red marks: migrations", "1");
    char ymax[32];
    snprintf(ymax, sizeof ymax, "%.0f", mid.ymax);
    axes(f, &mid, "instances (blue), busy instances (green), queued jobs (orange)", ymax);
    for (int i = 0; i < r->nmig; i++) {
        double x = sx(&top, r->mig[i].t);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"red\" "
                   "stroke-opacity=\"0.5\"/>\n", x, top.top + SVG_PANEL_H - 12, x,
                top.top + SVG_PANEL_H);
    }
    ticks(f, &top);
    ticks(f, &mid);
    polyline(f, &top, r, 0, "black", "");
    polyline(f, &mid, r, 1, "#1f77b4", "");
    polyline(f, &mid, r, 2, "#2ca02c", "");
    polyline(f, &mid, r, 3, "#ff7f0e", "");
    desired_panel(f, &bot, m, r, shown, ns);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">time %.0f s to %.0f s; %ld migrations, %ld "
               "reconfigurations</text>\n", SVG_LEFT, h - 12, top.t0, top.t1,
            r->total_migrations, r->reconfigurations);
    fprintf(f, "</svg>\n");
}

int ms_online_write_svg(const char *path, const ms_gpu_model *m, const ms_online_result *r,
                        const char *title, ms_error *err)
{
    ms_output o;
    int rc = open_timeline(&o, path, r, err);
    if (rc)
        return rc;
    write_svg(o.f, m, r, title);
    return ms_output_commit(&o, err);
}
