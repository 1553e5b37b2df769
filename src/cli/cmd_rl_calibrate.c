/* cmd_rl_calibrate.c: `migsched rl-calibrate`: the largest logit gap of the rollout rule
 * (ms_rl_schedule) whose cost stays within a number of network passes per decision,
 * measured on generated datasets of the policy's preset in both orders, as `rl-eval` cuts
 * them; written into a copy of the policy file (header "rollout_gap"), which `schedule
 * --algo rl` and `rl-eval` then use by default. Passes, not seconds, so that the choice is
 * the same on every machine (one pass is one greedy decision; bench_env times a pass). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/learn.h"

static const float gaps[] = {0, 0.25f, 0.5f, 0.75f, 1, 1.25f, 1.5f, 2};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched rl-calibrate --model FILE --passes P -o OUT [options]\n"
            "  --passes P   network passes per decision the rule may spend on average\n"
            "               (1..1000; a greedy decision is one pass)\n"
            "  --rollout K  the rule's width (default %d)\n"
            "  --sets D     datasets of 100 tasks of the policy's preset, per order\n"
            "               (default 100)\n"
            "  --seed S     their seed (default 7; rl-eval's Table 4 uses 2026)\n"
            "  -o OUT       the policy file with the gap chosen in its header\n"
            "Tries the gaps 0 0.25 0.5 0.75 1 1.25 1.5 2 in turn (shuffled and class-sorted\n"
            "datasets, each batch of N planned alone; online policies: each dataset one\n"
            "queue), prints each one's passes per decision and mean makespan, and keeps\n"
            "the largest within P (0: greedy).\n",
            MS_RL_ROLLOUT_DEFAULT);
}

typedef struct calib_args {
    const char *model, *out;
    double passes;
    int rollout;
    long sets;
    uint64_t seed;
} calib_args;

typedef struct cost {
    double decisions, passes, makespan;
    long plans;
} cost;

/* Plans w with the rule and adds what it cost; returns nonzero (err set) on failure. */
static int add_plan(const ms_rl_model *m, const ms_gpu_model *gpu, const ms_workload *w,
                    const calib_args *a, float gap, cost *c, ms_error *err)
{
    ms_schedule *s = NULL;
    int rc = ms_rl_schedule(m, gpu, w, m->env.online, a->rollout, gap, &s, err);
    if (!rc) {
        c->decisions += ms_schedule_stat(s, "decisions");
        c->passes += ms_schedule_stat(s, "network_passes");
        c->makespan += ms_schedule_makespan(s);
        c->plans++;
    }
    ms_schedule_free(s);
    return rc;
}

static int measure(const ms_rl_model *m, const ms_gpu_model *gpu, ms_gen_params gen,
                   const calib_args *a, float gap, cost *c, ms_error *err)
{
    memset(c, 0, sizeof *c);
    int N = m->env.online ? 100 : m->env.n_batch;
    for (int sorted = 0; sorted < 2; sorted++) {
        gen.class_order = sorted;
        ms_rng rng;
        ms_rng_seed(&rng, a->seed);
        for (long d = 0; d < a->sets; d++) {
            ms_workload *w;
            if (ms_generate(gpu, &gen, 100, &rng, &w, err))
                return err->code;
            int rc = MS_OK;
            for (int from = 0; from < w->n && !rc; from += N) {
                ms_workload *b = ms_workload_slice(w, from, N);
                rc = b ? add_plan(m, gpu, b, a, gap, c, err)
                       : ms_error_set(err, MS_ENOMEM, "out of memory");
                ms_workload_free(b);
            }
            ms_workload_free(w);
            if (rc)
                return rc;
        }
    }
    return MS_OK;
}

const struct option cmd_rl_calibrate_options[] = {
    {"model", 1, 0, 'm'}, {"passes", 1, 0, 'p'}, {"rollout", 1, 0, 'r'},
    {"sets", 1, 0, 'd'},  CLI_LONG_SEED,         {"help", 0, 0, 'h'},
    {0, 0, 0, 0}};

/* Returns -1 when the arguments are good, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, calib_args *a)
{
    /* -o has no long form here */
    cli_common co = {.cmd = "rl-calibrate", .takes = CLI_SEED | CLI_OUTPUT, .seed = a->seed};
    int ch, li = -1;
    optind = 1;
    while ((ch = cli_next_option(&co, argc, argv, "o:h", cmd_rl_calibrate_options, &li)) != -1) {
        const char *bad = NULL; /* what the option's value should have been */
        switch (ch) {
        case 'm': a->model = optarg; break;
        case 'p':
            if (!cli_parse_double(optarg, 1, 1000, &a->passes))
                bad = "a number in 1..1000";
            break;
        case 'r':
            if (!cli_parse_rollout(optarg, &a->rollout) || a->rollout == 1)
                bad = "2..1000 or all";
            break;
        case 'd':
            if (!cli_parse_long(optarg, 1, 1000000, &a->sets))
                bad = "an integer in 1..1000000";
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad)
            return cli_usage_error("rl-calibrate", NULL, "--%s: '%s' is not %s",
                                   cmd_rl_calibrate_options[li].name, optarg, bad);
    }
    if (co.status)
        return co.status;
    a->seed = co.seed;
    a->out = co.output;
    if (!a->model || !a->out || a->passes < 1 || optind < argc)
        return cli_usage_error("rl-calibrate", usage, "%s",
                               optind < argc ? "unexpected argument"
                                             : "--model, --passes and -o are required");
    return -1;
}

int cmd_rl_calibrate(int argc, char **argv)
{
    calib_args a = {.rollout = MS_RL_ROLLOUT_DEFAULT, .sets = 100, .seed = 7};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    const char *outs[] = {a.out};
    if (cli_check_outputs("rl-calibrate", outs, 1))
        return 1;
    ms_rl_model m;
    ms_error err = {0};
    ms_gpu_model gpu;
    ms_gen_params gen;
    if (ms_model_load(a.model, &m, &err))
        goto fail_loaded;
    if (ms_gpu_lookup(m.gpu, &gpu, &err) || ms_gen_preset(&gpu, m.preset, &gen, &err))
        goto fail;
    printf("%s (%s, %s): rollout over %d actions, at most %g network passes per decision, "
           "%ld datasets per order, seed %llu\n",
           a.model, m.gpu, m.preset, a.rollout, a.passes, a.sets, (unsigned long long)a.seed);
    float chosen = 0;
    for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++) {
        cost c;
        if (measure(&m, &gpu, gen, &a, gaps[i], &c, &err))
            goto fail;
        double per = c.passes / c.decisions;
        printf("gap %.2f: %.2f passes per decision, mean makespan %.3f s\n", (double)gaps[i], per,
               c.makespan / (double)c.plans);
        if (per > a.passes)
            break; /* the first gap over P ends the search: wider ones roll out more */
        chosen = gaps[i];
    }
    m.has_rollout_gap = true;
    m.rollout_gap = chosen;
    if (ms_model_save(a.out, &m, &err))
        goto fail;
    printf("rollout_gap %.2f written to %s\n", (double)chosen, a.out);
    ms_model_fini(&m);
    return 0;
fail:
    ms_model_fini(&m);
fail_loaded:
    fprintf(stderr, "migsched rl-calibrate: %s\n", err.msg);
    return 1;
}
