/* hier_cli.h: what the `migsched hier` subcommands share (hier_cli.c below cmd_hier*.c). */
#ifndef MIGSCHED_CLI_HIER_H
#define MIGSCHED_CLI_HIER_H

#include <stdio.h>

#include "migsched/hier.h"

/* Where profiles and co-run times come from. */
typedef struct hier_sources {
    const char *catalogue; /* NULL = the built-in modelled catalogue */
    const char *corun;     /* NULL = the model */
    double gamma;
    double serial_width; /* hier.h's ms_hier_params.serial_width (0: none) */
} hier_sources;

/* Prints the usage of every hier subcommand on f. */
void hier_usage(FILE *f);
/* Prints the usage on stdout; returns 0. */
int hier_help(void);
/* Reads the options of a window's planning that hier and hier experiment share: --lookahead
 * K (1..8, the actions the agent tries per decision; 'L'), --lookahead-depth D (1..3, 'D'),
 * --catalogue ('C'), --corun ('r'), --gamma ('G') and --serial-width ('W'). -1: opt is none of
 * them; 0: read; 2 after a usage message. */
int hier_window_option(int opt, const char *arg, ms_hier_lookahead *la, hier_sources *src);
/* Their entries for a command's table of long options. */
/* clang-format off */
#define HIER_LONG_WINDOW_OPTIONS                                                       \
    {"catalogue", required_argument, 0, 'C'}, {"corun", required_argument, 0, 'r'},    \
    {"gamma", required_argument, 0, 'G'}, {"lookahead", required_argument, 0, 'L'},    \
    {"lookahead-depth", required_argument, 0, 'D'},                                    \
    {"serial-width", required_argument, 0, 'W'}
/* clang-format on */
/* Loads the catalogue and the co-run source; prints the error and returns 1 on failure. */
int hier_load_sources(const hier_sources *src, ms_hier_catalog *cat, ms_hier_corun **cr);
/* Writes DIR/plan.json, DIR/workload.json and DIR/mps.json for `migsched run`. */
int hier_write_exec(const ms_hier_plan *p, const ms_hier_window *w, const char *gpu_name,
                    const char *dir, ms_error *err);
int hier_experiment(int argc, char **argv);
int hier_train(int argc, char **argv); /* cmd_hier_train.c */
int hier_fit(int argc, char **argv);   /* cmd_hier_fit.c */

#endif
