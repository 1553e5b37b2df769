/* cmd_schedule.c: `migsched schedule`: plan a workload with an offline algorithm and show
 * or write the schedule (text: tree, Gantt and metrics; or migsched-schedule/1 JSON). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "migsched/io.h"
#include "migsched/offline.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched schedule WORKLOAD --gpu MODEL [--gpus G] [--algo NAME]\n"
            "                         [--batch N --concat trivial|reverse|overlap]\n"
            "                         [--refine-iters K] [--refine-min-gain X] [--seed S]\n"
            "                         [--tree] [--json] [-o FILE]\n"
            "  Plans WORKLOAD (CSV or JSON) on G GPUs (default 1) of MODEL (a built-in name or\n"
            "  a JSON model file) and checks the plan with the validator.\n"
            "  --algo NAME        offline algorithm (default far):");
    for (int i = 0; i < ms_offline_algo_count(); i++)
        fprintf(f, " %s", ms_offline_algo_at(i)->name);
    fprintf(f,
            "\n  --batch N          split the queue into batches of N tasks in input order\n"
            "  --concat MODE      how batches are joined (default trivial)\n"
            "  --refine-iters K   at most K refinement iterations (default: until no gain)\n"
            "  --refine-min-gain X stop refining when an iteration gains less than X (fraction)\n"
            "  --seed S           seed for randomised algorithms (FAR is deterministic)\n"
            "  --tree             print the repartitioning tree with each instance's tasks\n"
            "  --json             print the migsched-schedule/1 JSON instead of text\n"
            "  -o FILE            write the output to FILE (all or nothing) instead of stdout\n");
}

static int parse_int(const char *opt, const char *text, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || end == text || v < lo || v > hi) {
        fprintf(stderr, "migsched schedule: %s must be an integer in %d..%d, not '%s'\n", opt,
                lo, hi, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static void print_text(const ms_schedule *s, const ms_workload *w, bool tree, FILE *f)
{
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    fprintf(f, "%s on %d x %s: %d tasks\n\n", s->algorithm, s->gpus, s->gpu.name, w->n);
    if (tree) {
        ms_far_tree_print(s, w, f);
        fprintf(f, "\n");
    }
    ms_schedule_gantt(s, w, f, 72);
    fprintf(f, "\nmakespan          %.3f s\n", m.makespan);
    fprintf(f, "baseline          %.3f s\n", m.baseline);
    fprintf(f, "l_bound           %.3f s\n", m.l_bound);
    fprintf(f, "rho               %.4f   (makespan / baseline)\n", m.rho);
    fprintf(f, "p_opt             %.2f %%  (makespan / l_bound_paper - 1)\n", m.p_opt);
    fprintf(f, "reconfigurations  %d   (creations %d, destructions %d)\n", m.reconfigurations,
            m.creations, m.destructions);
    fprintf(f, "compute time      %.3f ms\n", ms_schedule_stat(s, "compute_seconds") * 1e3);
    for (int i = 0; i < s->nstats; i++)
        if (strcmp(s->stats[i].key, "compute_seconds"))
            fprintf(f, "%-17s %g\n", s->stats[i].key, s->stats[i].value);
}

static int emit(const ms_schedule *s, const ms_workload *w, bool json, bool tree,
                const char *path)
{
    ms_output out;
    ms_error err;
    if (ms_output_open(&out, path ? path : "-", &err)) {
        fprintf(stderr, "migsched schedule: %s\n", err.msg);
        return 1;
    }
    if (json) {
        if (ms_schedule_write_json(s, w, out.f, &err)) {
            ms_output_abort(&out);
            fprintf(stderr, "migsched schedule: %s\n", err.msg);
            return 1;
        }
    } else {
        print_text(s, w, tree, out.f);
    }
    if (ms_output_commit(&out, &err)) {
        fprintf(stderr, "migsched schedule: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* A schedule that fails the validator is a bug: say so rather than print it. */
static int check(const ms_schedule *s, const ms_workload *w)
{
    ms_validation v = {0};
    int bad = ms_schedule_validate(s, w, &v);
    for (int i = 0; i < v.n && i < 10; i++)
        fprintf(stderr, "migsched schedule: invalid plan (%s): %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_free(&v);
    return bad ? 1 : 0;
}

int cmd_schedule(int argc, char **argv)
{
    static const struct option opts[] = {
        {"gpu", required_argument, 0, 'g'},   {"gpus", required_argument, 0, 'G'},
        {"algo", required_argument, 0, 'a'},  {"batch", required_argument, 0, 'b'},
        {"concat", required_argument, 0, 'c'}, {"refine-iters", required_argument, 0, 'k'},
        {"refine-min-gain", required_argument, 0, 'm'}, {"seed", required_argument, 0, 's'},
        {"tree", no_argument, 0, 't'},        {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0}};
    const char *gpu_name = NULL, *algo = "far", *out_path = NULL;
    int gpus = 1, c;
    bool tree = false, json = false;
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    optind = 1;
    while ((c = getopt_long(argc, argv, "g:o:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'g': gpu_name = optarg; break;
        case 'G': if (parse_int("--gpus", optarg, 1, 64, &gpus)) return 2; break;
        case 'a': algo = optarg; break;
        case 'b': if (parse_int("--batch", optarg, 1, INT_MAX, &opt.batch)) return 2; break;
        case 'k': if (parse_int("--refine-iters", optarg, 0, INT_MAX, &opt.refine_max_iters)) return 2; break;
        case 'c':
            if ((c = ms_concat_parse(optarg)) < 0) {
                fprintf(stderr, "migsched schedule: --concat must be trivial, reverse or overlap, not '%s'\n", optarg);
                return 2;
            }
            opt.concat = (ms_concat_mode)c;
            break;
        case 'm':
            opt.refine_min_gain = strtod(optarg, &end);
            if (*end || end == optarg || !(opt.refine_min_gain >= 0 && opt.refine_min_gain < 1)) {
                fprintf(stderr, "migsched schedule: --refine-min-gain must be a number in [0, 1), not '%s'\n", optarg);
                return 2;
            }
            break;
        case 's':
            errno = 0;
            opt.seed = strtoull(optarg, &end, 10);
            if (errno || *end || end == optarg) {
                fprintf(stderr, "migsched schedule: --seed must be a non-negative integer, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 't': tree = true; break;
        case 'j': json = true; break;
        case 'o': out_path = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!gpu_name || optind != argc - 1) {
        fprintf(stderr, "migsched schedule: %s\n", !gpu_name ? "--gpu MODEL is required" : "give exactly one WORKLOAD file");
        usage(stderr);
        return 2;
    }
    if (!ms_offline_find(algo)) {
        fprintf(stderr, "migsched schedule: unknown algorithm '%s' (see --help)\n", algo);
        return 2;
    }
    ms_gpu_model gpu;
    ms_workload *w = NULL;
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_gpu_lookup(gpu_name, &gpu, &err) || ms_workload_read(argv[optind], &gpu, &w, &err) ||
        ms_offline_schedule(algo, w, &gpu, gpus, &opt, &s, &err)) {
        fprintf(stderr, "migsched schedule: %s\n", err.msg);
        ms_workload_free(w);
        return 1;
    }
    int rc = check(s, w);
    if (!rc)
        rc = emit(s, w, json, tree, out_path);
    ms_schedule_free(s);
    ms_workload_free(w);
    return rc;
}
