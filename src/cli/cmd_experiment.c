/* cmd_experiment.c: `migsched experiment`: one of the papers' experiment tables, in
 * parallel, as CSV; Ctrl-C keeps the repetitions already finished. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/offline.h"

/* The general policy of models/README.md, for the agent column of --table search. */
#define DEFAULT_MODEL "models/a100-widetimes.bin"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched experiment --table rho|sigma|refine|concat|multibatch|popt|search\n"
               "         [--gpu MODEL] [--presets 'P,Q;R,S@0.25'] [--n 10,15] [--reps R]\n"
               "         [--seed S] [--threads K] [--batch N] [--batches B] [--paper-family]\n"
               "         [--model FILE] [--initial L] [-o FILE.csv]\n"
               "  Runs one of the papers' experiments and writes one CSV line per cell (workload\n"
               "  row x n): the mean of each metric over the repetitions and their count.\n"
               "  rho: paper 000 Table 4 (FAR's makespan / baseline)\n"
               "  sigma: Table 5 (makespan / FAR's for MISO-OPT, FIXPART(1,...,1), FIXPARTBEST,\n"
               "         FIXPART(whole GPU))\n"
               "  refine: Table 6 (p_ref, moves, swaps)   concat: Tables 7-8 (two batches)\n"
               "  multibatch: Table 9 (--batches batches of n)\n"
               "  popt: paper 001 Table 4 baseline columns (p_opt of FAR, MISO, FIXBEST, NOMIG on\n"
               "        datasets of n tasks in offline batches of --batch)\n"
               "  search: as popt for FAR, FIXBEST, MISO, miso-eager, the agent (--model FILE;\n"
               "        default " DEFAULT_MODEL " when it exists and the GPU has 7 slices) and\n"
               "        search, plus the pathological sets PATHO4, PATHO2, PATHOMIX; with\n"
               "        --batch <= 8 also the gaps of search and FAR to the proved optimum (mean,\n"
               "        worst, share optimal)\n"
               "  Defaults are the papers': A100-40GB, their workloads and n, 1000 repetitions\n"
               "  (multibatch: 1 of 1001 batches; popt: n=100, batch 14), seed 1, one thread\n"
               "  per core. Rows are generator presets joined by ',' (a row), rows by ';', with\n"
               "  an optional @p_sup. Results depend only on the options, not on --threads.\n"
               "  --paper-family: FAR walks only paper 000's family of allocations (without its\n"
               "  extra candidate, every task on the whole GPU); baselines are "
               "unchanged.\n" CLI_INITIAL_HELP
               "                     (before every plan of every algorithm)\n");
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) { interrupted = sig; }

static void bar(long done, long total, void *arg)
{
    int *last = arg, pct = (int)(done * 1000 / total);
    if (pct == *last && done != total)
        return;
    *last = pct;
    int filled = (int)(done * 40 / total);
    fprintf(stderr, "\r[%.*s%.*s] %5.1f%% %ld/%ld", filled,
            "########################################", 40 - filled,
            "----------------------------------------", pct / 10.0, done, total);
    if (done == total)
        fputc('\n', stderr);
}

static int parse_int(const char *opt, const char *text, long lo, long hi, long *out)
{
    if (cli_parse_long(text, lo, hi, out))
        return 0;
    fprintf(stderr, "migsched experiment: --%s: '%s' is not an integer in %ld..%ld\n", opt, text,
            lo, hi);
    return 2;
}

static int write_result(const char *path, const ms_experiment *e, const ms_experiment_result *r)
{
    ms_output o;
    ms_error err = {0};
    if (ms_output_open(&o, path ? path : "-", &err)) {
        fprintf(stderr, "migsched experiment: %s\n", err.msg);
        return 1;
    }
    if (ms_experiment_write_csv(e, r, o.f, &err)) {
        ms_output_abort(&o);
        fprintf(stderr, "migsched experiment: %s\n", err.msg);
        return 1;
    }
    if (ms_output_commit(&o, &err)) {
        fprintf(stderr, "migsched experiment: %s\n", err.msg);
        return 1;
    }
    return 0;
}

