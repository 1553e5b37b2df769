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

#include "cli_util.h"
#include "commands.h"
#include "migsched/offline.h"
#include "migsched/plot.h"

#define DEFAULT_ALGOS "far,miso,fixpartbest,nomig"
#define MAX_ALGOS 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched compare WORKLOAD --gpu MODEL [--gpus G] [--algos LIST] [--csv]\n"
            "                        [--plot DIR] [--no-time] [--time-budget MS] [--node-limit N]\n"
            "  Runs each algorithm of LIST (default " DEFAULT_ALGOS ") on the workload,\n"
            "  validates every schedule and prints: makespan, sigma (makespan / FAR's), rho\n"
            "  (makespan / baseline), p_opt (%% over l_bound_paper), reconfigurations,\n"
            "  idle-slice fraction and compute time.\n"
            "  Algorithms: far, miso, fixpartbest, nomig, optimal, fixpart:P (P as 4-2-1 or a\n"
            "  1-based index from `migsched partitions`), and the others of `schedule --help`.\n"
            "  --plot DIR   writes DIR/<algorithm>.html for each (created if missing)\n"
            "  --no-time    leaves out the compute time (output then depends only on input)\n"
            "  --time-budget MS, --node-limit N  limits for optimal (as for `schedule`)\n"
            "  Exit status 1 when a schedule fails validation (a bug) or on bad input.\n");
}

typedef struct row {
    char algo[MS_NAME_LEN + 16];
    ms_schedule *s;
    ms_metrics m;
    double ms;           /* compute milliseconds */
    char why[MS_ERR_LEN]; /* set when the algorithm could not schedule */
} row;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reports every violation; returns their number. */
static int check(const row *r, const ms_workload *w)
{
    ms_validation v = {0};
    int n = ms_schedule_validate(r->s, w, &v);
    for (int i = 0; i < v.n; i++)
        fprintf(stderr, "migsched compare: BUG: %s schedule invalid [%s]: %s\n", r->algo,
                v.v[i].rule, v.v[i].msg);
    ms_validation_free(&v);
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
    if (check(r, w))
        return 1;
    ms_schedule_metrics(r->s, w, &r->m);
    return 0;
}

static void print_rows(const row *rows, int n, double far, bool csv, bool timed)
{
    if (csv)
        printf("algorithm,makespan,sigma,rho,p_opt,reconfigurations,idle_fraction%s\n",
               timed ? ",compute_ms" : "");
    else
        printf("%-22s %10s %7s %7s %8s %7s %6s%s\n", "algorithm", "makespan", "sigma", "rho",
               "p_opt", "reconf", "idle", timed ? "  time_ms" : "");
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        if (!r->s) {
            printf(csv ? "%s,infeasible,,,,,%s\n" : "%-22s infeasible%s\n", r->algo,
                   csv && timed ? "," : "");
            continue;
        }
        double sigma = far > 0 ? r->m.makespan / far : NAN;
        if (csv)
            printf("%s,%.6f,%.6f,%.6f,%.4f,%d,%.6f", r->algo, r->m.makespan, sigma, r->m.rho,
                   r->m.p_opt, r->m.reconfigurations, 1 - r->m.utilization);
        else
            printf("%-22s %10.3f %7.3f %7.3f %8.2f %7d %6.3f", r->algo, r->m.makespan, sigma,
                   r->m.rho, r->m.p_opt, r->m.reconfigurations, 1 - r->m.utilization);
        if (timed)
            printf(csv ? ",%.3f" : " %8.3f", r->ms);
        printf("\n");
    }
}

static int write_plots(const char *dir, const row *rows, int n, const ms_workload *w)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "migsched compare: %s: cannot create directory: %s\n", dir,
                strerror(errno));
        return 1;
    }
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

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu", required_argument, 0, 'g'},
                                         {"gpus", required_argument, 0, 'G'},
                                         {"algos", required_argument, 0, 'a'},
                                         {"csv", no_argument, 0, 'c'},
                                         {"plot", required_argument, 0, 'p'},
                                         {"no-time", no_argument, 0, 'T'},
                                         {"time-budget", required_argument, 0, 'B'},
                                         {"node-limit", required_argument, 0, 'N'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *gpu_name = NULL, *plot_dir = NULL;
    char algos[4096] = DEFAULT_ALGOS;
    int gpus = 1, c;
    bool csv = false, timed = true;
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    optind = 1;
    while ((c = getopt_long(argc, argv, "g:G:a:h", opts, NULL)) != -1) {
        switch (c) {
        case 'g': gpu_name = optarg; break;
        case 'G':
            if (!cli_parse_int(optarg, 1, 1024, &gpus)) {
                fprintf(stderr, "migsched compare: --gpus: '%s' is not a count in 1..1024\n", optarg);
                return 2;
            }
            break;
        case 'a': snprintf(algos, sizeof algos, "%s", optarg); break;
        case 'c': csv = true; break;
        case 'p': plot_dir = optarg; break;
        case 'T': timed = false; break;
        case 'B':
            if (!cli_parse_double(optarg, 0, 1e12, &opt.time_budget_ms) || opt.time_budget_ms <= 0) {
                fprintf(stderr, "migsched compare: --time-budget must be a positive number of "
                                "milliseconds, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'N':
            if (!cli_parse_long(optarg, 1, LONG_MAX, &opt.node_limit)) {
                fprintf(stderr, "migsched compare: --node-limit must be a positive integer, not "
                                "'%s'\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!gpu_name || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    static row rows[MAX_ALGOS];
    int n = parse_algos(algos, rows);
    if (n <= 0) {
        fprintf(stderr, "migsched compare: --algos: give 1..%d comma-separated names\n", MAX_ALGOS);
        return 2;
    }
    ms_gpu_model gpu;
    ms_error err = {0};
    ms_workload *w = NULL;
    if (ms_gpu_lookup(gpu_name, &gpu, &err) || ms_workload_read(argv[optind], &gpu, &w, &err)) {
        fprintf(stderr, "migsched compare: %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (!ms_offline_known(rows[i].algo)) {
            fprintf(stderr, "migsched compare: unknown algorithm '%s'\n", rows[i].algo);
            ms_workload_free(w);
            return 2;
        }
    int rc = 0;
    double far = NAN;
    for (int i = 0; i < n && !rc; i++) {
        rc = run_row(&rows[i], w, &gpu, gpus, &opt);
        if (!rc && rows[i].s && !strcmp(rows[i].algo, "far"))
            far = rows[i].m.makespan;
    }
    if (!rc && isnan(far)) {
        /* sigma needs FAR's makespan even when FAR is not listed. */
        row ref = {.algo = "far"};
        rc = run_row(&ref, w, &gpu, gpus, &opt);
        if (!rc && ref.s)
            far = ref.m.makespan;
        ms_schedule_free(ref.s);
    }
    if (!rc) {
        print_rows(rows, n, far, csv, timed);
        fflush(stdout); /* the table first, then why rows are infeasible */
        for (int i = 0; i < n; i++)
            if (!rows[i].s)
                fprintf(stderr, "migsched compare: %s\n", rows[i].why);
        if (plot_dir)
            rc = write_plots(plot_dir, rows, n, w);
    }
    for (int i = 0; i < n; i++)
        ms_schedule_free(rows[i].s);
    ms_workload_free(w);
    return rc;
}
