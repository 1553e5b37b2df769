/* sweep_svg.c: the sweep's curves as one SVG of the chart writer: five panels against
 * offered load (turnaround, mean wait, the worst profile's p99 wait, utilisation,
 * fragmentation), a line per policy. */
#include "internal.h"

#include <stdlib.h>

#include "migsched/chart.h"

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

enum { NMETRICS = 5 };

/* Five panels, two a row, a line per policy, the legend right of the top row. */
int ms_online_sweep_write_svg(const ms_online_sweep *s, const ms_online_point *pts,
                              const char *path, const char *title, ms_error *err)
{
    static const char *const labels[NMETRICS] = {
        "mean turnaround (s)", "mean wait (s)", "p99 wait of the worst profile (s)",
        "utilisation (busy slice-s / available)", "fragmentation (mean F)"};
    int npts = s->npolicies * s->nloads;
    double *v = malloc(sizeof(double) * (size_t)npts * (NMETRICS + 1));
    ms_chart_series *ser = malloc(sizeof *ser * (size_t)(NMETRICS * s->npolicies));
    if (!v || !ser) {
        free(v), free(ser);
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    }
    for (int k = 0; k < npts; k++) {
        v[k] = pts[k].load;
        for (int m = 0; m < NMETRICS; m++)
            v[(size_t)(m + 1) * (size_t)npts + (size_t)k] = metric(&pts[k], m);
    }
    ms_chart_panel p[NMETRICS];
    ms_chart_axis load = {"offered load",          "load", MS_CHART_LINEAR, s->loads[0],
                          s->loads[s->nloads - 1], true};
    for (int m = 0; m < NMETRICS; m++) {
        for (int i = 0; i < s->npolicies; i++)
            ser[m * s->npolicies + i] = (ms_chart_series){pts[i * s->nloads].label,
                                                          v + i * s->nloads,
                                                          v + (size_t)(m + 1) * (size_t)npts +
                                                              (size_t)(i * s->nloads),
                                                          s->nloads,
                                                          NULL,
                                                          MS_CHART_POINTS};
        /* Utilisation and fragmentation are fractions: their axes reach 1 at least. */
        ms_chart_axis y = {NULL, "y", MS_CHART_LINEAR, 0, m >= 3 ? 1 : NAN, false};
        p[m] = (ms_chart_panel){labels[m],    load, y, ser + m * s->npolicies,
                                s->npolicies, NULL, 0, NULL};
    }
    char full[256];
    snprintf(full, sizeof full, "%s (x: offered load)", title);
    ms_chart c = {.title = full,
                  .columns = 2,
                  .panel_width = 420,
                  .panel_height = 220,
                  .shared_legend = true};
    int rc = ms_chart_write_file(path, &c, p, NMETRICS, err);
    free(v), free(ser);
    return rc;
}
