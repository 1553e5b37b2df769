/* cmd_hier_fit.c: `migsched hier fit`: the co-run model fitted to measured MPS-inside-MIG
 * profiles; writes the fitted jobs as a catalogue for `hier` and prints the fit's errors in
 * sample and leaving one model out (docs/hier.md, "Fitting the model to measurements"). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "hier_cli.h"
#include "migsched/files.h"
#include "migsched/hier_fit.h"

static void fit_usage(FILE *f)
{
    fprintf(
        f,
        "usage: migsched hier fit [--out CATALOGUE] [--requests N] [--gamma G] [--serial-width W]\n"
        "                         PROFILE.csv...\n"
        "       migsched hier fit --corun TABLE [--catalogue FILE] [--out CATALOGUE] [--gamma G]\n"
        "  Fits the co-run model to measured profiles (CSV 'Mig instance,Batch size,Workload\n"
        "  Number,Throughput,Latency': each process's throughput with 1..8 identical MPS\n"
        "  processes in MIG instances of 1, 2, 3, 4 or 7 compute slices; one file per model,\n"
        "  named after it). Per job (model and batch size): T, s, m from its one-process\n"
        "  runs; gamma and the serial width (the GPCs a job's serial part needs, 0..1) from\n"
        "  the multi-process runs (--gamma G, --serial-width W fix them instead). Prints the\n"
        "  mean absolute error of the rates by MIG size and process count, in sample and\n"
        "  leaving one model out; --out writes the jobs as a catalogue for\n"
        "  `migsched hier --catalogue` (run it with the --gamma and --serial-width printed),\n"
        "  each job being N requests (default 1): solo = N x T.\n"
        "  --corun TABLE: fits instead each job's s and m (T = its solo time in the catalogue,\n"
        "  the built-in one or --catalogue FILE) and gamma to a measured co-run table (CSV\n"
        "  setup,jobs,times) and prints the error by layout and set size, in sample and\n"
        "  leaving one job out (its rows predicted by gamma and the other jobs' s, m fitted\n"
        "  on the rows without it, with its own s, m from the catalogue).\n");
}

static void print_errors(const char *title, const ms_hier_fit_errors *e)
{
    int maxp = 0;
    for (int s = 0; s < MS_HIER_FIT_NSIZES; s++)
        for (int p = 0; p < MS_HIER_FIT_MAX_PROCS; p++)
            if (e->n[s][p])
                maxp = p + 1 > maxp ? p + 1 : maxp;
    printf("%s\n  MIG size", title);
    for (int p = 0; p < maxp; p++)
        printf("   %d proc%s     ", p + 1, p ? "s" : " ");
    printf("   2+ procs\n");
    double col_sum[MS_HIER_FIT_MAX_PROCS] = {0};
    int col_n[MS_HIER_FIT_MAX_PROCS] = {0};
    for (int s = 0; s <= MS_HIER_FIT_NSIZES; s++) {
        if (s < MS_HIER_FIT_NSIZES)
            printf("  %dg      ", ms_hier_fit_sizes[s]);
        else
            printf("  all     ");
        double multi = 0;
        int multi_n = 0;
        for (int p = 0; p < maxp; p++) {
            double sum = s < MS_HIER_FIT_NSIZES ? e->sum[s][p] : col_sum[p];
            int n = s < MS_HIER_FIT_NSIZES ? e->n[s][p] : col_n[p];
            if (s < MS_HIER_FIT_NSIZES) {
                col_sum[p] += sum;
                col_n[p] += n;
            }
            if (p > 0) {
                multi += sum;
                multi_n += n;
            }
            if (n)
                printf("  %5.1f%% (%3d)", 100 * sum / n, n);
            else
                printf("  %12s", "-");
        }
        if (multi_n)
            printf("  %5.1f%% (%3d)\n", 100 * multi / multi_n, multi_n);
        else
            printf("  %12s\n", "-");
    }
}

/* The jobs as a catalogue file (docs/hier.md's window format, full profiles): the fitted
 * ones, or all of them (a co-run table's fit keeps the catalogue's other jobs). */
