/* cmd_generate.c: `migsched generate`: a synthetic workload (CSV or JSON) from presets. */
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/workload.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched generate --gpu MODEL --n N [--preset P[,P2...]] [--seed S]\n"
               "                         [--p-sup X] [--tmin A] [--tmax B] [--p 1=0.5,2=0.5,...]\n"
               "                         [--p-stop X] [--json] [-o FILE] [-v]\n"
               "  Writes N synthetic tasks (paper 000 6.3 / paper 001 5.1.2) as a workload CSV\n"
               "  (JSON with --json) to FILE or stdout; the same arguments give the same bytes.\n"
               "  --preset   comma-separated presets, later ones override what earlier ones set:\n"
               "             ");
    int col = 13;
    for (const char *const *n = ms_gen_preset_names(); *n; n++) {
        bool wrap = col + strlen(*n) + 2 > 78;
        col = wrap ? 13 : col;
        col += fprintf(f, "%s%s",
                       n == ms_gen_preset_names() ? ""
                       : wrap                     ? ",\n             "
                                                  : ", ",
                       *n);
    }
    fputc('\n', f);
    fprintf(f, "             default: uniform shares, p_sup 0.5, times in [90, 100] s\n"
               "  --seed     random seed (default 1)\n"
               "  --p-sup    share of tasks starting super-linear (memory-bound)\n"
               "  --tmin/--tmax  range of the one-slice time t(1), seconds\n"
               "  --p        shares of tasks scaling well up to each size (replaces all shares;\n"
               "             unlisted sizes get 0; must sum to 1)\n"
               "  --p-stop   per-slice chance a memory-bound task turns compute-bound (0.3)\n"
               "  -v         print the class counts on stderr\n");
}

static int parse_number(const char *opt, const char *text, double *out)
{
    if (!cli_parse_double(text, -DBL_MAX, DBL_MAX, out))
        return cli_usage_error("generate", NULL, "%s: '%s' is not a number", opt, text);
    return 0;
}

/* "1=0.2,2=0.2,...": replaces every share. */
static int parse_shares(const char *text, ms_gen_params *pa)
{
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        pa->p[s] = 0;
    char *copy = strdup(text), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end;
        long s = eq ? strtol(tok, &end, 10) : 0;
        if (!eq || end != eq || s < 1 || s > MS_MAX_SLICES) {
            rc = cli_usage_error("generate", NULL, "--p: '%s' is not SIZE=SHARE with SIZE in 1..8",
                                 tok);
            break;
        }
        rc = parse_number("--p", eq + 1, &pa->p[s]);
    }
    free(copy);
    return rc;
}

struct gen_args {
    const char *gpu, *preset, *output, *shares;
    const char *p_sup, *tmin, *tmax, *p_stop;
    long n;
    uint64_t seed;
    int json, verbose;
};

const struct option cmd_generate_options[] = {CLI_LONG_GPU,
                                              {"preset", required_argument, 0, 'P'},
                                              {"n", required_argument, 0, 'n'},
                                              CLI_LONG_SEED,
                                              {"p-sup", required_argument, 0, 'S'},
                                              {"tmin", required_argument, 0, 'a'},
                                              {"tmax", required_argument, 0, 'b'},
                                              {"p", required_argument, 0, 'p'},
                                              {"p-stop", required_argument, 0, 'x'},
                                              CLI_LONG_JSON,
                                              CLI_LONG_OUTPUT,
                                              {"verbose", no_argument, 0, 'v'},
                                              {"help", no_argument, 0, 'h'},
                                              {0, 0, 0, 0}};

