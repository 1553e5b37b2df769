/* cmd_compare.c: `migsched compare`: every algorithm on one workload, each schedule
 * validated, one row of the papers' metrics per algorithm. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/offline.h"
#include "migsched/plot.h"

#define DEFAULT_ALGOS "far,search,miso,fixpartbest,nomig"
#define MAX_ALGOS     64

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: migsched compare WORKLOAD --gpu MODEL [--gpus G] [--algos LIST]\n"
        "                        [--model FILE] [--csv FILE] [--json] [--plot-dir DIR]\n"
        "                        [--no-time] [--four-runs-three] [--tie-right-first]\n"
        "                        [--time-budget MS] [--node-limit N]\n"
        "                        [--rl-queue fill|split|best] [--no-guard] [--rl-rollout K|all]\n"
        "                        [--rl-rollout-gap G] [--initial L]\n"
        "  Runs each algorithm of LIST (default " DEFAULT_ALGOS ") on the workload,\n"
        "  validates every schedule and prints: makespan, sigma (makespan / FAR's), rho\n"
        "  (makespan / baseline), p_opt (%% over l_bound_paper), reconfigurations,\n"
        "  idle-slice fraction and compute time.\n"
        "  Algorithms: every name of `migsched schedule --help` (search at its default\n"
        "  budget), and fixpart:P (P as 4-2-1 or a 1-based index from `migsched partitions`);\n"
        "  rl needs --model, which search also uses as a starting point.\n"
        "  --model FILE   the policy file for rl (models/README.md)\n"
        "  --csv FILE     also write the table as CSV to FILE ('-': CSV on stdout instead\n"
        "                 of the text table)\n"
        "  --json         print the table as JSON\n"
        "  --plot-dir DIR writes DIR/<algorithm>.html for each (created if missing)\n"
        "  --no-time      leaves out the compute time (output then depends only on input)\n"
        "  --time-budget MS, --node-limit N  budgets of search and optimal (as for\n"
        "                 `schedule`)\n"
        "  --four-runs-three, --tie-right-first  FAR's options (migsched schedule "
        "--help)\n" CLI_INITIAL_HELP
        "                     (every row plans from the same layout, charged alike)\n"
        "  --rl-queue MODE, --no-guard, --rl-rollout K, --rl-rollout-gap G  rl's options\n"
        "                 (migsched schedule --help); by default rl's row is the guarded\n"
        "                 agent improved by rollout (schedule's defaults)\n"
        "  Exit status 1 when a schedule fails validation (a bug), an algorithm is unknown\n"
        "  or on bad input; 2 on bad usage. Output files are checked writable before the\n"
        "  algorithms run and written only when everything succeeded.\n");
}

typedef struct row {
    char algo[MS_NAME_LEN + 16];
    ms_schedule *s;
    ms_metrics m;
    double ms;            /* compute milliseconds */
    char why[MS_ERR_LEN]; /* set when the algorithm could not schedule */
} row;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reports every violation; returns their number. */
static int check(const row *r, const ms_workload *w, const ms_initial *initial)
{
    ms_validation v = {0};
    int n = ms_schedule_validate_initial(r->s, w, initial, &v);
    for (int i = 0; i < v.n; i++)
        fprintf(stderr, "migsched compare: BUG: %s schedule invalid [%s]: %s\n", r->algo,
                v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    return n;
}

static int run_row(row *r, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                   const ms_offline_options *opt)
{
    ms_error err = {0};
    double t0 = now_ms();
    int rc = ms_offline_schedule(r->algo, w, gpu, gpus, opt, &r->s, &err);
    r->ms = now_ms() - t0;
    if (rc == MS_EINFEASIBLE) {
        snprintf(r->why, sizeof r->why, "%s", err.msg);
        return 0;
    }
    if (rc) {
        fprintf(stderr, "migsched compare: %s\n", err.msg);
        return 1;
    }
    if (check(r, w, opt->initial))
        return 1;
    ms_schedule_metrics(r->s, w, &r->m);
    return 0;
}

static void print_csv(FILE *f, const row *rows, int n, double far, bool timed)
{
    fprintf(f, "algorithm,makespan,sigma,rho,p_opt,reconfigurations,idle_fraction%s\n",
            timed ? ",compute_ms" : "");
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->s) {
            fprintf(f, "%s,infeasible,,,,,%s\n", r->algo, timed ? "," : "");
            continue;
        }
        double sigma = far > 0 ? r->m.makespan / far : NAN;
        fprintf(f, "%s,%.6f,%s,%s,%s,%d,%.6f", r->algo, r->m.makespan, ms_fixed(sigma, 6).s,
                ms_fixed(r->m.rho, 6).s, ms_fixed(r->m.p_opt, 4).s, r->m.reconfigurations,
                1 - r->m.utilization);
        if (timed)
            fprintf(f, ",%.3f", r->ms);
        fprintf(f, "\n");
    }
}

