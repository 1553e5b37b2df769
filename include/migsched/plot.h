/* plot.h: schedule drawings (the papers' figures): SVG, and self-contained HTML with
 * hover details; line charts (learning curves) as SVG through the chart writer. Part of the
 * schedule module (src/schedule/plot_*.c). */
#ifndef MIGSCHED_PLOT_H
#define MIGSCHED_PLOT_H

#include <stdio.h>

#include "migsched/error.h"
#include "migsched/schedule.h"

/* What the schedule itself does not hold. */
typedef struct ms_plot_labels {
    const ms_workload *w;     /* names from here when set, else from names[] */
    const char *const *names; /* per input task index; NULL or a NULL entry: "task <i>" */
    int nnames;
    double l_bound;    /* NAN: not marked */
    const char *title; /* NULL: the algorithm's name */
} ms_plot_labels;

/* One panel per GPU: compute slices (rows) against time, a box per task with its name,
 * creation and destruction periods in their own colours, makespan and lower bound
 * marked. Every element carries a <title> (task, instance, start, end). */
int ms_plot_svg(const ms_schedule *s, const ms_plot_labels *lab, FILE *f, ms_error *err);
/* The same drawing inline in one HTML file with a hover tooltip; no external resources. */
int ms_plot_html(const ms_schedule *s, const ms_plot_labels *lab, FILE *f, ms_error *err);

/* Writes path all-or-nothing: HTML when it ends in .html/.htm, SVG when .svg, else
 * MS_EINVAL. */
int ms_plot_write_file(const char *path, const ms_schedule *s, const ms_plot_labels *lab,
                       ms_error *err);

/* ---- Line charts (learning curves): src/schedule/plot_curves.c. ---- */
typedef struct ms_plot_series {
    const char *label;   /* in the legend and every point's <title> */
    const double *x, *y; /* n points, drawn in this order */
    int n;
} ms_plot_series;

typedef struct ms_plot_chart {
    const char *title, *xlabel, *ylabel; /* NULL: none */
    const char *xname, *yname;           /* short names in the points' <title>s */
} ms_plot_chart;

/* One chart of the chart writer (migsched/chart.h): a polyline (class "curve") per series,
 * a circle per point, round ticks with a grid, the frame (class "frame"; x from 0, y over
 * the data's range), axis labels and a legend; MS_EINVAL on a non-finite point or no point
 * at all. */
int ms_plot_curves_svg(const ms_plot_chart *c, const ms_plot_series *s, int ns, FILE *f,
                       ms_error *err);
/* Writes path (which must end in .svg) all-or-nothing. */
int ms_plot_curves_write_file(const char *path, const ms_plot_chart *c, const ms_plot_series *s,
                              int ns, ms_error *err);

/* Labels from the workload the schedule was made for: names and migsched's l_bound. */
void ms_plot_labels_from_workload(const ms_schedule *s, const ms_workload *w, ms_plot_labels *out);

#endif
