/* chart_axis.c: the chart writer's axes: round bounds and ticks, linear or log, for data in
 * a range, and where a value falls between them. */
#include <math.h>
#include <stdio.h>

#include "chart_internal.h"

double ms_chart_nice_step(double span, int ticks)
{
    double raw = span / ticks, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

bool chart_drawable(const ms_chart_axis *a, double v)
{
    return isfinite(v) && (a->scale != MS_CHART_LOG || v > 0);
}

static void widen(double *min, double *max, double v)
{
    *min = isnan(*min) ? v : fmin(*min, v);
    *max = isnan(*max) ? v : fmax(*max, v);
}

/* [*min, *max] widened to hold the axis' own values, or the fixed range alone. */
static void hold_hints(const ms_chart_axis *a, double *min, double *max)
{
    if (a->fixed) {
        *min = a->lo, *max = a->hi;
        return;
    }
    if (chart_drawable(a, a->lo))
        widen(min, max, a->lo);
    if (chart_drawable(a, a->hi))
        widen(min, max, a->hi);
}

static void add_tick(ms_chart_ticks *t, double v)
{
    if (t->n < MS_CHART_MAX_TICKS)
        t->at[t->n++] = v;
}

static void fit_linear(const ms_chart_axis *a, double min, double max, int ticks, ms_chart_ticks *t)
{
    if (isnan(min))
        min = 0, max = 1;
    if (max <= min) { /* a flat range still gets a band around it; 0 stays the bottom */
        double pad = fabs(max) > 0 ? fabs(max) * 0.05 : 1;
        min -= min == 0 ? 0 : pad;
        max += pad;
    }
    double step = ms_chart_nice_step(max - min, ticks);
    t->lo = a->fixed ? min : floor(min / step) * step;
    t->hi = a->fixed ? max : ceil(max / step) * step;
    t->n = 0;
    for (double k = ceil(t->lo / step - 1e-9); k <= floor(t->hi / step + 1e-9); k++)
        add_tick(t, fabs(k) < 0.5 ? 0 : k * step);
}

static void fit_log(const ms_chart_axis *a, double min, double max, int ticks, ms_chart_ticks *t)
{
    if (isnan(min))
        min = 1, max = 10;
    double elo = floor(log10(min) + 1e-9), ehi = ceil(log10(max) - 1e-9);
    if (ehi <= elo)
        ehi = elo + 1;
    t->lo = a->fixed && max > min ? min : pow(10, elo);
    t->hi = a->fixed && max > min ? max : pow(10, ehi);
    t->n = 0;
    if (ehi - elo < 3) { /* few decades: 1, 2 and 5 times each */
        for (double e = elo; e <= ehi; e++)
            for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
                double v = m * pow(10, e);
                if (v >= t->lo * (1 - 1e-9) && v <= t->hi * (1 + 1e-9))
                    add_tick(t, v);
            }
        return;
    }
    double every = ehi - elo > ticks + 2 ? ceil(ms_chart_nice_step(ehi - elo, ticks)) : 1;
    for (double e = ceil(elo / every) * every; e <= ehi; e += every)
        if (pow(10, e) >= t->lo * (1 - 1e-9) && pow(10, e) <= t->hi * (1 + 1e-9))
            add_tick(t, pow(10, e));
}

void ms_chart_fit(const ms_chart_axis *a, double min, double max, int ticks, ms_chart_ticks *out)
{
    hold_hints(a, &min, &max);
    ticks = ticks > 2 ? ticks : 2;
    if (a->scale == MS_CHART_LOG)
        fit_log(a, min, max, ticks, out);
    else
        fit_linear(a, min, max, ticks, out);
}

double chart_fraction(const ms_chart_axis *a, const ms_chart_ticks *t, double v)
{
    if (a->scale == MS_CHART_LOG)
        return (log10(v) - log10(t->lo)) / (log10(t->hi) - log10(t->lo));
    return (v - t->lo) / (t->hi - t->lo);
}

void chart_tick_text(const ms_chart_axis *a, const ms_chart_ticks *t, double v, char *buf,
                     size_t len)
{
    double reach = fmax(fabs(t->lo), fabs(t->hi));
    if (a->scale == MS_CHART_LOG || reach < 1e4)
        snprintf(buf, len, "%g", v);
    else if (v == 0)
        snprintf(buf, len, "0");
    else if (reach >= 1e6)
        snprintf(buf, len, "%gM", v / 1e6);
    else
        snprintf(buf, len, "%gk", v / 1e3);
}
