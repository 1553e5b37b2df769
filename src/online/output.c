/* output.c: what a simulation writes: the per-job CSV and an SVG of system fragmentation
 * and instance counts over time with migration decisions marked (paper 002 Figs. 6, 8).
 * The SVG is written by hand: a few polylines need no library. */
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

static double field(const ms_online_sample *s, int which)
{
    return which == 0 ? s->frag : which == 1 ? s->instances : which == 2 ? s->busy : s->queued;
}

/* A step line (values hold until the next sample). */
static void polyline(FILE *f, const svg_frame *fr, const ms_online_result *r, int which,
                     const char *color)
{
    int stride = r->nsamples / SVG_MAX_POINTS + 1;
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"", color);
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

static void write_svg(FILE *f, const ms_online_result *r, const char *title)
{
    svg_frame top = {r->samples[0].t, r->samples[r->nsamples - 1].t, 40, 1.0};
    svg_frame bot = top;
    bot.top = top.top + SVG_PANEL_H + 50;
    bot.ymax = 1;
    for (int i = 0; i < r->nsamples; i++)
        for (int k = 1; k <= 3; k++)
            bot.ymax = field(&r->samples[i], k) > bot.ymax ? field(&r->samples[i], k) : bot.ymax;
    double h = bot.top + SVG_PANEL_H + 50;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", SVG_W, h);
    fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">%s</text>\n", SVG_LEFT, title);
    axes(f, &top, "system fragmentation (mean F(g)); red marks: migrations", "1");
    char ymax[32];
    snprintf(ymax, sizeof ymax, "%.0f", bot.ymax);
    axes(f, &bot, "instances (blue), busy instances (green), queued jobs (orange)", ymax);
    for (int i = 0; i < r->nmig; i++) {
        double x = sx(&top, r->mig[i].t);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"red\" "
                   "stroke-opacity=\"0.5\"/>\n", x, top.top + SVG_PANEL_H - 12, x,
                top.top + SVG_PANEL_H);
    }
    for (int k = 0; k <= 5; k++) {  /* time ticks under both panels */
        double t = top.t0 + (top.t1 - top.t0) * k / 5, x = sx(&top, t);
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f s</text>\n", x,
                top.top + SVG_PANEL_H + 14, t);
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f s</text>\n", x,
                bot.top + SVG_PANEL_H + 14, t);
    }
    polyline(f, &top, r, 0, "black");
    polyline(f, &bot, r, 1, "#1f77b4");
    polyline(f, &bot, r, 2, "#2ca02c");
    polyline(f, &bot, r, 3, "#ff7f0e");
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">time %.0f s to %.0f s; %ld migrations, %ld "
               "reconfigurations</text>\n", SVG_LEFT, h - 12, top.t0, top.t1,
            r->total_migrations, r->reconfigurations);
    fprintf(f, "</svg>\n");
}

int ms_online_write_svg(const char *path, const ms_online_result *r, const char *title,
                        ms_error *err)
{
    if (r->nsamples == 0)
        return ms_error_set(err, MS_EINVAL, "%s: no timeline recorded (empty workload?)", path);
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    write_svg(o.f, r, title);
    return ms_output_commit(&o, err);
}
