/* cmd_plot.c: `migsched plot`: draws a schedule file as SVG or self-contained HTML (and
 * hands `--curves` over to cmd_plot_curves.c). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/plot.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched plot SCHEDULE.json -o FILE.svg|FILE.html [--workload FILE]\n"
               "                     [--gpu MODEL] [--title TEXT]\n"
               "  Draws the schedule: per GPU, compute slices against time, one box per task,\n"
               "  instance creations (cyan) and destructions (red), the makespan and the lower\n"
               "  bound. HTML is one self-contained page with details on hover.\n"
               "  Task names and the lower bound come from the schedule file (its \"name\" and\n"
               "  \"l_bound\" fields) or, with --workload, from the workload.\n"
               "  --gpu names the model when the schedule's gpu_model is not built in.\n"
               "       migsched plot --curves LOG[,LOG...] -o FILE.svg [--x steps|cpu]\n"
               "                     [--y p_opt|throughput] [--label NAME,...] [--title TEXT]\n"
               "  Learning curves of training logs (see migsched plot --curves --help).\n");
}

/* Task names (by input index) and l_bound as the schedule file states them. */
typedef struct file_labels {
    char **names;
    int n;
    double l_bound;
} file_labels;

static void file_labels_free(file_labels *fl)
{
    for (int i = 0; i < fl->n; i++)
        free(fl->names[i]);
    free(fl->names);
}

static int read_file_labels(const char *path, const ms_schedule *s, file_labels *fl)
{
    memset(fl, 0, sizeof *fl);
    fl->l_bound = NAN;
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return MS_EINVAL;
    json_t *lb = json_object_get(root, "l_bound");
    if (json_is_number(lb))
        fl->l_bound = json_number_value(lb);
    int max = -1;
    for (int i = 0; i < s->ntasks; i++)
        max = s->task[i].index > max ? s->task[i].index : max;
    fl->n = max + 1;
    fl->names = calloc((size_t)(fl->n > 0 ? fl->n : 1), sizeof *fl->names);
    json_t *tasks = json_object_get(root, "tasks"), *t;
    size_t k;
    json_array_foreach(tasks, k, t)
    {
        json_t *name = json_object_get(t, "name"), *index = json_object_get(t, "index");
        if (!fl->names || !json_is_string(name) || !json_is_integer(index))
            continue;
        json_int_t i = json_integer_value(index);
        if (i >= 0 && i < fl->n && !fl->names[i])
            fl->names[i] = strdup(json_string_value(name));
    }
    json_decref(root);
    return MS_OK;
}

const struct option cmd_plot_options[] = {CLI_LONG_OUTPUT,
                                          {"workload", required_argument, 0, 'w'},
                                          CLI_LONG_GPU,
                                          {"title", required_argument, 0, 't'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};

int cmd_plot(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--curves") || !strncmp(argv[i], "--curves=", 9))
            return cmd_plot_curves(argc, argv);
    const char *wpath = NULL, *title = NULL;
    cli_common co = {.cmd = "plot", .takes = CLI_GPU | CLI_OUTPUT};
    int c, rc;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "o:w:g:t:h", cmd_plot_options, NULL)) != -1) {
        switch (c) {
        case 'w': wpath = optarg; break;
        case 't': title = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    const char *out = co.output, *gpu_name = co.gpu;
    if (!out || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    const char *spath = argv[optind];
    ms_error err = {0};
    ms_gpu_model model, *gpu = NULL;
    if (gpu_name) {
        if (ms_gpu_lookup(gpu_name, &model, &err)) {
            fprintf(stderr, "migsched plot: %s\n", err.msg);
            return 1;
        }
        gpu = &model;
    }
    ms_schedule *s = NULL;
    ms_workload *w = NULL;
    file_labels fl = {0};
    rc = 1;
    if (ms_schedule_read_json(spath, gpu, &s, &err))
        goto fail;
    if (wpath && ms_workload_read(wpath, &s->gpu, &w, &err))
        goto fail;
    if (w && ms_schedule_match_workload(s, w, &err)) { /* else the labels would lie */
        ms_error_prefix(&err, "%s", spath);
        goto fail;
    }
    ms_plot_labels lab;
    if (w) {
        ms_plot_labels_from_workload(s, w, &lab);
    } else {
        read_file_labels(spath, s, &fl);
        lab = (ms_plot_labels){
            .names = (const char *const *)fl.names, .nnames = fl.n, .l_bound = fl.l_bound};
    }
    lab.title = title;
    if (ms_plot_write_file(out, s, &lab, &err))
        goto fail;
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "migsched plot: %s\n", err.msg);
done:
    file_labels_free(&fl);
    ms_workload_free(w);
    ms_schedule_free(s);
    return rc;
}