static void print_text(const char *layout, const row *rows, int n, double far, bool timed)
{
    printf("initial layout: %s\n", layout);
    printf("%-22s %10s %7s %7s %8s %7s %6s%s\n", "algorithm", "makespan", "sigma", "rho", "p_opt",
           "reconf", "idle", timed ? "  time_ms" : "");
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->s) {
            printf("%-22s infeasible\n", r->algo);
            continue;
        }
        double sigma = far > 0 ? r->m.makespan / far : NAN;
        printf("%-22s %10.3f %7s %7s %8s %7d %6.3f", r->algo, r->m.makespan, ms_fixed(sigma, 3).s,
               ms_fixed(r->m.rho, 3).s, ms_fixed(r->m.p_opt, 2).s, r->m.reconfigurations,
               1 - r->m.utilization);
        if (timed)
            printf(" %8.3f", r->ms);
        printf("\n");
    }
}

/* One object per algorithm: its metrics, or "infeasible" with the reason. */
static int print_json(const char *workload, const ms_gpu_model *gpu, int gpus, const char *layout,
                      const row *rows, int n, double far, bool timed)
{
    json_t *list = json_array();
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        json_t *o = json_pack("{s:s, s:b}", "algorithm", r->algo, "feasible", r->s != NULL);
        if (!r->s) {
            json_object_set_new(o, "reason", json_string(r->why));
        } else {
            json_object_update_new(o, cli_json_metrics(&r->m));
            json_object_set_new(o, "sigma", cli_json_real(far > 0 ? r->m.makespan / far : NAN));
            json_object_set_new(o, "idle_fraction", cli_json_real(1 - r->m.utilization));
        }
        if (timed)
            json_object_set_new(o, "compute_ms", cli_json_real(r->ms));
        json_array_append_new(list, o);
    }
    return cli_json_print("compare", json_pack("{s:s, s:s, s:i, s:s, s:o}", "workload", workload,
                                               "gpu_model", gpu->name, "gpus", gpus, "initial",
                                               layout, "algorithms", list));
}

/* Before any work: the folder exists (or is made) and a file can be created in it. */
static int check_plot_dir(const char *dir)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "migsched compare: %s: cannot create directory: %s\n", dir,
                strerror(errno));
        return 1;
    }
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/far.html", dir);
    const char *paths[] = {probe};
    return cli_check_outputs("compare", paths, 1);
}

static int write_plots(const char *dir, const row *rows, int n, const ms_workload *w)
{
    for (int i = 0; i < n; i++) {
        if (!rows[i].s)
            continue;
        char path[4096], name[sizeof rows[i].algo];
        memcpy(name, rows[i].algo, sizeof name);
        name[sizeof name - 1] = '\0';
        for (char *c = name; *c; c++)
            if (*c == ':' || *c == '/')
                *c = '_';
        snprintf(path, sizeof path, "%s/%s.html", dir, name);
        ms_plot_labels lab;
        ms_plot_labels_from_workload(rows[i].s, w, &lab);
        ms_error err = {0};
        if (ms_plot_write_file(path, rows[i].s, &lab, &err)) {
            fprintf(stderr, "migsched compare: %s\n", err.msg);
            return 1;
        }
    }
    return 0;
}

/* Splits LIST at commas into rows; returns the count or -1. */
static int parse_algos(char *list, row *rows)
{
    int n = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (n == MAX_ALGOS || strlen(tok) >= sizeof rows[0].algo)
            return -1;
        memset(&rows[n], 0, sizeof rows[n]);
        snprintf(rows[n++].algo, sizeof rows[0].algo, "%s", tok);
    }
    return n;
}

static int write_csv(const char *path, const row *rows, int n, double far, bool timed)
{
    ms_output out;
    ms_error err;
    if (ms_output_open(&out, path, &err)) {
        fprintf(stderr, "migsched compare: %s\n", err.msg);
        return 1;
    }
    print_csv(out.f, rows, n, far, timed);
    if (ms_output_commit(&out, &err)) {
        fprintf(stderr, "migsched compare: %s\n", err.msg);
        return 1;
    }
    return 0;
}

