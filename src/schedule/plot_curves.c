/* plot_curves.c: a line chart as SVG (learning curves): one polyline per series over round
 * ticks, grid, axis labels, a legend and a title; same input, same bytes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/plot.h"
#include "plot_internal.h"

enum { LEFT = 80, TOP = 46, PW = 600, PH = 360, GAP = 24, LEGEND_W = 240, BOTTOM = 56 };
#define WIDTH (LEFT + PW + GAP + LEGEND_W)
#define HEIGHT (TOP + PH + BOTTOM)

typedef struct axis {
    double lo, hi, step;
} axis;

/* Round bounds holding [min, max]; from 0 when from_zero (steps and CPU start there). */
static void set_axis(axis *a, double min, double max, bool from_zero, int ticks)
{
    if (from_zero)
        min = 0;
    if (max <= min) { /* a flat curve still gets a band around it */
        double pad = fabs(max) > 0 ? fabs(max) * 0.05 : 1;
        min = from_zero ? 0 : min - pad;
        max += pad;
    }
    a->step = ms_plot_nice_step(max - min, ticks);
    a->lo = floor(min / a->step) * a->step;
    a->hi = ceil(max / a->step) * a->step;
}

static double px(const axis *a, double x) { return LEFT + (x - a->lo) / (a->hi - a->lo) * PW; }
static double py(const axis *a, double y) { return TOP + PH - (y - a->lo) / (a->hi - a->lo) * PH; }

/* 2500000 as "2.5M", 25000 as "25k": step counts stay short under their ticks. */
static void tick_text(double v, double hi, char *buf, size_t len)
{
    if (fabs(v) < 1e-9 * hi)
        snprintf(buf, len, "0");
    else if (hi >= 1e6)
        snprintf(buf, len, "%gM", v / 1e6);
    else if (hi >= 1e4)
        snprintf(buf, len, "%gk", v / 1e3);
    else
        snprintf(buf, len, "%g", v);
}

static void draw_axes(FILE *f, const ms_plot_chart *c, const axis *ax, const axis *ay)
{
    char t[32];
    /* About 6 each; the cap only guards against rounding at extreme magnitudes. */
    int nx = (int)fmin(lround((ax->hi - ax->lo) / ax->step), 50);
    int ny = (int)fmin(lround((ay->hi - ay->lo) / ay->step), 50);
    for (int k = 0; k <= nx; k++) {
        double v = ax->lo + k * ax->step, x = px(ax, v);
        tick_text(v, ax->hi, t, sizeof t);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#e4e4e4\"/>"
                   "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
                x, TOP, x, TOP + PH, x, TOP + PH + 16, t);
    }
    for (int k = 0; k <= ny; k++) {
        double v = ay->lo + k * ay->step, y = py(ay, v);
        tick_text(v, fmax(fabs(ay->lo), fabs(ay->hi)), t, sizeof t);
        fprintf(f, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"#e4e4e4\"/>"
                   "<text x=\"%d\" y=\"%.2f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                LEFT, y, LEFT + PW, y, LEFT - 6, y + 4, t);
    }
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#444\"/>\n", LEFT, TOP, PW, PH);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">", LEFT + PW / 2,
            TOP + PH + 38);
    ms_plot_escape(f, c->xlabel ? c->xlabel : "");
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
               "transform=\"rotate(-90 %d %d)\">", 22, TOP + PH / 2, 22, TOP + PH / 2);
    ms_plot_escape(f, c->ylabel ? c->ylabel : "");
    fputs("</text>\n", f);
}

static void draw_series(FILE *f, const ms_plot_chart *c, const ms_plot_series *s, int i,
                        const axis *ax, const axis *ay)
{
    const char *colour = ms_plot_palette[i % MS_PLOT_NCOLOURS];
    fprintf(f, "<polyline class=\"curve\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
               "points=\"", colour);
    for (int k = 0; k < s->n; k++)
        fprintf(f, "%s%.2f,%.2f", k ? " " : "", px(ax, s->x[k]), py(ay, s->y[k]));
    fputs("\"><title>", f);
    ms_plot_escape(f, s->label);
    fputs("</title></polyline>\n", f);
    for (int k = 0; k < s->n; k++) {
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"><title>",
                px(ax, s->x[k]), py(ay, s->y[k]), colour);
        ms_plot_escape(f, s->label);
        fprintf(f, ": %s %.6g, %s %.6g</title></circle>\n", c->xname ? c->xname : "x", s->x[k],
                c->yname ? c->yname : "y", s->y[k]);
    }
    /* The legend entry, in the column right of the chart. */
    int y = TOP + 8 + 20 * i;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>"
               "<text x=\"%d\" y=\"%d\" font-size=\"12\">", LEFT + PW + GAP, y,
            LEFT + PW + GAP + 26, y, colour, LEFT + PW + GAP + 32, y + 4);
    ms_plot_escape(f, s->label);
    fputs("</text>\n", f);
}

int ms_plot_curves_svg(const ms_plot_chart *c, const ms_plot_series *s, int ns, FILE *f,
                       ms_error *err)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].n; k++) {
            if (!isfinite(s[i].x[k]) || !isfinite(s[i].y[k]))
                return ms_error_set(err, MS_EINVAL, "%s: point %d is not finite", s[i].label,
                                    k + 1);
            xmin = fmin(xmin, s[i].x[k]);
            xmax = fmax(xmax, s[i].x[k]);
            ymin = fmin(ymin, s[i].y[k]);
            ymax = fmax(ymax, s[i].y[k]);
        }
    if (!isfinite(xmin))
        return ms_error_set(err, MS_EINVAL, "a chart needs at least one point");
    axis ax, ay;
    set_axis(&ax, xmin, xmax, xmin >= 0, 6);
    set_axis(&ay, ymin, ymax, false, 6);
    int height = HEIGHT > TOP + 8 + 20 * ns + 20 ? HEIGHT : TOP + 8 + 20 * ns + 20;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n<rect width=\"%d\" "
               "height=\"%d\" fill=\"#fff\"/>\n<text x=\"%d\" y=\"24\" font-size=\"14\" "
               "font-weight=\"bold\">", WIDTH, height, WIDTH, height, WIDTH, height, LEFT);
    ms_plot_escape(f, c->title ? c->title : "");
    fputs("</text>\n", f);
    draw_axes(f, c, &ax, &ay);
    for (int i = 0; i < ns; i++)
        draw_series(f, c, &s[i], i, &ax, &ay);
    fputs("</svg>\n", f);
    if (ferror(f))
        return ms_error_set(err, MS_EIO, "cannot write the SVG");
    return MS_OK;
}

int ms_plot_curves_write_file(const char *path, const ms_plot_chart *c, const ms_plot_series *s,
                              int ns, ms_error *err)
{
    if (!ms_plot_ends_with(path, ".svg"))
        return ms_error_set(err, MS_EINVAL, "%s: the chart file must end in .svg", path);
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    rc = ms_plot_curves_svg(c, s, ns, o.f, err);
    if (rc) {
        ms_output_abort(&o);
        ms_error_prefix(err, "%s", path);
        return rc;
    }
    return ms_output_commit(&o, err);
}
