/* cmd_online.c: `migsched online simulate` and `migsched online ablation` (paper 002);
 * `online sweep` is in cmd_online_sweep.c. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "cmd_online_cluster.h"
#include "commands.h"
#include "migsched/online.h"

static void simulate_usage(FILE *f)
{
    fprintf(
        f,
        "usage: migsched online simulate --gpu MODEL --gpus G\n"
        "         (--trace FILE | --alibaba FILE [--limit N] |\n"
        "          --arrival-mean S --jobs K [--mix P:W,...] [--service normal|long]\n"
        "          [--service-times profile|flat])\n"
        "         [--policy frag|firstfit-static|firstfit-dynamic|owp|elasticbatch] [--tau X]\n"
        "         [--kappa K] [--no-migration] [--no-balance] [--no-dynamic]\n"
        "         [--migration-cost S] [--migration-rule cost-aware|always]\n"
        "         [--queue fcfs-profile|fcfs|reserve] [--reserve-after S]\n"
        "         [--layout tuned|best|packed|small-first|spread|grouped] [--seed S] [--check]\n"
        "         [--csv FILE] [--timeline FILE] [--plot FILE.svg] [--save-trace FILE] [--json]\n"
        "       migsched online simulate --nodes N --gpu MODEL --gpus G (a workload as above)\n"
        "         [--cluster-policy dynamic,static] [--static-layout best|4-3|P,P,...]\n"
        "         [--train-fraction F] [--load X] [--node-cpus C] [node options as above]\n"
        "         [--launch-overhead S] [--slurm-tick S] [--backfill-interval S] [--slurm-node]\n"
        "         [--time-limit-unit S]\n"
        "         [--save-trace FILE] [--json | --summary-line]\n"
        "  Simulates jobs arriving on a node of G MIG GPUs. --trace reads a CSV with header\n"
        "  arrival,profile,work[,name]; --alibaba reads the Alibaba GPU-sharing pod list.\n"
        "  --csv writes one line per job, --timeline the fragmentation, instance counts and\n"
        "  desired/actual instances per profile over time, --plot them as an SVG with\n"
        "  migrations marked. --check verifies the invariants after every event.\n"
        "  --queue: per-profile FCFS, strict FCFS, or per-profile FCFS where a job waiting over\n"
        "  --reserve-after seconds reserves a GPU. --migration-rule cost-aware migrates only\n"
        "  when the expected gain exceeds the cost (docs/online.md).\n"
        "  --json prints the summary as JSON. Output files are checked writable before the\n"
        "  simulation and written after the summary was printed.\n"
        "  --nodes N simulates a cluster of N nodes of G GPUs under Slurm (FIFO, backfill,\n"
        "  cons_tres node choice): dynamic counts compute slices and migsched places on the\n"
        "  node; static partitions every GPU once (--static-layout; best: chosen on the first\n"
        "  --train-fraction of the jobs, default 0.5, and evaluated on the rest) and each job\n"
        "  asks the smallest instance type that holds it. --load time-scales the arrivals\n"
        "  to an offered load; --summary-line prints one cluster_compare line per policy;\n"
        "  Slurm's delays, in the workload's seconds (0: none): a job holds its resources\n"
        "  --launch-overhead past its work, a submission is scheduled at the next multiple of\n"
        "  --slurm-tick (or at a job's end), backfill runs at multiples of --backfill-interval;\n"
        "  --slurm-node keeps each node's slice count as migschedd's slurm-node does (dynamic);\n"
        "  --time-limit-unit U plans with time limits of the work in whole U plus one U;\n"
        "  --save-trace writes the evaluated stream (docs/online.md).\n");
}

static void ablation_usage(FILE *f)
{
    fprintf(f,
            "usage: migsched online ablation [--gpu MODEL] [--gpus G] [--jobs K] [--seeds N]\n"
            "         [--seed S] [--tau X] [--kappa K] [--migration-cost S] [--mix P:W,...]\n"
            "         [--migration-rule cost-aware|always] [--queue fcfs-profile|fcfs|reserve]\n"
            "         [--reserve-after S] [--json]\n"
            "  Runs paper 002's four workloads (Normal/Long service, mean inter-arrival 25 s and\n"
            "  50 s) with the techniques switched on one by one and prints the mean turnaround\n"
            "  (wait + execution, paper 002's \"makespan\") normalised to first-fit static.\n");
}

/* The generator's options are kept apart from gen: its defaults come from the GPU model,
 * known only once the options are read (setup_gen puts them over the defaults). */
