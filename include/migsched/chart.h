/* chart.h: the one SVG chart writer: panels of line and point series over linear or log
 * axes with round ticks, a legend, and escaped text; same input, same bytes. Part of the
 * schedule module (src/schedule/chart*.c); the learning curves, the online timelines and
 * sweeps and the co-scheduling figures all draw through it. */
#ifndef MIGSCHED_CHART_H
#define MIGSCHED_CHART_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/error.h"

/* Writes text with the XML specials (& < > " ') escaped; control characters, which XML 1.0
 * forbids, become '?'. */
void ms_svg_escape(FILE *f, const char *text);
/* The i-th colour of the series palette (Tableau's 12, repeating). */
const char *ms_chart_colour(int i);
/* A round tick step (1, 2 or 5 times a power of ten) giving about `ticks` ticks over span. */
double ms_chart_nice_step(double span, int ticks);

typedef enum ms_chart_scale { MS_CHART_LINEAR, MS_CHART_LOG } ms_chart_scale;

typedef struct ms_chart_axis {
    const char *label; /* under (x) or beside (y) the panel; NULL: none */
    const char *name;  /* the value's short name in the points' <title>s; NULL: "x", "y" */
    ms_chart_scale scale;
    double lo, hi; /* values the axis must hold besides the data; NAN: none */
    bool fixed;    /* exactly [lo, hi] (both finite) instead of rounding out to ticks */
} ms_chart_axis;

/* An axis fitted to its data: bounds and the values that get a tick and a grid line. */
#define MS_CHART_MAX_TICKS 64
typedef struct ms_chart_ticks {
    double lo, hi;
    int n;
    double at[MS_CHART_MAX_TICKS];
} ms_chart_ticks;

/* Fits a to data in [min, max] (NAN, NAN: no data) with about `ticks` ticks. Linear:
 * bounds rounded out to a round step, ticks at its multiples. Log: bounds rounded out to
 * powers of ten, a tick at each (every 2nd, 5th... when they are many more than `ticks`;
 * also at 2 and 5 times them when they are under three). A flat range gets a band. */
void ms_chart_fit(const ms_chart_axis *a, double min, double max, int ticks, ms_chart_ticks *out);

/* Series style flags. */
enum {
    MS_CHART_POINTS = 1, /* a circle per point, with a <title> naming it */
    MS_CHART_STEPS = 2,  /* values hold until the next point (a staircase) */
    MS_CHART_DASHED = 4,
};

typedef struct ms_chart_series {
    const char *label;   /* legend entry and <title>s; NULL: no legend entry */
    const double *x, *y; /* n points in this order; a non-finite one (or one <= 0 on a log
                          * axis) is left out */
    int n;
    const char *colour; /* NULL: ms_chart_colour(its index in the panel) */
    unsigned style;     /* MS_CHART_* flags */
} ms_chart_series;

typedef struct ms_chart_panel {
    const char *title; /* above the panel; NULL: none */
    ms_chart_axis x, y;
    const ms_chart_series *series;
    int nseries;
    const double *marks; /* x values marked by short red ticks on the bottom edge */
    int nmarks;
    const char *marks_label; /* their legend entry; NULL: none */
} ms_chart_panel;

typedef struct ms_chart {
    const char *title;             /* at the top; NULL: none */
    const char *note;              /* a line at the bottom; NULL: none */
    int columns;                   /* panels per row, filled row by row; < 1: 1 */
    int panel_width, panel_height; /* each plot area in pixels; 0: 600 x 360 */
    bool shared_legend;            /* one legend (the first panel's entries) right of the top row,
                                    * instead of one right of each panel */
} ms_chart;

/* The panels as one SVG document: per panel a frame (class "frame"), grid and tick labels,
 * axis labels, a polyline per series (class "curve", titled by its label), its marks and
 * legend. MS_EINVAL on no panel; MS_EIO when f fails. */
int ms_chart_svg(const ms_chart *c, const ms_chart_panel *p, int np, FILE *f, ms_error *err);
/* Writes path all-or-nothing. */
int ms_chart_write_file(const char *path, const ms_chart *c, const ms_chart_panel *p, int np,
                        ms_error *err);

#endif
