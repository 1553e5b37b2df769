/* plot_curves.c: learning curves as one chart of the chart writer: a line with points per
 * series, x from 0, a legend and a title; same input, same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "migsched/chart.h"
#include "migsched/io.h"
#include "migsched/plot.h"
#include "plot_internal.h"

/* Every point must be finite and one at least given: a curve has no gaps to skip. */
static int check_points(const ms_plot_series *s, int ns, ms_error *err)
{
    int points = 0;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].n; k++, points++)
            if (!isfinite(s[i].x[k]) || !isfinite(s[i].y[k]))
                return ms_error_set(err, MS_EINVAL, "%s: point %d is not finite", s[i].label,
                                    k + 1);
    if (!points)
        return ms_error_set(err, MS_EINVAL, "a chart needs at least one point");
    return MS_OK;
}

int ms_plot_curves_svg(const ms_plot_chart *c, const ms_plot_series *s, int ns, FILE *f,
                       ms_error *err)
{
    int rc = check_points(s, ns, err);
    if (rc)
        return rc;
    ms_chart_series *series = calloc((size_t)ns, sizeof *series);
    if (!series)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; i < ns; i++)
        series[i] = (ms_chart_series){s[i].label, s[i].x, s[i].y, s[i].n, NULL, MS_CHART_POINTS};
    ms_chart_panel panel = {
        .x = {c->xlabel, c->xname, MS_CHART_LINEAR, 0, NAN, false}, /* steps and CPU from 0 */
        .y = {c->ylabel, c->yname, MS_CHART_LINEAR, NAN, NAN, false},
        .series = series,
        .nseries = ns,
    };
    ms_chart chart = {.title = c->title};
    rc = ms_chart_svg(&chart, &panel, 1, f, err);
    free(series);
    return rc;
}

int ms_plot_curves_write_file(const char *path, const ms_plot_chart *c, const ms_plot_series *s,
                              int ns, ms_error *err)
{
    if (!plot_ends_with(path, ".svg"))
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
