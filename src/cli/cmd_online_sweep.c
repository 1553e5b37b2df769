/* cmd_online_sweep.c: `migsched online sweep`: every policy against offered load,
 * printed per point and written as CSV and an SVG of the curves. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/online.h"

#define DEFAULT_POLICIES "frag,frag/fcfs-profile,firstfit-static,firstfit-dynamic,owp,elasticbatch"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched online sweep [--load LO:HI:STEP] [--gpu MODEL] [--gpus G] [--jobs K]\n"
            "         [--seeds N] [--seed S] [--mix P:W,...] [--service normal|long]\n"
            "         [--service-times profile|flat] [--policies P[/QUEUE],...] [--tau X]\n"
            "         [--kappa K] [--migration-cost S] [--csv FILE] [--plot FILE.svg]\n"
            "  Runs each policy, with its queue discipline when named (default\n"
            "  " DEFAULT_POLICIES ")\n"
            "  at each offered load (default 0.5:1.1:0.05; load = arrival rate x mean compute-\n"
            "  slice seconds of a job / (G x slices)) on seeds S..S+N-1 (default 1, 5 seeds) and\n"
            "  prints mean turnaround, makespan, mean wait, per-profile p50/p99 wait,\n"
            "  utilisation and fragmentation. firstfit-static's layout is chosen out of sample.\n");
}

static int bad_value(const char *opt, const char *v)
{
    return cli_usage_error("online sweep", NULL, "bad value '%s' for --%s", v, opt);
}

static void bar(void *arg, int done, int total)
{
    (void)arg;
    fprintf(stderr, "\rsweep: %d/%d points", done, total);
    if (done == total)
        fprintf(stderr, "\n");
}

static void print_points(const ms_gpu_model *m, const ms_online_sweep *s,
                         const ms_online_point *pts)
{
    printf("%d x %s, %d jobs, seeds %llu..%llu, %s service, times by %s, tau %g, kappa %g, "
           "migration cost %g s\n",
           s->cfg.gpus, m->name, s->gen.jobs, s->seed, s->seed + (unsigned long long)s->seeds - 1,
           s->gen.service == MS_SERVICE_LONG ? "long" : "normal",
           s->gen.flat_service ? "nothing (flat)" : "profile", s->cfg.tau, s->cfg.kappa,
           s->cfg.migration_cost);
    printf("%-24s %5s %9s %10s %9s", "policy", "load", "turnaround", "makespan", "wait");
    for (int i = 0; i < s->gen.nmix; i++)
        printf(" %17s", m->profiles[s->gen.mix_profile[i]].name);
    printf(" %5s %6s\n", "util", "frag");
    for (int k = 0; k < s->npolicies * s->nloads; k++) {
        const ms_online_point *pt = &pts[k];
        printf("%-24s %5.2f %10.1f %10.1f %9.1f", pt->label, pt->load, pt->turnaround, pt->makespan,
               pt->wait);
        for (int i = 0; i < s->gen.nmix; i++) {
            char cell[40];
            int p = s->gen.mix_profile[i];
            snprintf(cell, sizeof cell, "%.0f/%.0f", pt->p50_wait[p], pt->p99_wait[p]);
            printf(" %17s", cell);
        }
        printf(" %5.3f %6.4f\n", pt->utilisation, pt->fragmentation);
    }
    printf("(per profile: p50/p99 wait in s, pooled over the seeds' jobs)\n");
}

enum {
    O_GPUS = 256,
    O_JOBS,
    O_SEEDS,
    O_SEED,
    O_MIX,
    O_SERVICE,
    O_TIMES,
    O_POLICIES,
    O_LOAD,
    O_TAU,
    O_KAPPA,
    O_MIGCOST,
    O_CSV,
    O_PLOT
};

const struct option cmd_online_sweep_options[] = {
    CLI_LONG_GPU,
    {"gpus", required_argument, 0, O_GPUS},
    {"jobs", required_argument, 0, O_JOBS},
    {"seeds", required_argument, 0, O_SEEDS},
    {"seed", required_argument, 0, O_SEED},
    {"mix", required_argument, 0, O_MIX},
    {"service", required_argument, 0, O_SERVICE},
    {"service-times", required_argument, 0, O_TIMES},
    {"policies", required_argument, 0, O_POLICIES},
    {"load", required_argument, 0, O_LOAD},
    {"tau", required_argument, 0, O_TAU},
    {"kappa", required_argument, 0, O_KAPPA},
    {"migration-cost", required_argument, 0, O_MIGCOST},
    {"csv", required_argument, 0, O_CSV},
    {"plot", required_argument, 0, O_PLOT},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};

typedef struct sweep_opts {
    cli_common co; /* --gpu */
    const char *mix, *service, *times, *policies, *load, *csv, *plot;
    int gpus, jobs, seeds;
    uint64_t seed;
    double tau, kappa, migcost;
} sweep_opts;