typedef struct compare_args {
    const char *gpu, *workload, *csv, *plot_dir, *initial;
    char algos[4096];
    int gpus;
    bool json, timed;
    const char *rl_only; /* the last option given that goes with rl alone */
    ms_offline_options opt;
} compare_args;

const struct option cmd_compare_options[] = {CLI_LONG_GPU,
                                             CLI_LONG_GPUS,
                                             {"algos", required_argument, 0, 'a'},
                                             {"model", required_argument, 0, 'm'},
                                             {"csv", required_argument, 0, 'c'},
                                             CLI_LONG_JSON,
                                             {"plot-dir", required_argument, 0, 'p'},
                                             {"no-time", no_argument, 0, 'T'},
                                             {"four-runs-three", no_argument, 0, 'F'},
                                             {"tie-right-first", no_argument, 0, 'R'},
                                             {"time-budget", required_argument, 0, 'B'},
                                             {"node-limit", required_argument, 0, 'N'},
                                             {"rl-queue", required_argument, 0, 'Q'},
                                             {"no-guard", no_argument, 0, 'U'},
                                             {"rl-rollout", required_argument, 0, 'L'},
                                             {"rl-rollout-gap", required_argument, 0, 'D'},
                                             {"initial", required_argument, 0, 'I'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};

/* Returns -1 when the arguments are good, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, compare_args *a)
{
    cli_common co = {.cmd = "compare",
                     .takes = CLI_GPU | CLI_GPUS | CLI_JSON,
                     .gpus_max = 1024,
                     .range_words = "a count in ",
                     .gpus = a->gpus};
    int c;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "g:G:a:h", cmd_compare_options, NULL)) != -1) {
        switch (c) {
        case 'a': snprintf(a->algos, sizeof a->algos, "%s", optarg); break;
        case 'm': a->opt.rl.model = optarg; break;
        case 'c': a->csv = optarg; break;
        case 'p': a->plot_dir = optarg; break;
        case 'T': a->timed = false; break;
        case 'F': a->opt.far.four_runs_three = 1; break;
        case 'R': a->opt.far.tie_right_first = 1; break;
        case 'B':
            if (!cli_parse_double(optarg, 0, 1e12, &a->opt.search.time_budget_ms) ||
                a->opt.search.time_budget_ms <= 0)
                return cli_usage_error("compare", NULL,
                                       "--time-budget must be a positive number "
                                       "of milliseconds, not '%s'",
                                       optarg);
            a->opt.optimal.time_budget_ms = a->opt.search.time_budget_ms; /* optimal's too */
            break;
        case 'N':
            if (!cli_parse_long(optarg, 1, LONG_MAX, &a->opt.optimal.node_limit))
                return cli_usage_error("compare", NULL,
                                       "--node-limit must be a positive "
                                       "integer, not '%s'",
                                       optarg);
            break;
        case 'Q':
            if ((c = ms_rl_queue_parse(optarg)) < 0)
                return cli_usage_error("compare", NULL,
                                       "--rl-queue must be fill, split or "
                                       "best, not '%s'",
                                       optarg);
            a->opt.rl.queue = c;
            a->rl_only = "--rl-queue";
            break;
        case 'U':
            a->opt.rl.no_guard = 1;
            a->rl_only = "--no-guard";
            break;
        case 'L':
            if (!cli_parse_rollout(optarg, &a->opt.rl.rollout))
                return cli_usage_error("compare", NULL,
                                       "--rl-rollout must be 1..1000 or all, "
                                       "not '%s'",
                                       optarg);
            a->rl_only = "--rl-rollout";
            break;
        case 'D':
            if (!cli_parse_rollout_gap(optarg, &a->opt.rl.rollout_gap))
                return cli_usage_error("compare", NULL,
                                       "--rl-rollout-gap must be a number in "
                                       "0..1000 or inf, not '%s'",
                                       optarg);
            a->rl_only = "--rl-rollout-gap";
            break;
        case 'I': a->initial = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    a->gpu = co.gpu;
    a->gpus = co.gpus;
    a->json = co.json;
    if (!a->gpu || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (a->json && a->csv && !strcmp(a->csv, "-"))
        return cli_usage_error("compare", NULL, "--json and --csv - both want stdout");
    a->workload = argv[optind];
    return -1;
}

/* Every name known, and rl exactly when there is a policy file. */
static int check_algos(const row *rows, int n, const ms_offline_options *opt, const char *rl_only)
{
    bool rl = false, search = false;
    for (int i = 0; i < n; i++) {
        if (!ms_offline_known(rows[i].algo)) {
            fprintf(stderr, "migsched compare: unknown algorithm '%s' (see --help)\n",
                    rows[i].algo);
            return 1;
        }
        rl |= !strcmp(rows[i].algo, "rl");
        search |= !strcmp(rows[i].algo, "search");
    }
    if (rl && !opt->rl.model) {
        fprintf(stderr, "migsched compare: --algos rl needs --model FILE\n");
        return 2;
    }
    if (opt->rl.model && !rl && !search) {
        fprintf(stderr, "migsched compare: --model goes with rl or search in --algos\n");
        return 2;
    }
    if (rl_only && !rl) {
        fprintf(stderr, "migsched compare: %s goes with rl in --algos\n", rl_only);
        return 2;
    }
    return 0;
}

/* The table on stdout first: files are written only when it arrived. */
static int emit(const compare_args *a, const ms_gpu_model *gpu, const row *rows, int n, double far,
                const ms_workload *w)
{
    bool csv_stdout = a->csv && !strcmp(a->csv, "-");
    char layout[256];
    ms_initial_format(a->opt.initial, gpu, a->gpus, layout, sizeof layout);
    if (a->json) {
        if (print_json(a->workload, gpu, a->gpus, layout, rows, n, far, a->timed))
            return 1;
    } else if (csv_stdout) {
        print_csv(stdout, rows, n, far, a->timed);
    } else {
        print_text(layout, rows, n, far, a->timed);
    }
    if (cli_stdout_check("compare"))
        return 1;
    for (int i = 0; i < n; i++)
        if (!rows[i].s)
            fprintf(stderr, "migsched compare: %s\n", rows[i].why);
    if (a->csv && !csv_stdout && write_csv(a->csv, rows, n, far, a->timed))
        return 1;
    return a->plot_dir ? write_plots(a->plot_dir, rows, n, w) : 0;
}

int cmd_compare(int argc, char **argv)
{
    compare_args a = {.gpus = 1, .timed = true, .algos = DEFAULT_ALGOS, .initial = "empty"};
    ms_offline_options_init(&a.opt);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    static row rows[MAX_ALGOS];
    int n = parse_algos(a.algos, rows);
    if (n <= 0) {
        fprintf(stderr, "migsched compare: --algos: give 1..%d comma-separated names\n", MAX_ALGOS);
        return 2;
    }
    if ((rc = check_algos(rows, n, &a.opt, a.rl_only)))
        return rc;
    const char *outputs[] = {a.csv};
    if (cli_check_outputs("compare", outputs, 1) || (a.plot_dir && check_plot_dir(a.plot_dir)))
        return 1;
    ms_gpu_model gpu;
    ms_error err = {0};
    ms_workload *w = NULL;
    ms_initial init;
    ms_initial_init(&init);
    a.opt.initial = &init;
    if (ms_gpu_lookup(a.gpu, &gpu, &err) || ms_workload_read(a.workload, &gpu, &w, &err) ||
        ms_initial_parse(a.initial, &gpu, a.gpus, &init, &err)) {
        fprintf(stderr, "migsched compare: %s\n", err.msg);
        ms_workload_free(w);
        return 1;
    }
    double far = NAN;
    for (int i = 0; i < n && !rc; i++) {
        rc = run_row(&rows[i], w, &gpu, a.gpus, &a.opt);
        if (!rc && rows[i].s && !strcmp(rows[i].algo, "far"))
            far = rows[i].m.makespan;
    }
    if (!rc && isnan(far)) {
        /* sigma needs FAR's makespan even when FAR is not listed. */
        row ref = {.algo = "far"};
        rc = run_row(&ref, w, &gpu, a.gpus, &a.opt);
        if (!rc && ref.s)
            far = ref.m.makespan;
        ms_schedule_free(ref.s);
    }
    if (!rc)
        rc = emit(&a, &gpu, rows, n, far, w);
    for (int i = 0; i < n; i++)
        ms_schedule_free(rows[i].s);
    ms_workload_free(w);
    ms_initial_fini(&init);
    return rc;
}
