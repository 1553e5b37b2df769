/* cmd_schedule.c: `migsched schedule`: plan a workload with an offline algorithm and show
 * or write the schedule (text: tree, Gantt and metrics; or migsched-schedule/1 JSON). */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/learn.h"
#include "migsched/offline.h"

#define STRINGIFY(x)  #x
#define STRING_OF(x)  STRINGIFY(x)
#define DEFAULT_WIDTH STRING_OF(MS_RL_ROLLOUT_DEFAULT)

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched schedule WORKLOAD --gpu MODEL [--gpus G] [--algo NAME]\n"
               "                         [--batch N --concat trivial|reverse|overlap]\n"
               "                         [--refine-iters K] [--refine-min-gain X] [--seed S]\n"
               "                         [--paper-family] [--four-runs-three] [--tie-right-first]\n"
               "                         [--model FILE [--online] [--rl-queue fill|split|best]\n"
               "                         [--no-guard] [--rl-rollout K|all] [--rl-rollout-gap G]]\n"
               "                         [--tree]\n"
               "                         [--time-budget MS] [--threads N] [--node-limit N]\n"
               "                         [--initial L] [--json [--timings]] [-o FILE]\n"
               "  Plans WORKLOAD (CSV or JSON) on G GPUs (default 1) of MODEL (a built-in name or\n"
               "  a JSON model file) and checks the plan with the validator.\n"
               "  --algo NAME        offline algorithm (default search):");
    for (int i = 0; i < ms_offline_algo_count(); i++)
        fprintf(f, " %s", ms_offline_algo_at(i)->name);
    fprintf(f, " fixpart:P (P a partition such as 4-2-1, or its index)");
    fprintf(
        f,
        "\n  --batch N          split the queue into batches of N tasks in input order\n"
        "  --concat MODE      how batches are joined (default trivial)\n"
        "  --refine-iters K   at most K refinement iterations (default: until no gain)\n"
        "  --refine-min-gain X stop refining when an iteration gains less than X (fraction)\n"
        "  --seed S           seed for randomised algorithms (FAR is deterministic)\n"
        "  --model FILE       policy file for --algo rl, or a starting schedule for search\n"
        "  --online           rl: online batches (a started task is replaced at once)\n"
        "  --rl-queue MODE    rl: a queue longer than the policy's N: fill (the batch is\n"
        "                     refilled as tasks are placed), split (balanced batches joined\n"
        "                     by overlap concatenation) or best (default: both, the shorter)\n"
        "  --no-guard         rl: the agent's plan alone (default: the shortest of it, FAR's\n"
        "                     plan and the agent's first N tasks then FAR's rest; stat\n"
        "                     guard_won 0, 1 or 2 says which)\n"
        "  --rl-rollout K     rl: complete each of the policy's K best actions (or all;\n"
        "                     default " DEFAULT_WIDTH "; 1: greedy, paper 001's agent) with\n"
        "                     its greedy actions and take the one that ends first\n"
        "                     (rollout, docs/rl.md)\n"
        "  --rl-rollout-gap G rl: only those whose logit is within G of the greedy action's\n"
        "                     (default: the policy's calibrated gap, else 1; inf: all K\n"
        "                     at every decision)\n"
        "  --paper-family     FAR walks only paper 000's family of allocations (by default it\n"
        "                     also tries every task on the whole GPU, see docs/far.md)\n"
        "  --four-runs-three  FAR: the 4-slice instance also runs 3-slice tasks before it is\n"
        "                     split (paper 000 3.2 read literally; A100-class models)\n"
        "  --tie-right-first  FAR: equal end times go to the tree's right branch first\n"
        "                     (3g@4 before 3g@0)\n"
        "  --time-budget MS   search: budget per batch (default 10), counted as deterministic\n"
        "                     work calibrated to milliseconds (docs/search.md); optimal: stop\n"
        "                     after MS milliseconds with the best schedule found (anytime: the\n"
        "                     result can depend on machine speed)\n"
        "  --threads N        search: worker threads (default 1); results depend on N. The\n"
        "                     starting schedules, which do not, use at least 2 threads\n"
        "                     on 2 CPUs (and reading and writing large files 2)\n"
        "  --node-limit N     optimal: stop after N search nodes (deterministic)\n" CLI_INITIAL_HELP
        "  --tree             print the repartitioning tree with each instance's tasks\n"
        "  --json             print the migsched-schedule/1 JSON instead of text; the same\n"
        "                     input gives the same bytes\n"
        "  --timings          with --json, keep the measured compute times in \"stats\"\n"
        "  -o FILE            write the output to FILE (all or nothing) instead of stdout\n");
}

