/* capi_chart.c: line charts through the flat API (the chart writer of plot.h), for curves
 * a caller computed itself. */
#include "capi_internal.h"
#include "migsched/plot.h"

int msc_chart_svg(const char *title, const char *xlabel, const char *ylabel, int nseries,
                  const char *const *labels, const double *const *x, const double *const *y,
                  const int *n, char **svg)
{
    MSC_NEED(svg);
    *svg = NULL;
    if (nseries < 1 || nseries > 64)
        return msc_failf(MS_EINVAL, "%d series: give 1 to 64", nseries);
    MSC_NEED(labels);
    MSC_NEED(x);
    MSC_NEED(y);
    MSC_NEED(n);
    ms_plot_series series[64];
    for (int k = 0; k < nseries; k++) {
        if (!labels[k] || n[k] < 0 || (n[k] && (!x[k] || !y[k])))
            return msc_failf(MS_EINVAL, "series %d: a label and n >= 0 points are needed", k);
        series[k] = (ms_plot_series){labels[k], x[k], y[k], n[k]};
    }
    ms_plot_chart chart = {title, xlabel, ylabel, xlabel, ylabel};
    msc_text t;
    if (msc_text_open(&t))
        return MS_ENOMEM;
    ms_error err;
    if (ms_plot_curves_svg(&chart, series, nseries, t.f, &err)) {
        msc_text_drop(&t);
        return msc_fail(&err);
    }
    return msc_text_take(&t, svg);
}