static int parse(int argc, char **argv, sweep_opts *o)
{
    int c, at = -1;
    optind = 1;
    while ((c = cli_next_option(&o->co, argc, argv, "g:h", cmd_online_sweep_options, &at)) != -1) {
        bool ok = true;
        switch (c) {
        case O_GPUS: ok = cli_parse_int(optarg, 1, 1 << 20, &o->gpus); break;
        case O_JOBS: ok = cli_parse_int(optarg, 1, 10000000, &o->jobs); break;
        case O_SEEDS: ok = cli_parse_int(optarg, 1, 1000, &o->seeds); break;
        case O_SEED: ok = cli_parse_seed(optarg, &o->seed) && o->seed < 1000000000000ull; break;
        case O_MIX: o->mix = optarg; break;
        case O_SERVICE: o->service = optarg; break;
        case O_TIMES: o->times = optarg; break;
        case O_POLICIES: o->policies = optarg; break;
        case O_LOAD: o->load = optarg; break;
        case O_TAU: ok = cli_parse_double(optarg, 0, 1, &o->tau); break;
        case O_KAPPA: ok = cli_parse_double(optarg, 0, 1e6, &o->kappa); break;
        case O_MIGCOST: ok = cli_parse_double(optarg, 0, 1e9, &o->migcost); break;
        case O_CSV: o->csv = optarg; break;
        case O_PLOT: o->plot = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (!ok)
            return bad_value(at >= 0 ? cmd_online_sweep_options[at].name : "?", optarg);
    }
    if (o->co.status)
        return o->co.status;
    if (optind < argc) {
        return cli_usage_error("online sweep", NULL, "unexpected argument '%s'", argv[optind]);
    }
    return -1;
}

/* The generator and node from the options (over the defaults); prints its own errors. */
static int setup(const sweep_opts *o, const ms_gpu_model *m, ms_online_sweep *s, ms_error *err)
{
    ms_online_gen_defaults(m, &s->gen);
    s->gen.jobs = o->jobs;
    if (o->mix && ms_online_parse_mix(m, o->mix, &s->gen, err))
        return cli_fail("online sweep", "%s", err->msg);
    if (o->service && strcmp(o->service, "normal") && strcmp(o->service, "long"))
        return bad_value("service", o->service);
    s->gen.service = o->service && !strcmp(o->service, "long") ? MS_SERVICE_LONG
                                                               : MS_SERVICE_NORMAL;
    if (o->times && strcmp(o->times, "profile") && strcmp(o->times, "flat"))
        return bad_value("service-times", o->times);
    s->gen.flat_service = o->times && !strcmp(o->times, "flat");
    ms_online_config_defaults(&s->cfg);
    s->cfg.gpus = o->gpus;
    s->cfg.tau = o->tau;
    s->cfg.kappa = o->kappa;
    s->cfg.migration_cost = o->migcost;
    s->seed = o->seed;
    s->seeds = o->seeds;
    if (ms_online_sweep_parse_policies(o->policies, s, err) ||
        ms_online_sweep_parse_loads(o->load, s, err))
        return cli_fail("online sweep", "%s", err->msg);
    return 0;
}

int cmd_online_sweep(int argc, char **argv)
{
    ms_online_config d;
    ms_online_config_defaults(&d);
    sweep_opts o = {.co = {.cmd = "online sweep", .takes = CLI_GPU, .gpu = "A100-40GB"},
                    .policies = DEFAULT_POLICIES,
                    .load = "0.5:1.1:0.05",
                    .gpus = 4,
                    .jobs = 500,
                    .seeds = 5,
                    .seed = 1,
                    .tau = d.tau,
                    .kappa = d.kappa,
                    .migcost = d.migration_cost};
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *outputs[] = {o.csv, o.plot};
    if (cli_check_outputs("online sweep", outputs, 2))
        return 1;
    ms_gpu_model m;
    ms_error err = {0};
    ms_online_sweep *s = calloc(1, sizeof *s);
    if (!s) {
        return cli_fail("online sweep", "out of memory");
    }
    ms_online_point *pts = NULL;
    if (ms_gpu_lookup(o.co.gpu, &m, &err))
        rc = cli_fail("online sweep", "%s", err.msg);
    else if (!(rc = setup(&o, &m, s, &err)) &&
             ms_online_sweep_run(&m, s, isatty(STDERR_FILENO) ? bar : NULL, NULL, &pts, &err))
        rc = cli_fail("online sweep", "%s", err.msg);
    if (rc) {
        free(s);
        return rc;
    }
    print_points(&m, s, pts);
    rc = cli_stdout_check("online sweep");
    char title[128];
    snprintf(title, sizeof title, "%d x %s, %d jobs, %d seeds", s->cfg.gpus, m.name, s->gen.jobs,
             s->seeds);
    if (!rc && ((o.csv && ms_online_sweep_write_csv(o.csv, &m, s, pts, &err)) ||
                (o.plot && ms_online_sweep_write_svg(s, pts, o.plot, title, &err))))
        rc = cli_fail("online sweep", "%s", err.msg);
    free(pts);
    free(s);
    return rc;
}
