/* cmd_cosched.c: `migsched cosched`: generate instances, schedule one, run the experiments. */
#include <math.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/cosched.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: migsched cosched INSTANCE --algo ALGO [--json] [--plot FILE.svg] [--time-limit S]\n"
        "       migsched cosched generate --setting uniform|weighted|random --n N [--seed S]\n"
        "                                 [--catalogue FILE] [-o FILE]\n"
        "       migsched cosched experiment --setting SETTING --n N1,N2,.. [--instances K]\n"
        "                                 [--seed S] [--direct-limit S] [--direct-max-n N]\n"
        "                                 [--catalogue FILE] [-o FILE.csv] [--svg PREFIX]\n"
        "  Two-stream co-scheduling with a speed matrix (paper 003). ALGO is one of\n"
        "  plp, caterpillar, nonpreemptive, maxpair, direct, sequential.\n"
        "  INSTANCE is JSON {\"tasks\":[{\"name\":..,\"p\":..}],\"speed\":[[..]]} or CSV\n"
        "  (header name,p,<task names>; one row per task: name,p,speeds).\n"
        "  --catalogue reads a measured kernel matrix in the same formats (p = standalone\n"
        "  time, diagonal = two copies together); without it a synthetic catalogue is used.\n"
        "  --time-limit (default 10) and --direct-limit (default 2) bound DIRECTALG in\n"
        "  seconds; 0 means no limit.\n");
}

static int load_catalogue(const char *path, uint64_t seed, ms_cosched_instance **cat)
{
    ms_error err;
    if (path)
        return ms_cosched_read(path, 1, cat, &err) ? cli_fail("cosched", "%s", err.msg) : 0;
    ms_rng r;
    ms_rng_seed(&r, seed);
    *cat = ms_cosched_catalogue_synthetic(60, &r);
    return *cat ? 0 : cli_fail("cosched", "out of memory");
}

const struct option cmd_cosched_generate_options[] = {{"setting", required_argument, 0, 'T'},
                                                      {"n", required_argument, 0, 'n'},
                                                      CLI_LONG_SEED,
                                                      {"catalogue", required_argument, 0, 'c'},
                                                      CLI_LONG_OUTPUT,
                                                      {"help", no_argument, 0, 'h'},
                                                      {0, 0, 0, 0}};

static int cosched_generate(int argc, char **argv)
{
    cli_common co = {.cmd = "cosched",
                     .takes = CLI_SEED | CLI_OUTPUT,
                     .say = CLI_SAY_MUST_BE_USAGE,
                     .usage = usage,
                     .seed = 1,
                     .output = "-"};
    int setting = -1, n = 0, c, rc;
    const char *catpath = NULL;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "o:h", cmd_cosched_generate_options, NULL)) !=
           -1) {
        switch (c) {
        case 'T':
            if ((setting = ms_cosched_setting_lookup(optarg)) < 0)
                return cli_usage_error("cosched", usage,
                                       "--setting must be uniform, weighted or random");
            break;
        case 'n':
            if (!cli_parse_int(optarg, 1, 100000, &n))
                return cli_usage_error("cosched", usage, "--n must be an integer in 1..100000");
            break;
        case 'c': catpath = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (setting < 0 || n < 1 || optind < argc)
        return cli_usage_error("cosched", usage, "generate needs --setting and --n");
    ms_cosched_instance *cat, *in;
    ms_error err;
    if (load_catalogue(catpath, co.seed, &cat))
        return 1;
    ms_rng r;
    ms_rng_seed(&r, co.seed);
    ms_rng gen = ms_rng_split(&r, 1);
    rc = ms_cosched_generate(cat, setting, n, &gen, &in, &err);
    ms_cosched_instance_free(cat);
    if (rc)
        return cli_fail("cosched", "%s", err.msg);
    rc = ms_cosched_write_json(in, co.output, &err);
    ms_cosched_instance_free(in);
    return rc ? cli_fail("cosched", "%s", err.msg) : 0;
}

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

static int parse_sizes(char *list, int *ns, int max)
{
    int k = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (k == max || !cli_parse_int(tok, 1, 100000, &ns[k]))
            return -1;
        k++;
    }
    return k;
}

const struct option cmd_cosched_experiment_options[] = {{"setting", required_argument, 0, 'T'},
                                                        {"n", required_argument, 0, 'n'},
                                                        {"instances", required_argument, 0, 'i'},
                                                        CLI_LONG_SEED,
                                                        {"direct-limit", required_argument, 0, 'l'},
                                                        {"direct-max-n", required_argument, 0, 'm'},
                                                        {"catalogue", required_argument, 0, 'c'},
                                                        CLI_LONG_OUTPUT,
                                                        {"svg", required_argument, 0, 'g'},
                                                        {"help", no_argument, 0, 'h'},
                                                        {0, 0, 0, 0}};