typedef struct online_opts {
    cli_common co; /* --gpu, --json */
    const char *trace, *alibaba, *csv, *plot, *save, *timeline;
    int limit, seeds;
    unsigned long long seed;
    ms_online_gen gen;
    double arrival_mean;
    int jobs;
    const char *mix, *service, *times;
    bool tuned, layout_set;
    bool arrival_set, jobs_set;
    ms_online_config cfg;
    cluster_opts cluster; /* --nodes and the options of the cluster mode */
} online_opts;

static int num(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
    if (cli_parse_double(s, lo, hi, out))
        return 0;
    return cli_usage_error(cmd, NULL, "%s must be a number in [%g, %g], got '%s'", opt, lo, hi, s);
}

enum {
    O_GPUS = 256,
    O_TRACE,
    O_ALIBABA,
    O_LIMIT,
    O_ARRIVAL,
    O_JOBS,
    O_MIX,
    O_SERVICE,
    O_POLICY,
    O_TAU,
    O_KAPPA,
    O_NOMIG,
    O_NOBAL,
    O_NODYN,
    O_MIGCOST,
    O_LAYOUT,
    O_SEED,
    O_CHECK,
    O_CSV,
    O_PLOT,
    O_SAVE,
    O_SEEDS,
    O_TIMELINE,
    O_TIMES,
    O_MIGRULE,
    O_QUEUE,
    O_RESERVE,
    O_NODES,
    O_NODE_CPUS,
    O_CLUSTER_POLICY,
    O_STATIC_LAYOUT,
    O_TRAIN,
    O_LOAD,
    O_LAUNCH,
    O_TICK,
    O_BACKFILL,
    O_SLURM_NODE,
    O_LIMIT_UNIT,
    O_SUMMARY
};

const struct option cmd_online_options[] = {
    CLI_LONG_GPU,
    {"gpus", required_argument, 0, O_GPUS},
    {"trace", required_argument, 0, O_TRACE},
    {"alibaba", required_argument, 0, O_ALIBABA},
    {"limit", required_argument, 0, O_LIMIT},
    {"arrival-mean", required_argument, 0, O_ARRIVAL},
    {"jobs", required_argument, 0, O_JOBS},
    {"mix", required_argument, 0, O_MIX},
    {"service", required_argument, 0, O_SERVICE},
    {"policy", required_argument, 0, O_POLICY},
    {"tau", required_argument, 0, O_TAU},
    {"kappa", required_argument, 0, O_KAPPA},
    {"no-migration", no_argument, 0, O_NOMIG},
    {"no-balance", no_argument, 0, O_NOBAL},
    {"no-dynamic", no_argument, 0, O_NODYN},
    {"migration-cost", required_argument, 0, O_MIGCOST},
    {"layout", required_argument, 0, O_LAYOUT},
    {"seed", required_argument, 0, O_SEED},
    {"check", no_argument, 0, O_CHECK},
    {"csv", required_argument, 0, O_CSV},
    {"plot", required_argument, 0, O_PLOT},
    {"save-trace", required_argument, 0, O_SAVE},
    {"seeds", required_argument, 0, O_SEEDS},
    CLI_LONG_JSON,
    {"timeline", required_argument, 0, O_TIMELINE},
    {"service-times", required_argument, 0, O_TIMES},
    {"migration-rule", required_argument, 0, O_MIGRULE},
    {"queue", required_argument, 0, O_QUEUE},
    {"reserve-after", required_argument, 0, O_RESERVE},
    {"nodes", required_argument, 0, O_NODES},
    {"node-cpus", required_argument, 0, O_NODE_CPUS},
    {"cluster-policy", required_argument, 0, O_CLUSTER_POLICY},
    {"static-layout", required_argument, 0, O_STATIC_LAYOUT},
    {"train-fraction", required_argument, 0, O_TRAIN},
    {"load", required_argument, 0, O_LOAD},
    {"launch-overhead", required_argument, 0, O_LAUNCH},
    {"slurm-tick", required_argument, 0, O_TICK},
    {"backfill-interval", required_argument, 0, O_BACKFILL},
    {"slurm-node", no_argument, 0, O_SLURM_NODE},
    {"time-limit-unit", required_argument, 0, O_LIMIT_UNIT},
    {"summary-line", no_argument, 0, O_SUMMARY},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0}};

