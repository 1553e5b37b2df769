/* chart_internal.h: what the chart writer's drawing takes from its axes. */
#ifndef MIGSCHED_CHART_INTERNAL_H
#define MIGSCHED_CHART_INTERNAL_H

#include <stddef.h>

#include "migsched/chart.h"

/* Whether v can be placed on the axis (finite; positive on a log axis). */
bool chart_drawable(const ms_chart_axis *a, double v);
/* Where v lies between the fitted bounds: 0 at lo, 1 at hi. */
double chart_fraction(const ms_chart_axis *a, const ms_chart_ticks *t, double v);
/* A tick's text: 2500000 as "2.5M" and 25000 as "25k" on a linear axis reaching that far,
 * so that the labels stay short. */
void chart_tick_text(const ms_chart_axis *a, const ms_chart_ticks *t, double v, char *buf,
                     size_t len);

#endif