static int parse_int(const char *opt, const char *text, int lo, int hi, int *out)
{
    if (cli_parse_int(text, lo, hi, out))
        return 0;
    return cli_usage_error("schedule", NULL, "%s must be an integer in %d..%d, not '%s'", opt, lo,
                           hi, text);
}

static void print_text(const ms_schedule *s, const ms_workload *w, const char *layout, bool tree,
                       FILE *f)
{
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    fprintf(f, "%s on %d x %s from %s: %d tasks\n\n", s->algorithm, s->gpus, s->gpu.name, layout,
            w->n);
    if (tree) {
        ms_far_tree_print(s, w, f);
        fprintf(f, "\n");
    }
    ms_schedule_gantt(s, w, f, 72);
    fprintf(f, "\nmakespan          %.3f s\n", m.makespan);
    fprintf(f, "baseline          %.3f s\n", m.baseline);
    fprintf(f, "l_bound           %.3f s\n", m.l_bound);
    fprintf(f, "rho               %s   (makespan / baseline)\n", ms_fixed(m.rho, 4).s);
    fprintf(f, "p_opt             %s %%  (makespan / l_bound_paper - 1)\n", ms_fixed(m.p_opt, 2).s);
    fprintf(f, "reconfigurations  %d   (creations %d, destructions %d)\n", m.reconfigurations,
            m.creations, m.destructions);
    fprintf(f, "compute time      %.3f ms\n", ms_schedule_stat(s, "compute_seconds") * 1e3);
    double proved = ms_schedule_stat(s, "proved");
    if (proved == 1)
        fprintf(f, "optimality        proved (no valid schedule is shorter)\n");
    else if (proved == 0)
        fprintf(f, "optimality        not proved (stopped by the limit; lower bound %.3f s)\n",
                ms_schedule_stat(s, "lower_bound"));
    for (int i = 0; i < s->nstats; i++) {
        const ms_stat *st = &s->stats[i];
        if (!strcmp(st->key, "concat_used"))
            fprintf(f, "%-17s %s\n", st->key, ms_concat_name((ms_concat_mode)st->value));
        else if (!strcmp(st->key, "rl_queue"))
            fprintf(f, "%-17s %s\n", st->key, ms_rl_queue_name((ms_rl_queue_mode)st->value));
        else if (strcmp(st->key, "compute_seconds"))
            fprintf(f, "%-17s %g\n", st->key, st->value);
    }
}

