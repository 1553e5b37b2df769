/* plot_internal.h: pieces shared by the SVG and HTML schedule plots and the line charts. */
#ifndef MIGSCHED_PLOT_INTERNAL_H
#define MIGSCHED_PLOT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/plot.h"

/* Writes text with XML special characters escaped. */
void ms_plot_escape(FILE *f, const char *text);
/* Series and task colours (Tableau's): entry i % MS_PLOT_NCOLOURS. */
#define MS_PLOT_NCOLOURS 12
extern const char *const ms_plot_palette[MS_PLOT_NCOLOURS];
/* A round tick step (1, 2 or 5 times a power of ten) giving about `ticks` ticks over span. */
double ms_plot_nice_step(double span, int ticks);
/* Whether text ends in suffix, ignoring case. */
bool ms_plot_ends_with(const char *text, const char *suffix);

/* The <svg> element alone (no XML declaration), for embedding. */
void ms_plot_svg_element(const ms_schedule *s, const ms_plot_labels *lab, FILE *f);

#endif