const struct option cmd_experiment_options[] = {{"table", required_argument, 0, 't'},
                                                CLI_LONG_GPU,
                                                {"presets", required_argument, 0, 'p'},
                                                {"n", required_argument, 0, 'n'},
                                                {"reps", required_argument, 0, 'r'},
                                                CLI_LONG_SEED,
                                                CLI_LONG_THREADS,
                                                {"batch", required_argument, 0, 'b'},
                                                {"batches", required_argument, 0, 'B'},
                                                CLI_LONG_OUTPUT,
                                                {"paper-family", no_argument, 0, 'P'},
                                                {"help", no_argument, 0, 'h'},
                                                {"model", required_argument, 0, 'M'},
                                                {"initial", required_argument, 0, 'I'},
                                                {0, 0, 0, 0}};

int cmd_experiment(int argc, char **argv)
{
    const char *table = NULL, *presets = NULL, *ns = NULL;
    const char *policy = NULL, *initial = "empty";
    long reps = 0, batch = 0, batches = 0;
    int paper_family = 0;
    cli_common co = {.cmd = "experiment",
                     .takes = CLI_GPU | CLI_SEED | CLI_THREADS | CLI_OUTPUT,
                     .threads_max = 1024,
                     .range_words = "an integer in ",
                     .seed = 1};
    int c, rc;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "t:g:p:n:r:s:j:b:B:o:M:Ph", cmd_experiment_options,
                                NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 't': table = optarg; break;
        case 'p': presets = optarg; break;
        case 'n': ns = optarg; break;
        case 'r': bad = parse_int("reps", optarg, 1, 1000000, &reps); break;
        case 'b': bad = parse_int("batch", optarg, 1, 100000, &batch); break;
        case 'B': bad = parse_int("batches", optarg, 1, 1000000, &batches); break;
        case 'P': paper_family = 1; break;
        case 'M': policy = optarg; break;
        case 'I': initial = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad)
            return bad;
    }
    if (co.status)
        return co.status;
    if (!table || optind != argc) {
        usage(stderr);
        return 2;
    }
    const char *gpu = co.gpu, *out = co.output;
    ms_experiment e;
    ms_error err = {0};
    ms_gpu_model model;
    if ((gpu && ms_gpu_lookup(gpu, &model, &err)) ||
        ms_experiment_init(&e, table, gpu ? &model : NULL, &err) ||
        (presets && ms_experiment_set_rows(&e, presets, &err)) ||
        (ns && ms_experiment_set_n(&e, ns, &err))) {
        fprintf(stderr, "migsched experiment: %s\n", err.msg);
        return 1;
    }
    e.seed = co.seed;
    e.reps = reps ? (int)reps : e.reps;
    e.threads = co.threads;
    e.batch = batch ? (int)batch : e.batch;
    e.batches = batches ? (int)batches : e.batches;
    e.paper_family = paper_family;
    if (!policy && !strcmp(table, "search") && e.gpu.slices == 7) {
        if (!access(DEFAULT_MODEL, R_OK))
            policy = DEFAULT_MODEL;
        else /* the path is relative: say why the column is empty rather than stay silent */
            fprintf(stderr,
                    "migsched experiment: no agent column: %s is not here (run from "
                    "the source tree or give --model FILE)\n",
                    DEFAULT_MODEL);
    }
    e.model = policy;
    ms_initial init;
    if (cli_initial_parse("experiment", initial, &e.gpu, 1, &init))
        return 1;
    e.initial = &init;
    struct sigaction sa = {.sa_handler = on_sigint};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    int last = -1;
    ms_experiment_result r = {0};
    rc = ms_experiment_run(&e, isatty(STDERR_FILENO) ? bar : NULL, &last, &interrupted, &r, &err);
    if (rc && rc != MS_EINTR) {
        ms_initial_fini(&init);
        fprintf(stderr, "\nmigsched experiment: %s\n", err.msg);
        if (r.values)
            ms_experiment_result_fini(&r);
        return 1;
    }
    if (rc == MS_EINTR)
        fprintf(stderr, "\nmigsched experiment: %s; writing what is done\n", err.msg);
    int wrc = write_result(out, &e, &r);
    ms_experiment_result_fini(&r);
    ms_initial_fini(&init);
    return wrc ? wrc : rc == MS_EINTR ? 130 : 0;
}