static int write_catalogue(const char *path, const ms_hier_fit_result *r, double requests,
                           int only_fitted, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    fprintf(o.f, "name,solo,serial,mem,cache,t_1gpc\n");
    for (size_t j = 0; j < r->n_jobs; j++) {
        const ms_hier_profile *p = &r->jobs[j];
        if (r->fitted[j] || !only_fitted)
            fprintf(o.f, "%s,%.9g,%.9g,%.9g,%.9g,%.9g\n", p->name, requests * p->solo, p->serial,
                    p->mem, p->cache, requests * p->t_1gpc);
    }
    return ms_output_commit(&o, err);
}

static void print_cell(double sum, int n)
{
    if (n)
        printf("  %5.1f%% (%3d)", 100 * sum / n, n);
    else
        printf("  %12s", "-");
}

/* By layout (rows, then all of them) and set size (columns, then all of them). */
static void print_corun_errors(const char *title, const ms_hier_corun_errors *e)
{
    printf("%s\n  layout  ", title);
    for (int c = 2; c <= MS_HIER_MAX_C; c++)
        printf("   %d jobs      ", c);
    printf("   all\n");
    double col_sum[MS_HIER_MAX_C + 1] = {0};
    int col_n[MS_HIER_MAX_C + 1] = {0};
    for (int l = 0; l <= 3; l++) {
        printf("  %-8s", l < 3 ? ms_hier_layout_name((ms_hier_layout)l) : "all");
        double row_sum = 0;
        int row_n = 0;
        for (int c = 2; c <= MS_HIER_MAX_C; c++) {
            double sum = l < 3 ? e->sum[l][c - 1] : col_sum[c];
            int n = l < 3 ? e->n[l][c - 1] : col_n[c];
            if (l < 3) {
                col_sum[c] += sum;
                col_n[c] += n;
            }
            row_sum += sum;
            row_n += n;
            print_cell(sum, n);
        }
        print_cell(row_sum, row_n);
        printf("\n");
    }
}

/* Fits the catalogue's jobs to a measured co-run table; writes them to out when given. */
static int fit_corun(const char *table, const char *catalogue, const char *out, ms_hier_params fix)
{
    double gamma = fix.gamma;
    hier_sources src = {.catalogue = catalogue,
                        .corun = table,
                        .gamma = 0.4,
                        .serial_width = fix.serial_width > 0 ? fix.serial_width : 0};
    ms_hier_catalog cat;
    ms_hier_corun *cr;
    if (hier_load_sources(&src, &cat, &cr))
        return 1;
    ms_hier_fit_result r;
    ms_hier_corun_errors ins, cv;
    ms_error err;
    int rc = ms_hier_fit_corun(&cat, cr, gamma, &r, &ins, &cv, &err);
    if (!rc && out)
        rc = write_catalogue(out, &r, 1, 0, &err);
    if (rc) {
        cli_fail("hier fit", "%s", err.msg);
    } else {
        size_t fitted = 0;
        for (size_t j = 0; j < r.n_jobs; j++)
            fitted += (size_t)r.fitted[j];
        printf("%zu jobs of the catalogue in the co-run table, s and m fitted (T = solo)\n",
               fitted);
        printf("gamma %.4f (%s); c = 1 for every job\n", r.par.gamma,
               gamma >= 0 ? "fixed by --gamma" : "fitted");
        print_corun_errors("mean absolute error of the co-run times, in sample (times):", &ins);
        print_corun_errors("leave one job out (gamma and the other jobs' s, m fitted on the "
                           "rows without it):",
                           &cv);
        printf("  (a job's own s, m are not identified without its co-run rows: the held-out\n"
               "  job keeps its catalogue values)\n");
    }
    if (!rc)
        ms_hier_fit_result_fini(&r);
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return rc ? 1 : 0;
}

