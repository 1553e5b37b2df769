/* sweep_svg.c: the sweep's curves as one SVG: five panels against offered load (turnaround,
 * mean wait, the worst profile's p99 wait, utilisation, fragmentation), a line per policy.
 * Written by hand like output.c: polylines need no library. */
#include "internal.h"

#include "migsched/io.h"

#define PW 420.0   /* panel width, height, left margin */
#define PH 220.0
#define PL 70.0
#define COLS 2

static const char *const colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e",
                                     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

static double metric(const ms_online_point *pt, int which)
{
    switch (which) {
    case 0: return pt->turnaround;
    case 1: return pt->wait;
    case 2: {
        double worst = 0;
        for (int p = 0; p < MS_MAX_PROFILES; p++)
            if (!isnan(pt->p99_wait[p]) && pt->p99_wait[p] > worst)
                worst = pt->p99_wait[p];
        return worst;
    }
    case 3: return pt->utilisation;
    default: return pt->fragmentation;
    }
}

static void panel(FILE *f, const ms_online_sweep *s, const ms_online_point *pts, int which,
                  const char *label, double x0, double y0)
{
    double lo = s->loads[0], hi = s->loads[s->nloads - 1], ymax = which >= 3 ? 1 : 0;
    for (int k = 0; k < s->npolicies * s->nloads; k++)
        ymax = metric(&pts[k], which) > ymax ? metric(&pts[k], which) : ymax;
    ymax = ymax > 0 ? ymax * 1.05 : 1;
    double span = hi > lo ? hi - lo : 1;
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
               "stroke=\"#888\"/>\n", x0, y0, PW, PH);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", x0, y0 - 6,
            label);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.4g</text>\n", x0 - 4, y0 + 12,
            ymax);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">0</text>\n", x0 - 4, y0 + PH);
    for (int k = 0; k <= 4; k++) {
        double load = lo + span * k / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.2f</text>\n",
                x0 + PW * k / 4, y0 + PH + 14, load);
    }
    for (int i = 0; i < s->npolicies; i++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                colors[i % 8]);
        for (int l = 0; l < s->nloads; l++) {
            const ms_online_point *pt = &pts[i * s->nloads + l];
            fprintf(f, "%.1f,%.1f ", x0 + PW * (pt->load - lo) / span,
                    y0 + PH * (1 - metric(pt, which) / ymax));
        }
        fprintf(f, "\"/>\n");
    }
}

static void write_svg(FILE *f, const ms_online_sweep *s, const ms_online_point *pts,
                      const char *title)
{
    static const char *const labels[] = {"mean turnaround (s)", "mean wait (s)",
                                         "p99 wait of the worst profile (s)",
                                         "utilisation (busy slice-s / available)",
                                         "fragmentation (mean F)"};
    double w = PL + COLS * (PW + PL), h = 60 + 3 * (PH + 60) + 20;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n", w, h);
    fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">%s (x: offered load)</text>\n", PL,
            title);
    for (int k = 0; k < 5; k++)
        panel(f, s, pts, k, labels[k], PL + (k % COLS) * (PW + PL), 60 + (k / COLS) * (PH + 60));
    double lx = PL + PW + PL, ly = 60 + 2 * (PH + 60);  /* the legend in the sixth cell */
    for (int i = 0; i < s->npolicies; i++) {
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
                   "stroke-width=\"3\"/>\n", lx, ly + 20 * i, lx + 30, ly + 20 * i,
                colors[i % 8]);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", lx + 38, ly + 20 * i + 4,
                pts[i * s->nloads].label);
    }
    fprintf(f, "</svg>\n");
}

int ms_online_sweep_write_svg(const ms_online_sweep *s, const ms_online_point *pts,
                              const char *path, const char *title, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    write_svg(o.f, s, pts, title);
    return ms_output_commit(&o, err);
}
