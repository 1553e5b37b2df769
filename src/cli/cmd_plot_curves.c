/* cmd_plot_curves.c: `migsched plot --curves LOG,...`: learning curves of training progress
 * logs (train's PPO lines, hier train's DQN lines) as one SVG chart. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "migsched/learn.h"
#include "migsched/plot.h"

#define MAX_LOGS 32

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched plot --curves LOG[,LOG...] -o FILE.svg [--x steps|cpu]\n"
               "                     [--y p_opt|throughput] [--label NAME,...] [--title TEXT]\n"
               "  Draws one curve per training log (the progress lines of `migsched train` or\n"
               "  `migsched hier train` on stderr, optionally prefixed \"UNIXTIME cpu=SECONDS \")\n"
               "  against environment steps (default) or CPU seconds.\n"
               "  --y      p_opt (train's evaluation, %%) or throughput (hier train's); default:\n"
               "           what the first log holds\n"
               "  --label  one legend name per log (default: each file's name without .log)\n");
}

/* Splits a comma-separated list in place; returns the count, or -1 for an empty item or
 * more than max. */
static int split(char *s, char **items, int max)
{
    int n = 0;
    for (char *p = s;; p++) {
        char *c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (!*p || n == max)
            return -1;
        items[n++] = p;
        if (!c)
            return n;
        p = c;
    }
}

/* The file's name without its folder and a ".log" ending. */
static char *default_label(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".log"))
        n -= 4;
    return strndup(b, n);
}

typedef struct curve_args {
    char *logs[MAX_LOGS], *labels[MAX_LOGS];
    int nlogs, nlabels;
    bool x_cpu;
    int y; /* 0 not given, 1 p_opt, 2 throughput */
    const char *out, *title;
} curve_args;

const struct option cmd_plot_curves_options[] = {
    {"curves", 1, 0, 'c'}, CLI_LONG_OUTPUT,      {"x", 1, 0, 'x'},    {"y", 1, 0, 'y'},
    {"label", 1, 0, 'l'},  {"title", 1, 0, 't'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};

static int parse_args(int argc, char **argv, curve_args *a)
{
    cli_common co = {.cmd = "plot", .takes = CLI_OUTPUT};
    optind = 1;
    int ch;
    while ((ch = cli_next_option(&co, argc, argv, "o:h", cmd_plot_curves_options, NULL)) != -1) {
        const char *bad = NULL;
        switch (ch) {
        case 'c':
            if ((a->nlogs = split(optarg, a->logs, MAX_LOGS)) < 0)
                bad = "--curves: an empty log name or more than 32 logs";
            break;
        case 'l':
            if ((a->nlabels = split(optarg, a->labels, MAX_LOGS)) < 0)
                bad = "--label: an empty name or more than 32 names";
            break;
        case 't': a->title = optarg; break;
        case 'x':
            if (strcmp(optarg, "steps") && strcmp(optarg, "cpu"))
                bad = "--x takes steps or cpu";
            a->x_cpu = !strcmp(optarg, "cpu");
            break;
        case 'y':
            a->y = !strcmp(optarg, "p_opt") ? 1 : !strcmp(optarg, "throughput") ? 2 : 0;
            if (!a->y)
                bad = "--y takes p_opt or throughput";
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad)
            return cli_usage_error("plot", NULL, "%s", bad);
    }
    if (co.status)
        return co.status;
    a->out = co.output;
    const char *bad = optind < argc ? "a schedule file does not go with --curves"
                      : !a->out     ? "-o FILE.svg is required"
                      : a->nlabels && a->nlabels != a->nlogs ? "--label needs one name per log"
                                                             : NULL;
    if (bad)
        return cli_usage_error("plot", usage, "%s", bad);
    return -1;
}

/* The log's points on the chart's axes; fails naming the line that lacks a value. */
static int take_points(const char *path, const ms_progress_log *log, const curve_args *a, double *x,
                       double *y)
{
    for (int k = 0; k < log->n; k++) {
        const ms_progress_point *p = &log->pts[k];
        x[k] = a->x_cpu ? p->cpu : (double)p->steps;
        y[k] = a->y == 1 ? p->p_opt : p->throughput;
        if (isnan(x[k])) {
            fprintf(stderr,
                    "migsched plot: %s:%d: no CPU time on this progress line (neither "
                    "train's 'cpu X s' nor a 'cpu=' prefix): draw it with --x steps\n",
                    path, p->line);
            return 1;
        }
        if (isnan(y[k])) {
            fprintf(stderr, "migsched plot: %s:%d: no %s on this progress line (--y %s)\n", path,
                    p->line, a->y == 1 ? "p_opt" : "throughput",
                    a->y == 1 ? "throughput" : "p_opt");
            return 1;
        }
    }
    return 0;
}

int cmd_plot_curves(int argc, char **argv)
{
    curve_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    ms_progress_log logs[MAX_LOGS] = {{0}};
    ms_plot_series s[MAX_LOGS] = {{0}};
    char *names[MAX_LOGS] = {0};
    ms_error err;
    rc = 1;
    for (int i = 0; i < a.nlogs; i++) {
        if (ms_progress_log_read(a.logs[i], &logs[i], &err)) {
            fprintf(stderr, "migsched plot: %s\n", err.msg);
            goto out;
        }
        if (!a.y)
            a.y = isnan(logs[i].pts[0].p_opt) ? 2 : 1;
        double *xy = malloc(2 * (size_t)logs[i].n * sizeof *xy);
        names[i] = a.nlabels ? NULL : default_label(a.logs[i]);
        s[i] = (ms_plot_series){.label = a.nlabels ? a.labels[i] : names[i],
                                .x = xy,
                                .y = xy ? xy + logs[i].n : NULL,
                                .n = logs[i].n};
        if (!xy || !s[i].label) {
            fprintf(stderr, "migsched plot: out of memory\n");
            goto out;
        }
        if (take_points(a.logs[i], &logs[i], &a, xy, xy + logs[i].n))
            goto out;
    }
    char title[160];
    snprintf(title, sizeof title, "%s against %s",
             a.y == 1 ? "p_opt on the evaluation set" : "throughput on the test windows",
             a.x_cpu ? "CPU time" : "environment steps");
    ms_plot_chart chart = {
        .title = a.title ? a.title : title,
        .xlabel = a.x_cpu ? "CPU time (s, user + system, every resumed run)" : "environment steps",
        .ylabel = a.y == 1 ? "p_opt (%, lower is better)" : "throughput (higher is better)",
        .xname = a.x_cpu ? "cpu s" : "steps",
        .yname = a.y == 1 ? "p_opt %" : "throughput",
    };
    if (ms_plot_curves_write_file(a.out, &chart, s, a.nlogs, &err)) {
        fprintf(stderr, "migsched plot: %s\n", err.msg);
        goto out;
    }
    rc = 0;
out:
    for (int i = 0; i < a.nlogs; i++) {
        ms_progress_log_fini(&logs[i]);
        free((void *)s[i].x);
        free(names[i]);
    }
    return rc;
}