static int cosched_experiment(int argc, char **argv)
{
    int ns[64], c, rc;
    ms_cosched_experiment e = {-1, ns, 0, 5, 1, 2.0, 30, NULL, "-", NULL, stderr, 0, NULL};
    cli_common co = {.cmd = "cosched",
                     .takes = CLI_SEED | CLI_OUTPUT,
                     .say = CLI_SAY_MUST_BE_USAGE,
                     .usage = usage,
                     .seed = e.seed,
                     .output = e.csv_path};
    const char *catpath = NULL;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "o:h", cmd_cosched_experiment_options, NULL)) !=
           -1) {
        switch (c) {
        case 'T':
            if ((e.setting = ms_cosched_setting_lookup(optarg)) < 0)
                return cli_usage_error("cosched", usage,
                                       "--setting must be uniform, weighted or random");
            break;
        case 'n':
            if ((e.nn = parse_sizes(optarg, ns, 64)) < 1)
                return cli_usage_error("cosched", usage,
                                       "--n must be a comma-separated list of up to 64 sizes");
            break;
        case 'i':
            if (!cli_parse_int(optarg, 1, 10000, &e.instances))
                return cli_usage_error("cosched", usage,
                                       "--instances must be an integer in 1..10000");
            break;
        case 'l':
            if (!cli_parse_double(optarg, 0, INFINITY, &e.direct_limit))
                return cli_usage_error("cosched", usage,
                                       "--direct-limit must be a non-negative number of seconds");
            break;
        case 'm':
            if (!cli_parse_int(optarg, 0, 100000, &e.direct_max_n))
                return cli_usage_error("cosched", usage, "--direct-max-n must be an integer >= 0");
            break;
        case 'c': catpath = optarg; break;
        case 'g': e.svg_prefix = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (e.setting < 0 || e.nn < 1 || optind < argc)
        return cli_usage_error("cosched", usage, "experiment needs --setting and --n");
    e.seed = co.seed;
    e.csv_path = co.output;
    /* The CSV is committed before the figures are drawn: check every path first. */
    char figs[3][4096];
    static const char *const fig[3] = {"fig13", "fig14", "fig15"};
    for (int i = 0; i < 3; i++)
        snprintf(figs[i], sizeof figs[i], "%s-%s.svg", e.svg_prefix ? e.svg_prefix : "", fig[i]);
    const char *outputs[] = {e.csv_path, e.svg_prefix ? figs[0] : NULL,
                             e.svg_prefix ? figs[1] : NULL, e.svg_prefix ? figs[2] : NULL};
    if (cli_check_outputs("cosched experiment", outputs, 4))
        return 1;
    ms_cosched_instance *cat = NULL;
    ms_error err;
    if (catpath && load_catalogue(catpath, e.seed, &cat))
        return 1;
    e.catalogue = cat;
    e.progress = isatty(2);
    e.stop = &interrupted;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rc = ms_cosched_experiment_run(&e, &err);
    ms_cosched_instance_free(cat);
    return rc ? cli_fail("cosched", "%s", err.msg) : 0;
}

const struct option cmd_cosched_options[] = {
    {"algo", required_argument, 0, 'a'}, CLI_LONG_JSON,
    {"plot", required_argument, 0, 'p'}, {"time-limit", required_argument, 0, 't'},
    {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};

static int cosched_schedule(int argc, char **argv)
{
    cli_common co = {.cmd = "cosched", .takes = CLI_JSON};
    int algo = -1, c, rc;
    double limit = 10;
    const char *plot = NULL;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "h", cmd_cosched_options, NULL)) != -1) {
        switch (c) {
        case 'a':
            /* an unknown algorithm is bad input (1), as in every command */
            if ((algo = ms_cosched_algo_lookup(optarg)) < 0)
                return cli_fail("cosched", "--algo must be plp, caterpillar, nonpreemptive, "
                                           "maxpair, direct or sequential");
            break;
        case 'p': plot = optarg; break;
        case 't':
            if (!cli_parse_double(optarg, 0, INFINITY, &limit))
                return cli_usage_error("cosched", usage,
                                       "--time-limit must be a non-negative number of seconds");
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (algo < 0 || optind != argc - 1)
        return cli_usage_error("cosched", usage, "give one INSTANCE file and --algo");
    ms_cosched_instance *in;
    ms_cosched_schedule *s;
    ms_cosched_lp lp;
    ms_error err;
    if (ms_cosched_read(argv[optind], 0, &in, &err))
        return cli_fail("cosched", "%s", err.msg);
    rc = ms_cosched_run(in, algo, limit, &s, &err);
    if (!rc) {
        int nonpre = algo != MS_COSCHED_PLP && algo != MS_COSCHED_CATERPILLAR;
        if ((rc = ms_cosched_validate(in, s, nonpre, &err)))
            ms_error_prefix(&err, "internal error: invalid schedule");
        else if (plot)
            rc = ms_cosched_plot(in, s, ms_cosched_algo_name(algo), plot, &err);
        if (!rc && co.json)
            rc = ms_cosched_schedule_write_json(in, s, ms_cosched_algo_name(algo), stdout, &err);
        else if (!rc && !(rc = ms_cosched_plp(in, &lp, &err))) {
            double mk = ms_cosched_makespan(s);
            printf("%s: %d tasks, makespan %.6g, PLP optimum %.6g (ratio %.4f), %d preemptions, "
                   "%d intervals\n",
                   ms_cosched_algo_name(algo), in->n, mk, lp.makespan, mk / lp.makespan,
                   ms_cosched_preemptions(s, NULL), s->len);
            ms_cosched_lp_fini(&lp);
        }
        ms_cosched_schedule_free(s);
    }
    ms_cosched_instance_free(in);
    return rc ? cli_fail("cosched", "%s", err.msg) : 0;
}

int cmd_cosched(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("cosched", usage, "missing INSTANCE or subcommand");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "generate"))
        return cosched_generate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "experiment"))
        return cosched_experiment(argc - 1, argv + 1);
    return cosched_schedule(argc, argv);
}
