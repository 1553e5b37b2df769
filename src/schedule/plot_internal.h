/* plot_internal.h: pieces shared by the SVG and HTML schedule plots and the line charts. */
#ifndef MIGSCHED_PLOT_INTERNAL_H
#define MIGSCHED_PLOT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/plot.h"

/* Whether text ends in suffix, ignoring case. */
bool plot_ends_with(const char *text, const char *suffix);

/* The <svg> element alone (no XML declaration), for embedding. */
void plot_svg_element(const ms_schedule *s, const ms_plot_labels *lab, FILE *f);

#endif