/* Parses every option both subcommands know; returns -1 to go on, else an exit status. */
static int parse(int argc, char **argv, online_opts *o, void (*usage)(FILE *))
{
    const char *cmd = o->co.cmd;
    double v = 0;
    int c;
    optind = 1;
    while ((c = cli_next_option(&o->co, argc, argv, "g:h", cmd_online_options, NULL)) != -1) {
        int rc;
        rc = 0;
        switch (c) {
        case O_GPUS:
            rc = num(cmd, "--gpus", optarg, 1, 1 << 20, &v);
            o->cfg.gpus = (int)v;
            break;
        case O_TRACE: o->trace = optarg; break;
        case O_ALIBABA: o->alibaba = optarg; break;
        case O_LIMIT:
            rc = num(cmd, "--limit", optarg, 0, 1e8, &v);
            o->limit = (int)v;
            break;
        case O_ARRIVAL:
            rc = num(cmd, "--arrival-mean", optarg, 1e-6, 1e9, &o->arrival_mean);
            o->arrival_set = true;
            break;
        case O_JOBS:
            rc = num(cmd, "--jobs", optarg, 1, 1e7, &v);
            o->jobs = (int)v;
            o->jobs_set = true;
            break;
        case O_MIX: o->mix = optarg; break;
        case O_SERVICE: o->service = optarg; break;
        case O_POLICY:
            o->cfg.policy = ms_online_policy_parse(optarg);
            if (o->cfg.policy < 0) { /* an unknown algorithm: bad input, as in every command */
                return cli_fail(cmd, "unknown policy '%s'", optarg);
            }
            break;
        case O_TAU: rc = num(cmd, "--tau", optarg, 0, 1, &o->cfg.tau); break;
        case O_KAPPA: rc = num(cmd, "--kappa", optarg, 0, 1e6, &o->cfg.kappa); break;
        case O_NOMIG: o->cfg.migration = false; break;
        case O_NOBAL: o->cfg.balance = false; break;
        case O_NODYN: o->cfg.dynamic = false; break;
        case O_MIGCOST:
            rc = num(cmd, "--migration-cost", optarg, 0, 1e9, &o->cfg.migration_cost);
            break;
        case O_MIGRULE:
            o->cfg.migration_rule = ms_online_migration_rule_parse(optarg);
            if (o->cfg.migration_rule < 0)
                return cli_usage_error(cmd, NULL,
                                       "--migration-rule must be cost-aware or always, "
                                       "got '%s'",
                                       optarg);
            break;
        case O_QUEUE:
            o->cfg.queue = ms_online_queue_parse(optarg);
            if (o->cfg.queue < 0)
                return cli_usage_error(cmd, NULL,
                                       "--queue must be fcfs-profile, fcfs or reserve, "
                                       "got '%s'",
                                       optarg);
            break;
        case O_RESERVE:
            rc = num(cmd, "--reserve-after", optarg, 0, 1e8, &o->cfg.reserve_after);
            break;
        case O_LAYOUT:
            o->tuned = !strcmp(optarg, "tuned");
            o->layout_set = true;
            o->cfg.layout = o->tuned ? MS_LAYOUT_BEST : ms_online_layout_parse(optarg);
            if (o->cfg.layout < MS_LAYOUT_BEST)
                return cli_usage_error(cmd, NULL, "unknown layout '%s'", optarg);
            break;
        case O_SEED:
            rc = num(cmd, "--seed", optarg, 0, 1e18, &v);
            o->seed = (unsigned long long)v;
            break;
        case O_SEEDS:
            rc = num(cmd, "--seeds", optarg, 1, 1000, &v);
            o->seeds = (int)v;
            break;
        case O_NODES:
            rc = num(cmd, "--nodes", optarg, 1, 1e6, &v);
            o->cluster.nodes = (int)v;
            o->cluster.on = true;
            break;
        case O_NODE_CPUS:
            rc = num(cmd, "--node-cpus", optarg, 1, 1e6, &v);
            o->cluster.node_cpus = (int)v;
            break;
        case O_CLUSTER_POLICY: o->cluster.policies = optarg; break;
        case O_STATIC_LAYOUT: o->cluster.layout = optarg; break;
        case O_TRAIN:
            rc = num(cmd, "--train-fraction", optarg, 1e-9, 1 - 1e-9, &o->cluster.train_fraction);
            o->cluster.train_set = true;
            break;
        case O_LOAD: rc = num(cmd, "--load", optarg, 1e-6, 1e3, &o->cluster.load); break;
        case O_LAUNCH:
            rc = num(cmd, "--launch-overhead", optarg, 0, 1e12, &o->cluster.slurm.launch);
            break;
        case O_TICK: rc = num(cmd, "--slurm-tick", optarg, 0, 1e12, &o->cluster.slurm.tick); break;
        case O_BACKFILL:
            rc = num(cmd, "--backfill-interval", optarg, 0, 1e12, &o->cluster.slurm.backfill);
            break;
        case O_SLURM_NODE: o->cluster.slurm.node_count = true; break;
        case O_LIMIT_UNIT:
            rc = num(cmd, "--time-limit-unit", optarg, 0, 1e12, &o->cluster.slurm.limit_unit);
            break;
        case O_SUMMARY: o->cluster.summary_line = true; break;
        case O_CHECK: o->cfg.check = true; break;
        case O_CSV: o->csv = optarg; break;
        case O_PLOT: o->plot = optarg; break;
        case O_SAVE: o->save = optarg; break;
        case O_TIMELINE: o->timeline = optarg; break;
        case O_TIMES: o->times = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (rc)
            return rc;
        if (c >= O_NODE_CPUS && c <= O_SUMMARY)
            o->cluster.extra = argv[optind - 1 - (c != O_SUMMARY && c != O_SLURM_NODE)];
    }
    if (o->co.status)
        return o->co.status;
    if (o->cluster.extra && !o->cluster.on)
        return cli_usage_error(cmd, NULL, "%s goes with --nodes (the cluster mode)",
                               o->cluster.extra);
    if (optind < argc)
        return cli_usage_error(cmd, NULL, "unexpected argument '%s'", argv[optind]);
    return -1;
}

/* The generator: m's defaults, then the options given. */
static int setup_gen(const ms_gpu_model *m, online_opts *o, ms_error *err)
{
    const char *cmd = o->co.cmd;
    ms_online_gen_defaults(m, &o->gen);
    if (o->arrival_set)
        o->gen.arrival_mean = o->arrival_mean;
    if (o->jobs_set)
        o->gen.jobs = o->jobs;
    if (o->mix && ms_online_parse_mix(m, o->mix, &o->gen, err))
        return cli_fail(cmd, "%s", err->msg);
    if (o->service && !strcmp(o->service, "long"))
        o->gen.service = MS_SERVICE_LONG;
    else if (o->service && strcmp(o->service, "normal"))
        return cli_usage_error(cmd, NULL, "--service must be normal or long, got '%s'", o->service);
    if (o->times && !strcmp(o->times, "flat"))
        o->gen.flat_service = true;
    else if (o->times && strcmp(o->times, "profile"))
        return cli_usage_error(cmd, NULL, "--service-times must be profile or flat, got '%s'",
                               o->times);
    return 0;
}

static bool have_gen(const online_opts *o) { return o->arrival_set || o->jobs_set; }

static int load_workload(online_opts *o, const ms_gpu_model *m, ms_online_workload *w,
                         ms_error *err)
{
    int sources = !!o->trace + !!o->alibaba + have_gen(o);
    if (sources != 1) {
        return cli_usage_error("online simulate", NULL,
                               "give exactly one of --trace, --alibaba, "
                               "or --arrival-mean/--jobs");
    }
    if (o->trace && ms_online_trace_read(o->trace, m, w, err))
        return cli_fail("online simulate", "%s", err->msg);
    if (o->alibaba) {
        if (ms_online_alibaba_read(o->alibaba, m, o->limit, w, err))
            return cli_fail("online simulate", "%s", err->msg);
        fprintf(stderr,
                "alibaba: %d one-GPU pods kept, %d skipped (%d multi-GPU, %d without a "
                "GPU, %d without a lifetime)\n",
                w->n, w->skipped, w->skipped_multi_gpu, w->skipped_no_gpu, w->skipped_bad_time);
    }
    if (have_gen(o)) {
        int rc = setup_gen(m, o, err);
        if (rc)
            return rc;
        ms_rng rng;
        ms_rng_seed(&rng, o->seed);
        if (ms_online_generate(m, &o->gen, &rng, w, err))
            return cli_fail("online simulate", "%s", err->msg);
    }
    return 0;
}

static void print_result(const ms_gpu_model *m, const ms_online_config *c,
                         const ms_online_workload *w, const ms_online_result *r, bool tpot)
{
    printf("policy %s", ms_online_policy_name(c->policy));
    if (c->policy == MS_POLICY_FRAG)
        printf(" (balance %s, dynamic %s, migration %s)", c->balance ? "on" : "off",
               c->dynamic ? "on" : "off",
               c->migration ? ms_online_migration_rule_name(c->migration_rule) : "off");
    if (r->layout >= 0)
        printf(", static layout %s", ms_online_layout_name(r->layout));
    printf(", queue %s", ms_online_queue_name(c->queue));
    if (c->queue == MS_QUEUE_RESERVE)
        printf(" after %g s", c->reserve_after);
    printf(", tau %g, kappa %g, %d x %s, %d jobs\n", c->tau, c->kappa, c->gpus, m->name, w->n);
    printf("mean wait %.3f s, mean execution %.3f s, mean turnaround %.3f s, p95 turnaround "
           "%.3f s, max wait %.3f s\n",
           r->mean_wait, r->mean_exec, r->mean_turnaround, r->p95_turnaround, r->max_wait);
    printf("makespan %.3f s, migrations %ld (intra %ld, inter %ld), reconfigurations %ld "
           "(creations %ld, destructions %ld), mean fragmentation %.4f, events %ld\n",
           r->makespan, r->total_migrations, r->intra_migrations, r->inter_migrations,
           r->reconfigurations, r->creations, r->destructions, r->mean_frag, r->events);
    if (!tpot)
        return;
    printf("mean time per output token (ms):");
    for (int p = 0, first = 1; p < m->nprofiles; p++)
        if (!isnan(r->tpot[p])) {
            printf("%s %s %.2f", first ? "" : ",", m->profiles[p].name, 1000 * r->tpot[p]);
            first = 0;
        }
    printf("\n");
}

/* The summary first: the files are written only once it arrived, the plot before the
 * others because it alone can fail on its content (no timeline). */
static int emit(const online_opts *o, const ms_gpu_model *m, const ms_online_workload *w,
                const ms_online_result *r, ms_error *err)
{
    if (o->co.json) {
        if (cli_json_print("online simulate", ms_online_summary_json(m, &o->cfg, r, have_gen(o))))
            return 1;
    } else {
        print_result(m, &o->cfg, w, r, have_gen(o));
    }
    if (cli_stdout_check("online simulate"))
        return 1;
    if ((o->plot &&
         ms_online_write_svg(o->plot, m, r, ms_online_policy_name(o->cfg.policy), err)) ||
        (o->timeline && ms_online_write_timeline_csv(o->timeline, m, r, err)) ||
        (o->csv && ms_online_write_jobs_csv(o->csv, m, w, r, err)) ||
        (o->save && ms_online_trace_write(o->save, m, w, err)))
        return cli_fail("online simulate", "%s", err->msg);
    return 0;
}

/* A static run on a generated workload takes its layout out of sample (`tuned`, the
 * default there): chosen on 5 workloads of the same generator with other seeds. */
static int tune_layout(online_opts *o, const ms_gpu_model *m, ms_error *err)
{
    bool static_run = o->cfg.policy == MS_POLICY_FF_STATIC ||
                      (o->cfg.policy == MS_POLICY_FRAG && !o->cfg.dynamic);
    if (o->tuned && !have_gen(o)) {
        return cli_usage_error("online simulate", NULL,
                               "--layout tuned needs a generated "
                               "workload (--arrival-mean/--jobs) to draw its training workloads "
                               "from");
    }
    if (!static_run || !have_gen(o) || (o->layout_set && !o->tuned))
        return 0;
    if (ms_online_choose_layout(m, &o->gen, &o->cfg, MS_ONLINE_TRAIN_SEED(o->seed), 5, err))
        return cli_fail("online simulate", "%s", err->msg);
    return 0;
}

static int simulate(int argc, char **argv)
{
    online_opts o = {.co = {.cmd = "online simulate", .takes = CLI_GPU | CLI_JSON}};
    ms_online_config_defaults(&o.cfg);
    cluster_opts_defaults(&o.cluster);
    o.cfg.gpus = 0;
    int rc = parse(argc, argv, &o, simulate_usage);
    if (rc >= 0)
        return rc;
    if (!o.co.gpu || !o.cfg.gpus) {
        return cli_usage_error("online simulate", NULL, "--gpu and --gpus are required");
    }
    ms_gpu_model m;
    ms_error err;
    if (ms_gpu_lookup(o.co.gpu, &m, &err))
        return cli_fail("online simulate", "%s", err.msg);
    const char *outputs[] = {o.csv, o.plot, o.save, o.timeline};
    if (cli_check_outputs("online simulate", outputs, 4))
        return 1;
    if (o.cluster.on && (o.csv || o.plot || o.timeline || o.layout_set))
        return cli_usage_error("online simulate", NULL,
                               "--csv, --plot, --timeline and --layout are for one node; "
                               "with --nodes the static layout is --static-layout");
    ms_online_workload w;
    memset(&w, 0, sizeof w);
    if ((rc = load_workload(&o, &m, &w, &err)))
        return rc;
    if (o.cluster.on) {
        rc = cluster_simulate(&o.cluster, &m, &w, &o.cfg, o.co.json, o.save);
        ms_online_workload_fini(&w);
        return rc;
    }
    ms_online_result r;
    o.cfg.timeline = o.plot || o.timeline;
    if ((rc = tune_layout(&o, &m, &err))) {
        ms_online_workload_fini(&w);
        return rc;
    }
    if (ms_online_simulate(&m, &w, &o.cfg, &r, &err)) {
        ms_online_workload_fini(&w);
        return cli_fail("online simulate", "%s", err.msg);
    }
    rc = emit(&o, &m, &w, &r, &err);
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
    return rc;
}

/* A row of the ablation table as text, once it has run: each cell normalised to the
 * firstfit-static row's, [absolute turnaround; wait/execution]. */
static void print_ablation_row(void *arg, int row, const ms_online_ablation_table *t)
{
    (void)arg;
    printf("%-18s", ms_online_ablation_row_name(row));
    for (int l = 0; l < MS_ABLATION_LOADS; l++) {
        const ms_online_ablation_cell *v = &t->cell[row][l];
        double base = t->cell[0][l].turnaround;
        char cell[64];
        if (isnan(v->turnaround))
            snprintf(cell, sizeof cell, "n/a");
        else if (isnan(base))
            snprintf(cell, sizeof cell, "n/a [%.0f; %.0f/%.0f]", v->turnaround, v->wait,
                     v->execution);
        else
            snprintf(cell, sizeof cell, "%.3f [%.0f; %.0f/%.0f]", v->turnaround / base,
                     v->turnaround, v->wait, v->execution);
        printf(" %28s", cell);
    }
    printf("\n");
    fflush(stdout); /* a row at a time: the whole table takes minutes */
}

static void print_ablation_header(const online_opts *o, const ms_gpu_model *m)
{
    printf("%d x %s, %d jobs per workload, %d seeds from %llu, tau %g, kappa %g, migration "
           "cost %g s (%s), queue %s",
           o->cfg.gpus, m->name, o->gen.jobs, o->seeds, o->seed, o->cfg.tau, o->cfg.kappa,
           o->cfg.migration_cost, ms_online_migration_rule_name(o->cfg.migration_rule),
           ms_online_queue_name(o->cfg.queue));
    if (o->cfg.queue == MS_QUEUE_RESERVE)
        printf(" after %g s", o->cfg.reserve_after);
    printf("\n");
    printf("mean turnaround (wait + execution) normalised to firstfit-static "
           "[absolute s; mean wait / mean execution s]\n");
    printf("%-18s", "configuration");
    for (int l = 0; l < MS_ABLATION_LOADS; l++)
        printf(" %28s", ms_online_ablation_load_name(l));
    printf("\n");
}

static int print_ablation_json(const online_opts *o, const ms_gpu_model *m,
                               const ms_online_ablation_table *t)
{
    json_t *table = json_array();
    for (int i = 0; i < MS_ABLATION_ROWS; i++) {
        json_t *cells = json_array();
        for (int l = 0; l < MS_ABLATION_LOADS; l++) {
            const ms_online_ablation_cell *v = &t->cell[i][l];
            json_array_append_new(
                cells,
                json_pack("{s:s, s:o, s:o, s:o, s:o}", "workload", ms_online_ablation_load_name(l),
                          "normalised", cli_json_real(v->turnaround / t->cell[0][l].turnaround),
                          "turnaround", cli_json_real(v->turnaround), "wait",
                          cli_json_real(v->wait), "execution", cli_json_real(v->execution)));
        }
        json_array_append_new(table, json_pack("{s:s, s:o}", "configuration",
                                               ms_online_ablation_row_name(i), "cells", cells));
    }
    return cli_json_print("online ablation",
                          json_pack("{s:i, s:s, s:i, s:i, s:I, s:o, s:o, s:o, s:s, s:s, s:o, "
                                    "s:o}",
                                    "gpus", o->cfg.gpus, "gpu_model", m->name, "jobs", o->gen.jobs,
                                    "seeds", o->seeds, "seed", (json_int_t)o->seed, "tau",
                                    cli_json_real(o->cfg.tau), "kappa", cli_json_real(o->cfg.kappa),
                                    "migration_cost", cli_json_real(o->cfg.migration_cost),
                                    "migration_rule",
                                    ms_online_migration_rule_name(o->cfg.migration_rule), "queue",
                                    ms_online_queue_name(o->cfg.queue), "reserve_after",
                                    cli_json_real(o->cfg.reserve_after), "rows", table));
}

static int ablation(int argc, char **argv)
{
    online_opts o = {
        .co = {.cmd = "online ablation", .takes = CLI_GPU | CLI_JSON, .gpu = "A100-40GB"}};
    ms_online_config_defaults(&o.cfg);
    o.seeds = 5;
    o.seed = 1;
    int rc = parse(argc, argv, &o, ablation_usage);
    if (rc >= 0)
        return rc;
    ms_gpu_model m;
    ms_error err;
    if (ms_gpu_lookup(o.co.gpu, &m, &err))
        return cli_fail("online ablation", "%s", err.msg);
    if ((rc = setup_gen(&m, &o, &err)))
        return rc;
    if (!o.co.json)
        print_ablation_header(&o, &m);
    ms_online_ablation a = {.gen = o.gen, .cfg = o.cfg, .seed = o.seed, .seeds = o.seeds};
    ms_online_ablation_table t;
    if (ms_online_ablation_run(&m, &a, o.co.json ? NULL : print_ablation_row, NULL, &t, &err))
        return cli_fail("online ablation", "%s", err.msg);
    return o.co.json ? print_ablation_json(&o, &m, &t) : 0;
}

int cmd_online(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: migsched online simulate|ablation|sweep [options]  (--help for each)\n");
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "simulate"))
        return simulate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "ablation"))
        return ablation(argc - 1, argv + 1);
    if (!strcmp(argv[1], "sweep"))
        return cmd_online_sweep(argc - 1, argv + 1);
    fprintf(stderr, "migsched online: unknown subcommand '%s'\n", argv[1]);
    return 2;
}
