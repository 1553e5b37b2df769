/* svg.c: a small self-contained SVG writer: line charts (experiment figures) and a two-stream
 * Gantt chart of a co-schedule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "migsched/cosched.h"
#include "migsched/io.h"

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define W 680
#define H 420
#define ML 70
#define MR 170
#define MT 40
#define MB 55

/* Escapes text for SVG. */
static void text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

/* A step of 1, 2 or 5 times a power of ten giving about five ticks over span. */
static double nice_step(double span)
{
    double raw = span / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

typedef struct axis {
    double lo, hi;
    int log;
} axis;

static double map(const axis *a, double v, double from, double to)
{
    double t = a->log ? (log10(v) - a->lo) / (a->hi - a->lo) : (v - a->lo) / (a->hi - a->lo);
    return from + t * (to - from);
}

static void range(int ns, const ms_svg_series *s, int y, int logy, axis *a)
{
    a->lo = INFINITY, a->hi = -INFINITY, a->log = logy;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].len; i++) {
            double v = y ? s[k].y[i] : s[k].x[i];
            if (!isfinite(v) || (logy && v <= 0))
                continue;
            v = logy ? log10(v) : v;
            a->lo = fmin(a->lo, v), a->hi = fmax(a->hi, v);
        }
    if (!isfinite(a->lo))
        a->lo = 0, a->hi = 1;
    if (logy) {
        a->lo = floor(a->lo), a->hi = ceil(a->hi);
        if (a->hi <= a->lo)
            a->hi = a->lo + 1;
        return;
    }
    double pad = (a->hi - a->lo) * 0.05;
    if (pad == 0)
        pad = fabs(a->hi) * 0.05 + 0.5;
    a->lo -= pad, a->hi += pad;
    double step = nice_step(a->hi - a->lo);
    a->lo = floor(a->lo / step) * step, a->hi = ceil(a->hi / step) * step;
}

static void draw_axes(FILE *f, const axis *ax, const axis *ay, const char *xl, const char *yl)
{
    int x0 = ML, x1 = W - MR, y0 = H - MB, y1 = MT;
    fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n", x0,
            y1, x1 - x0, y0 - y1);
    double step = nice_step(ax->hi - ax->lo);
    for (double v = ax->lo; v <= ax->hi + step * 1e-6; v += step) {
        double px = map(ax, v, x0, x1);
        fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#444'/>", px, y0, px, y0 + 5);
        fprintf(f, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%g</text>\n", px,
                y0 + 18, fabs(v) < step * 1e-6 ? 0 : v);
    }
    double ystep = ay->log ? 1 : nice_step(ay->hi - ay->lo);
    for (double v = ay->lo; v <= ay->hi + ystep * 1e-6; v += ystep) {
        double py = ay->log ? map(ay, pow(10, v), y0, y1) : map(ay, v, y0, y1);
        fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>", x0, py, x1, py);
        fprintf(f, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%g</text>\n", x0 - 6,
                py + 4, ay->log ? pow(10, v) : (fabs(v) < ystep * 1e-6 ? 0 : v));
    }
    fprintf(f, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>", (x0 + x1) / 2, H - 15);
    text(f, xl);
    fprintf(f, "</text>\n<text x='16' y='%d' font-size='12' text-anchor='middle' "
               "transform='rotate(-90 16 %d)'>", (y0 + y1) / 2, (y0 + y1) / 2);
    text(f, yl);
    fprintf(f, "</text>\n");
}

int ms_svg_line_chart(const char *path, const char *title, const char *xlabel,
                      const char *ylabel, int logy, int ns, const ms_svg_series *s,
                      ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    FILE *f = o.f;
    axis ax, ay;
    range(ns, s, 0, 0, &ax);
    range(ns, s, 1, logy, &ay);
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
               "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
            W, H);
    fprintf(f, "<text x='%d' y='24' font-size='14' text-anchor='middle'>", (ML + W - MR) / 2);
    text(f, title);
    fprintf(f, "</text>\n");
    draw_axes(f, &ax, &ay, xlabel, ylabel);
    for (int k = 0; k < ns; k++) {
        const char *col = palette[k % 8];
        fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", col);
        for (int i = 0; i < s[k].len; i++)
            if (isfinite(s[k].y[i]) && (!logy || s[k].y[i] > 0))
                fprintf(f, "%.1f,%.1f ", map(&ax, s[k].x[i], ML, W - MR),
                        map(&ay, s[k].y[i], H - MB, MT));
        fprintf(f, "'/>\n");
        for (int i = 0; i < s[k].len; i++)
            if (isfinite(s[k].y[i]) && (!logy || s[k].y[i] > 0))
                fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>",
                        map(&ax, s[k].x[i], ML, W - MR), map(&ay, s[k].y[i], H - MB, MT), col);
        int ly = MT + 10 + 20 * k;
        fprintf(f, "\n<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2'/>",
                W - MR + 12, ly, W - MR + 32, ly, col);
        fprintf(f, "<text x='%d' y='%d' font-size='12'>", W - MR + 38, ly + 4);
        text(f, s[k].name);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
    return ms_output_commit(&o, err);
}

int ms_cosched_plot(const ms_cosched_instance *in, const ms_cosched_schedule *s,
                    const char *title, const char *path, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    FILE *f = o.f;
    double total = ms_cosched_makespan(s), t = 0;
    if (total <= 0)
        total = 1;
    int x0 = 20, x1 = 1000, lane_y[2] = {50, 110}, lane_h = 50, prev[2] = {-1, -1};
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='1020' height='200' "
               "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n"
               "<text x='20' y='24' font-size='14'>");
    text(f, title);
    fprintf(f, " (makespan %.6g, %d preemptions)</text>\n", ms_cosched_makespan(s),
            ms_cosched_preemptions(s, NULL));
    for (int l = 0; l < s->len; l++) {
        const ms_cosched_interval *v = &s->iv[l];
        /* Keep a task in the stream it already occupies. */
        int lane[2] = {0, 1}, task[2] = {v->a, v->b};
        if (v->a == prev[1] || (v->b >= 0 && v->b == prev[0]))
            lane[0] = 1, lane[1] = 0;
        double px = x0 + (x1 - x0) * t / total, w = (x1 - x0) * v->d / total;
        int cur[2] = {-1, -1};
        for (int k = 0; k < 2; k++) {
            if (task[k] < 0)
                continue;
            cur[lane[k]] = task[k];
            unsigned h = 2166136261u;
            for (const char *c = in->names[task[k]]; *c; c++)
                h = (h ^ (unsigned char)*c) * 16777619u;
            fprintf(f, "<rect x='%.2f' y='%d' width='%.2f' height='%d' fill='hsl(%u,60%%,70%%)' "
                       "stroke='#333' stroke-width='0.5'><title>",
                    px, lane_y[lane[k]], w, lane_h, h % 360);
            text(f, in->names[task[k]]);
            fprintf(f, " %.6g..%.6g</title></rect>", t, t + v->d);
            if (w > 40) {
                fprintf(f, "<text x='%.2f' y='%d' font-size='10'>", px + 2, lane_y[lane[k]] + 28);
                text(f, in->names[task[k]]);
                fprintf(f, "</text>");
            }
            fputc('\n', f);
        }
        prev[0] = cur[0], prev[1] = cur[1];
        t += v->d;
    }
    fprintf(f, "<text x='%d' y='185' font-size='11'>0</text><text x='%d' y='185' font-size='11' "
               "text-anchor='end'>%.6g</text>\n</svg>\n", x0, x1, total);
    return ms_output_commit(&o, err);
}