static int parse_args(int argc, char **argv, struct gen_args *a)
{
    memset(a, 0, sizeof *a);
    a->n = -1;
    cli_common co = {.cmd = "generate",
                     .takes = CLI_GPU | CLI_SEED | CLI_JSON | CLI_OUTPUT,
                     .seed = 1,
                     .output = "-"};
    int c;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "o:vh", cmd_generate_options, NULL)) != -1) {
        switch (c) {
        case 'P': a->preset = optarg; break;
        case 'n':
            if (!cli_parse_long(optarg, 1, INT_MAX, &a->n))
                return cli_usage_error("generate", NULL,
                                       "--n: '%s' is not a task count (1..2147483647)", optarg);
            break;
        case 'S': a->p_sup = optarg; break;
        case 'a': a->tmin = optarg; break;
        case 'b': a->tmax = optarg; break;
        case 'p': a->shares = optarg; break;
        case 'x': a->p_stop = optarg; break;
        case 'v': a->verbose = 1; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (optind < argc)
        return cli_usage_error("generate", NULL, "unexpected argument '%s'", argv[optind]);
    a->gpu = co.gpu;
    a->seed = co.seed;
    a->json = co.json;
    a->output = co.output;
    if (!a->gpu || a->n < 0) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* Presets first, then each explicit option overrides its field. */
static int build_params(const struct gen_args *a, const ms_gpu_model *gpu, ms_gen_params *pa)
{
    ms_error err;
    if (ms_gen_preset(gpu, a->preset, pa, &err)) {
        fprintf(stderr, "migsched generate: --preset: %s\n", err.msg);
        return 1;
    }
    if ((a->p_sup && parse_number("--p-sup", a->p_sup, &pa->p_sup)) ||
        (a->tmin && parse_number("--tmin", a->tmin, &pa->tmin)) ||
        (a->tmax && parse_number("--tmax", a->tmax, &pa->tmax)) ||
        (a->p_stop && parse_number("--p-stop", a->p_stop, &pa->p_stop)) ||
        (a->shares && parse_shares(a->shares, pa)))
        return 2;
    return 0;
}

static void print_counts(const ms_gpu_model *gpu, const ms_gen_params *pa, int n)
{
    int count[MS_MAX_SLICES + 1], sup[MS_MAX_SLICES + 1];
    if (ms_gen_class_counts(gpu, pa, n, count, sup, NULL))
        return;
    fprintf(stderr, "%d tasks on %s, t(1) in [%g, %g] s; scale well up to size:", n, gpu->name,
            pa->tmin, pa->tmax);
    for (int k = 0; k < gpu->nsizes; k++)
        fprintf(stderr, " %d: %d (%d super-linear start)%s", gpu->sizes[k], count[gpu->sizes[k]],
                sup[gpu->sizes[k]], k + 1 < gpu->nsizes ? "," : "\n");
}

int cmd_generate(int argc, char **argv)
{
    struct gen_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    ms_gpu_model gpu;
    ms_gen_params pa;
    ms_error err;
    if (ms_gpu_lookup(a.gpu, &gpu, &err)) {
        fprintf(stderr, "migsched generate: %s\n", err.msg);
        return 1;
    }
    if ((rc = build_params(&a, &gpu, &pa)))
        return rc;
    ms_rng rng;
    ms_rng_seed(&rng, a.seed);
    ms_workload *w = NULL;
    ms_output o;
    if (ms_generate(&gpu, &pa, (int)a.n, &rng, &w, &err) || ms_output_open(&o, a.output, &err)) {
        fprintf(stderr, "migsched generate: %s\n", err.msg);
        ms_workload_free(w);
        return 1;
    }
    if (a.verbose)
        print_counts(&gpu, &pa, (int)a.n);
    rc = a.json ? ms_workload_write_json(w, &gpu, o.f, &err)
                : ms_workload_write_csv(w, &gpu, o.f, &err);
    ms_workload_free(w);
    if (rc) {
        ms_output_abort(&o);
        fprintf(stderr, "migsched generate: %s: %s\n", a.output, err.msg);
        return 1;
    }
    if (ms_output_commit(&o, &err)) {
        fprintf(stderr, "migsched generate: %s\n", err.msg);
        return 1;
    }
    return 0;
}