const struct option cmd_hier_fit_options[] = {{"out", required_argument, 0, 'o'},
                                              {"gamma", required_argument, 0, 'G'},
                                              {"serial-width", required_argument, 0, 'W'},
                                              {"requests", required_argument, 0, 'n'},
                                              {"corun", required_argument, 0, 'r'},
                                              {"catalogue", required_argument, 0, 'C'},
                                              {"help", no_argument, 0, 'h'},
                                              {0, 0, 0, 0}};

int hier_fit(int argc, char **argv)
{
    const char *out = NULL, *corun = NULL, *catalogue = NULL;
    ms_hier_params fix = {.gamma = -1, .serial_width = -1}; /* < 0: fitted */
    double requests = 1;
    int o;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":o:G:W:n:r:C:h", cmd_hier_fit_options, NULL)) != -1) {
        switch (o) {
        case 'o': out = optarg; break;
        case 'G':
            if (!cli_parse_double(optarg, 0, 100, &fix.gamma))
                return cli_usage_error("hier fit", fit_usage,
                                       "--gamma must be a number in [0, 100]");
            break;
        case 'n':
            if (!cli_parse_double(optarg, 1, 1e9, &requests))
                return cli_usage_error("hier fit", fit_usage,
                                       "--requests must be a number in [1, 1e9]");
            break;
        case 'W':
            if (!cli_parse_double(optarg, 0, 1, &fix.serial_width))
                return cli_usage_error("hier fit", fit_usage,
                                       "--serial-width must be a number of GPCs in [0, 1]");
            break;
        case 'r': corun = optarg; break;
        case 'C': catalogue = optarg; break;
        case 'h': fit_usage(stdout); return 0;
        case ':':
            return cli_usage_error("hier fit", fit_usage, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("hier fit", fit_usage, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (corun && optind < argc)
        return cli_usage_error("hier fit", fit_usage,
                               "--corun fits a co-run table; profile files go without it");
    if (catalogue && !corun)
        return cli_usage_error("hier fit", fit_usage, "--catalogue goes with --corun");
    if (corun)
        return fit_corun(corun, catalogue, out, fix);
    if (optind >= argc)
        return cli_usage_error("hier fit", fit_usage, "no profile file given");
    ms_hier_obs_set set = {0};
    ms_hier_fit_result all;
    ms_hier_fit_errors ins, cv;
    ms_error err;
    for (int i = optind; i < argc; i++)
        if (ms_hier_obs_read(&set, argv[i], &err)) {
            ms_hier_obs_fini(&set);
            return cli_fail("hier fit", "%s", err.msg);
        }
    if (ms_hier_fit_cv(&set, fix, &all, &ins, &cv, &err)) {
        ms_hier_obs_fini(&set);
        return cli_fail("hier fit", "%s", err.msg);
    }
    for (size_t j = 0; j < all.n_jobs; j++)
        if (!all.fitted[j])
            fprintf(stderr,
                    "migsched hier fit: note: %s:%ld: %s: one-process runs in fewer than 3 MIG "
                    "sizes (T, s and m need 3); not fitted\n",
                    set.files[set.jobs[j].model], set.jobs[j].line, set.jobs[j].name);
    int rc = out ? write_catalogue(out, &all, requests, 1, &err) : 0;
    if (rc) {
        cli_fail("hier fit", "%s", err.msg);
    } else {
        size_t fitted = 0;
        for (size_t j = 0; j < all.n_jobs; j++)
            fitted += (size_t)all.fitted[j];
        printf("%zu models, %zu jobs (model x batch size), %zu fitted\n", set.n_models, set.n_jobs,
               fitted);
        printf("gamma %.4f (%s); c = 1 for every job\n", all.par.gamma,
               fix.gamma >= 0 ? "fixed by --gamma" : "fitted on the multi-process runs");
        printf("serial width %.4f GPC (%s)\n", all.par.serial_width,
               fix.serial_width >= 0 ? "fixed by --serial-width"
                                     : "fitted on the multi-process runs");
        print_errors("mean absolute error of each process's rate, in sample (runs):", &ins);
        print_errors("leave one model out (the globals fitted on the other models):", &cv);
    }
    ms_hier_fit_result_fini(&all);
    ms_hier_obs_fini(&set);
    return rc ? 1 : 0;
}
