/* plot_internal.h: pieces shared by the SVG and HTML schedule plots. */
#ifndef MIGSCHED_PLOT_INTERNAL_H
#define MIGSCHED_PLOT_INTERNAL_H

#include <stdio.h>

#include "migsched/plot.h"

/* Writes text with XML special characters escaped. */
void ms_plot_escape(FILE *f, const char *text);
/* The <svg> element alone (no XML declaration), for embedding. */
void ms_plot_svg_element(const ms_schedule *s, const ms_plot_labels *lab, FILE *f);

#endif