static int emit(const ms_schedule *s, const ms_workload *w, const char *layout, bool json,
                bool tree, const char *path)
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
        print_text(s, w, layout, tree, out.f);
    }
    if (ms_output_commit(&out, &err)) {
        fprintf(stderr, "migsched schedule: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* A schedule that fails the validator is a bug: say so rather than print it. */
static int check(const ms_schedule *s, const ms_workload *w, const ms_initial *initial)
{
    ms_validation v = {0};
    int bad = ms_schedule_validate_initial(s, w, initial, &v);
    for (int i = 0; i < v.n && i < 10; i++)
        fprintf(stderr, "migsched schedule: invalid plan (%s): %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    return bad ? 1 : 0;
}

static int parse_fraction(const char *text, double *out)
{
    if (!cli_parse_double(text, 0, 1, out) || *out == 1)
        return cli_usage_error("schedule", NULL,
                               "--refine-min-gain must be a number in [0, 1), not '%s'", text);
    return 0;
}

static int parse_budget(const char *text, double *out)
{
    if (!cli_parse_double(text, 0, 1e12, out) || *out <= 0)
        return cli_usage_error("schedule", NULL,
                               "--time-budget must be a positive number of milliseconds, not '%s'",
                               text);
    return 0;
}

static int parse_node_limit(const char *text, long *out)
{
    if (!cli_parse_long(text, 1, LONG_MAX, out))
        return cli_usage_error("schedule", NULL,
                               "--node-limit must be a positive integer, not '%s'", text);
    return 0;
}

typedef struct schedule_args {
    const char *gpu, *algo, *out, *workload, *initial;
    int gpus;
    bool tree, json, timings;
    ms_offline_options opt;
} schedule_args;

const struct option cmd_schedule_options[] = {CLI_LONG_GPU,
                                              CLI_LONG_GPUS,
                                              {"algo", required_argument, 0, 'a'},
                                              {"batch", required_argument, 0, 'b'},
                                              {"concat", required_argument, 0, 'c'},
                                              {"refine-iters", required_argument, 0, 'k'},
                                              {"refine-min-gain", required_argument, 0, 'm'},
                                              CLI_LONG_SEED,
                                              {"tree", no_argument, 0, 't'},
                                              CLI_LONG_JSON,
                                              {"model", required_argument, 0, 'M'},
                                              {"online", no_argument, 0, 'O'},
                                              {"timings", no_argument, 0, 'T'},
                                              {"paper-family", no_argument, 0, 'P'},
                                              {"four-runs-three", no_argument, 0, 'F'},
                                              {"tie-right-first", no_argument, 0, 'R'},
                                              {"time-budget", required_argument, 0, 'B'},
                                              CLI_LONG_THREADS,
                                              {"node-limit", required_argument, 0, 'N'},
                                              {"rl-queue", required_argument, 0, 'Q'},
                                              {"no-guard", no_argument, 0, 'U'},
                                              {"rl-rollout", required_argument, 0, 'L'},
                                              {"rl-rollout-gap", required_argument, 0, 'D'},
                                              {"help", no_argument, 0, 'h'},
                                              {"initial", required_argument, 0, 'I'},
                                              {0, 0, 0, 0}};

/* Returns -1 when the arguments are good, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, schedule_args *a)
{
    cli_common co = {.cmd = "schedule",
                     .takes = CLI_GPU | CLI_GPUS | CLI_SEED | CLI_JSON | CLI_THREADS | CLI_OUTPUT,
                     .say = CLI_SAY_MUST_BE,
                     .gpus_max = 64,
                     .threads_max = 64,
                     .range_words = "an integer in ",
                     .gpus = a->gpus,
                     .seed = a->opt.seed,
                     .threads = a->opt.search.threads};
    int c, bad = 0;
    const char *rl_only = NULL;
    optind = 1;
    while (!bad &&
           (c = cli_next_option(&co, argc, argv, "g:o:h", cmd_schedule_options, NULL)) != -1) {
        switch (c) {
        case 'a': a->algo = optarg; break;
        case 'b': bad = parse_int("--batch", optarg, 1, INT_MAX, &a->opt.batch); break;
        case 'k':
            bad = parse_int("--refine-iters", optarg, 0, INT_MAX, &a->opt.far.refine_max_iters);
            break;
        case 'm': bad = parse_fraction(optarg, &a->opt.far.refine_min_gain); break;
        case 'c':
            if ((c = ms_concat_parse(optarg)) < 0)
                return cli_usage_error("schedule", NULL,
                                       "--concat must be trivial, reverse or overlap, not '%s'",
                                       optarg);
            a->opt.far.concat = (ms_concat_mode)c;
            break;
        case 't': a->tree = true; break;
        case 'M': a->opt.rl.model = optarg; break;
        case 'O': a->opt.rl.online = 1; break;
        case 'Q':
            if ((c = ms_rl_queue_parse(optarg)) < 0)
                return cli_usage_error("schedule", NULL,
                                       "--rl-queue must be fill, split or best, not '%s'", optarg);
            a->opt.rl.queue = c;
            rl_only = "--rl-queue";
            break;
        case 'U':
            a->opt.rl.no_guard = 1;
            rl_only = "--no-guard";
            break;
        case 'L':
            if (!cli_parse_rollout(optarg, &a->opt.rl.rollout))
                return cli_usage_error("schedule", NULL,
                                       "--rl-rollout must be 1..1000 or all, not '%s'", optarg);
            rl_only = "--rl-rollout";
            break;
        case 'D':
            if (!cli_parse_rollout_gap(optarg, &a->opt.rl.rollout_gap))
                return cli_usage_error("schedule", NULL,
                                       "--rl-rollout-gap must be a number in 0..1000 or inf, not "
                                       "'%s'",
                                       optarg);
            rl_only = "--rl-rollout-gap";
            break;
        case 'T': a->timings = true; break;
        case 'P': a->opt.far.paper_family = 1; break;
        case 'F': a->opt.far.four_runs_three = 1; break;
        case 'R': a->opt.far.tie_right_first = 1; break;
        case 'B': /* search's budget and optimal's */
            bad = parse_budget(optarg, &a->opt.search.time_budget_ms);
            a->opt.optimal.time_budget_ms = a->opt.search.time_budget_ms;
            break;
        case 'N': bad = parse_node_limit(optarg, &a->opt.optimal.node_limit); break;
        case 'I': a->initial = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (bad)
        return 2;
    a->gpu = co.gpu;
    a->gpus = co.gpus;
    a->opt.seed = co.seed;
    a->opt.search.threads = co.threads;
    a->json = co.json;
    a->out = co.output;
    if (!a->gpu || optind != argc - 1) {
        return cli_usage_error("schedule", usage, "%s",
                               !a->gpu ? "--gpu MODEL is required"
                                       : "give exactly one WORKLOAD file");
    }
    if (!ms_offline_known(a->algo)) { /* bad input (1), like fixpart:P with no partition P */
        fprintf(stderr, "migsched schedule: unknown algorithm '%s' (see --help)\n", a->algo);
        return 1;
    }
    bool rl = !strcmp(a->algo, "rl");
    if (rl && !a->opt.rl.model)
        return cli_usage_error("schedule", NULL, "%s", "--algo rl needs --model FILE");
    if (a->opt.rl.model && !rl && strcmp(a->algo, "search"))
        return cli_usage_error("schedule", NULL, "%s", "--model goes with --algo rl or search");
    if (a->opt.rl.online && !rl)
        return cli_usage_error("schedule", NULL, "%s", "--online goes with --algo rl");
    if (rl_only && !rl)
        return cli_usage_error("schedule", NULL, "%s goes with --algo rl", rl_only);
    a->workload = argv[optind];
    return -1;
}

int cmd_schedule(int argc, char **argv)
{
    schedule_args a = {.algo = "search", .gpus = 1, .initial = "empty"};
    ms_offline_options_init(&a.opt);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    ms_gpu_model gpu;
    ms_workload *w = NULL;
    ms_schedule *s = NULL;
    ms_error err;
    ms_initial init;
    ms_initial_init(&init);
    a.opt.initial = &init;
    if (ms_gpu_lookup(a.gpu, &gpu, &err) || ms_workload_read(a.workload, &gpu, &w, &err) ||
        ms_initial_parse(a.initial, &gpu, a.gpus, &init, &err) ||
        ms_offline_schedule(a.algo, w, &gpu, a.gpus, &a.opt, &s, &err)) {
        fprintf(stderr, "migsched schedule: %s\n", err.msg);
        ms_workload_free(w);
        ms_initial_fini(&init);
        return 1;
    }
    char layout[256];
    ms_initial_format(&init, &gpu, a.gpus, layout, sizeof layout);
    rc = check(s, w, &init);
    if (a.json && !a.timings)
        ms_schedule_drop_timings(s);
    if (!rc)
        rc = emit(s, w, layout, a.json, a.tree, a.out);
    ms_schedule_free(s);
    ms_workload_free(w);
    ms_initial_fini(&init);
    return rc;
}
