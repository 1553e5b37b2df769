/* cmd_hier_train.c: `migsched hier train`: offline training of the co-scheduling agent of
 * paper 004 (dueling double DQN) on job mixes of the programs not held out, with periodic
 * evaluation on test windows (Table V's at W = 12) and checkpoints. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "hier_cli.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { stop_requested = 1; }

#define NEVAL 12

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched hier train --out FILE [options]\n"
            "  --out FILE           model file, written at every evaluation and at the end\n"
            "  --steps N            environment steps (decisions) to train for (default 200000)\n"
            "  --seed S             (default 1)\n"
            "  --window W           jobs per window, the state's rows (default 12)\n"
            "  --cmax C             largest co-run group, 1..4 (default 4)\n"
            "  --catalogue FILE     job profiles (default: the built-in, modelled catalogue)\n"
            "  --corun FILE         measured co-run table instead of the model\n"
            "  --gamma G            the model's interference (default 0.4)\n"
            "  --ri-weight X        weight of the intermediate reward r_i (default 1)\n"
            "  --saved-weight X     weight of the time a closed group saves (default 1)\n"
            "  --rf-weight X        weight of the final reward r_f (default 1)\n"
            "  --best-setup         the agent picks job sets; each gets its best setup\n"
            "  --gains              state rows also carry co-run gains (docs/hier-agent.md)\n"
            "  --hidden A,B,C       hidden widths (default 512,256,128)\n"
            "  --lr X --batch B --replay N --learn-start N --train-every K --target-every K\n"
            "  --eps-steps N        DQN settings (defaults 1e-4, 64, 50000, 1000, 1, 500,\n"
            "                       half of --steps)\n"
            "  --eval-every K       evaluate and checkpoint every K steps (default steps/10)\n"
            "  --expert-pretrain N  first N supervised updates toward the exact action values\n"
            "                       (ours; needs --ri-weight 0; default 0: DQN alone, as the\n"
            "                       paper); --steps 0 then trains by them alone\n");
}

typedef struct opts {
    const char *out;
    hier_sources src;
    long steps, eval_every, pretrain;
    uint64_t seed;
    ms_hier_rl_config cfg;
} opts;

const struct option cmd_hier_train_options[] = {{"out", 1, 0, 'o'},
                                                {"steps", 1, 0, 's'},
                                                {"seed", 1, 0, 'S'},
                                                {"window", 1, 0, 'w'},
                                                {"cmax", 1, 0, 'c'},
                                                {"catalogue", 1, 0, 'C'},
                                                {"corun", 1, 0, 'R'},
                                                {"ri-weight", 1, 0, 'i'},
                                                {"hidden", 1, 0, 'H'},
                                                {"lr", 1, 0, 'l'},
                                                {"batch", 1, 0, 'b'},
                                                {"replay", 1, 0, 'r'},
                                                {"learn-start", 1, 0, 'L'},
                                                {"train-every", 1, 0, 't'},
                                                {"target-every", 1, 0, 'T'},
                                                {"eps-steps", 1, 0, 'e'},
                                                {"eval-every", 1, 0, 'v'},
                                                {"best-setup", 0, 0, 'B'},
                                                {"saved-weight", 1, 0, 'W'},
                                                {"gamma", 1, 0, 'g'},
                                                {"help", 0, 0, 'h'},
                                                {"gains", 0, 0, 'G'},
                                                {"rf-weight", 1, 0, 'F'},
                                                {"expert-pretrain", 1, 0, 'P'},
                                                {0, 0, 0, 0}};

static int parse_args(int argc, char **argv, opts *o)
{
    ms_dqn_config *d = &o->cfg.dqn;
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", cmd_hier_train_options, NULL)) != -1) {
        double x;
        bool ok = true;
        switch (ch) {
        case 'o': o->out = optarg; break;
        case 'C': o->src.catalogue = optarg; break;
        case 'R': o->src.corun = optarg; break;
        case 'g': ok = cli_parse_double(optarg, 0, 100, &o->src.gamma); break;
        case 's': ok = cli_parse_long(optarg, 0, 1L << 40, &o->steps); break;
        case 'P': ok = cli_parse_long(optarg, 0, 1L << 40, &o->pretrain); break;
        case 'S': ok = cli_parse_seed(optarg, &o->seed); break;
        case 'w': ok = cli_parse_int(optarg, 1, 64, &o->cfg.window); break;
        case 'c': ok = cli_parse_int(optarg, 1, MS_HIER_MAX_C, &o->cfg.cmax); break;
        case 'i': ok = cli_parse_double(optarg, 0, 1e6, &o->cfg.ri_weight); break;
        case 'W': ok = cli_parse_double(optarg, 0, 1e6, &o->cfg.saved_weight); break;
        case 'F': ok = cli_parse_double(optarg, 0, 1e6, &o->cfg.rf_weight); break;
        case 'B': o->cfg.best_setup = true; break;
        case 'G': o->cfg.gains = true; break;
        case 'H': ok = cli_parse_widths(optarg, MS_MLP_MAX_HIDDEN, d->hidden, &d->nhidden); break;
        case 'l':
            ok = cli_parse_double(optarg, 1e-9, 1, &x);
            d->lr = (float)x;
            break;
        case 'b': ok = cli_parse_int(optarg, 1, 1 << 16, &d->batch); break;
        case 'r': ok = cli_parse_int(optarg, 1, 1 << 24, &d->replay); break;
        case 'L': ok = cli_parse_int(optarg, 0, 1 << 30, &d->learn_start); break;
        case 't': ok = cli_parse_int(optarg, 1, 1 << 20, &d->train_every); break;
        case 'T': ok = cli_parse_int(optarg, 1, 1 << 30, &d->target_every); break;
        case 'e': ok = cli_parse_long(optarg, 1, 1L << 40, &d->eps_steps); break;
        case 'v': ok = cli_parse_long(optarg, 1, 1L << 40, &o->eval_every); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (!ok)
            return cli_usage_error("hier train", NULL, "bad value '%s' for an option", optarg);
    }
    if (o->steps == 0 && o->pretrain == 0)
        return cli_usage_error("hier train", NULL, "--steps 0 needs --expert-pretrain N > 0");
    if (o->pretrain > 0 && o->cfg.ri_weight != 0)
        return cli_usage_error("hier train", NULL,
                               "--expert-pretrain needs --ri-weight 0 (the "
                               "exact values cover the time saved and r_f, not r_i)");
    if (optind < argc || !o->out)
        return cli_usage_error("hier train", usage, "--out is required");
    return -1;
}

/* Test windows: Table V's Q1-Q12 at W = 12 (they hold the unseen programs), otherwise three
 * mixes of each category drawn with a seed derived from --seed. */
static int eval_windows(const opts *o, const ms_hier_catalog *cat, ms_hier_window *ws,
                        ms_error *err)
{
    ms_rng rng;
    ms_rng_seed(&rng, o->seed ^ 0x9e3779b97f4a7c15ull);
    for (int k = 0; k < NEVAL; k++) {
        const char *category;
        int rc = o->cfg.window == 12
                     ? ms_hier_window_from_names(cat, ms_hier_table5_mix(k, &category), 12, &ws[k],
                                                 err)
                     : ms_hier_window_mix(cat, k % MS_HIER_NMIX, (size_t)o->cfg.window, -1, &rng,
                                          &ws[k], err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

static double mean_throughput(const ms_hier_plan *plans, const ms_hier_window *ws)
{
    double sum = 0;
    for (int k = 0; k < NEVAL; k++) {
        ms_hier_metrics m;
        ms_hier_plan_metrics(&plans[k], &ws[k], &m, NULL);
        sum += m.throughput;
    }
    return sum / NEVAL;
}

/* Mean throughput of the greedy agent over the test windows. */
static int evaluate(ms_hier_trainer *t, const ms_hier_window *ws, const ms_hier_corun *cr, int cmax,
                    double *tp, ms_error *err)
{
    ms_hier_plan plans[NEVAL];
    memset(plans, 0, sizeof plans);
    int rc = MS_OK;
    for (int k = 0; k < NEVAL && !rc; k++)
        rc = ms_hier_trainer_plan(t, &ws[k], cr, cmax, MS_HIER_GREEDY, &plans[k], err);
    if (!rc)
        *tp = mean_throughput(plans, ws);
    for (int k = 0; k < NEVAL; k++)
        ms_hier_plan_fini(&plans[k]);
    return rc;
}

static int optimum(const ms_hier_window *ws, const ms_hier_corun *cr, int cmax, double *tp,
                   ms_error *err)
{
    ms_hier_plan plans[NEVAL];
    memset(plans, 0, sizeof plans);
    int rc = MS_OK;
    for (int k = 0; k < NEVAL && !rc; k++)
        rc = ms_hier_solve(&ws[k], cr, cmax, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &plans[k], err);
    if (!rc)
        *tp = mean_throughput(plans, ws);
    for (int k = 0; k < NEVAL; k++)
        ms_hier_plan_fini(&plans[k]);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Ends a progress line (head says what was trained) with the greedy agent's throughput on
 * the test windows, and writes the checkpoint. */
static int checkpoint(ms_hier_trainer *t, const opts *o, const ms_hier_window *ws,
                      const ms_hier_corun *cr, double opt_tp, const char *head)
{
    ms_error err;
    double tp = NAN;
    if (evaluate(t, ws, cr, o->cfg.cmax, &tp, &err)) {
        fprintf(stderr, "\nmigsched hier train: evaluation: %s\n", err.msg);
        return 1;
    }
    fprintf(stderr, "%s%s  throughput %.4f on %d test windows (optimum %.4f, %.1f%%)\n",
            isatty(STDERR_FILENO) ? "\r" : "", head, tp, NEVAL, opt_tp, 100 * tp / opt_tp);
    if (ms_hier_trainer_save(t, o->out, &err)) {
        fprintf(stderr, "migsched hier train: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* --expert-pretrain: supervised updates toward the exact action values, a progress line
 * ("pretrain U/N ...") and a checkpoint every tenth (or --eval-every updates). */
static int pretrain_loop(ms_hier_trainer *t, const opts *o, const ms_hier_window *ws,
                         const ms_hier_corun *cr, double opt_tp)
{
    ms_error err;
    long every = o->eval_every ? o->eval_every : (o->pretrain + 9) / 10;
    double t0 = now_s();
    for (long done = 0; done < o->pretrain && !stop_requested;) {
        long n = every < o->pretrain - done ? every : o->pretrain - done;
        double loss;
        if (ms_hier_trainer_pretrain(t, n, &loss, &err)) {
            fprintf(stderr, "migsched hier train: %s\n", err.msg);
            return 1;
        }
        done += n;
        double el = now_s() - t0;
        char head[256];
        snprintf(head, sizeof head,
                 "pretrain %ld/%ld  %.0f s  cpu %.1f s  %.0f updates/s  "
                 "loss %.5f",
                 done, o->pretrain, el, cli_cpu_seconds(), done / (el > 0 ? el : 1), loss);
        if (checkpoint(t, o, ws, cr, opt_tp, head))
            return 1;
    }
    return stop_requested ? 130 : 0;
}

static int train_loop(ms_hier_trainer *t, const opts *o, const ms_hier_window *ws,
                      const ms_hier_corun *cr, double opt_tp)
{
    ms_error err;
    long every = o->eval_every ? o->eval_every : (o->steps + 9) / 10, done = 0;
    long next_eval = every;
    bool tty = isatty(STDERR_FILENO);
    double t0 = now_s(), ret_sum = 0;
    int ret_n = 0;
    while (done < o->steps && !stop_requested) {
        long n = 1000;
        if (n > next_eval - done)
            n = next_eval - done;
        ms_dqn_stats st;
        if (ms_hier_trainer_run(t, n, &st, &err)) {
            fprintf(stderr, "migsched hier train: %s\n", err.msg);
            return 1;
        }
        done = st.steps;
        if (st.episodes) {
            ret_sum += st.mean_return * st.episodes;
            ret_n += st.episodes;
        }
        double el = now_s() - t0;
        if (tty)
            fprintf(stderr, "\rsteps %ld/%ld  %.0f steps/s  epsilon %.3f  loss %.5f ", done,
                    o->steps, done / (el > 0 ? el : 1), st.epsilon, st.loss);
        bool final = done >= o->steps || stop_requested;
        if (done < next_eval && !final)
            continue;
        next_eval += every;
        char head[256];
        snprintf(head, sizeof head,
                 "steps %ld/%ld  %.0f s  cpu %.1f s  %.0f steps/s  "
                 "epsilon %.3f  loss %.5f  mean Q %.4f  mean return %.4f (%d episodes)",
                 done, o->steps, el, cli_cpu_seconds(), done / (el > 0 ? el : 1), st.epsilon,
                 st.loss, st.mean_q, ret_n ? ret_sum / ret_n : NAN, ret_n);
        ret_sum = 0;
        ret_n = 0;
        if (checkpoint(t, o, ws, cr, opt_tp, head))
            return 1;
    }
    return stop_requested ? 130 : 0;
}

int hier_train(int argc, char **argv)
{
    opts o = {.steps = 200000, .seed = 1};
    o.src.gamma = ms_hier_params_default().gamma;
    ms_hier_rl_config_default(&o.cfg);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    ms_error err;
    ms_hier_catalog cat;
    ms_hier_corun *cr = NULL;
    if (hier_load_sources(&o.src, &cat, &cr))
        return 1;
    ms_hier_window ws[NEVAL];
    memset(ws, 0, sizeof ws);
    ms_hier_trainer *t = NULL;
    double opt_tp = NAN;
    rc = 1;
    if (eval_windows(&o, &cat, ws, &err) ||
        /* The exhaustive optimum is out of reach past MS_HIER_MAX_W jobs. */
        (o.cfg.window <= MS_HIER_MAX_W && optimum(ws, cr, o.cfg.cmax, &opt_tp, &err)) ||
        !(t = ms_hier_trainer_new(&o.cfg, &cat, cr, NULL, o.steps, o.seed, &err))) {
        fprintf(stderr, "migsched hier train: %s\n", err.msg);
        goto out;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    rc = pretrain_loop(t, &o, ws, cr, opt_tp);
    if (rc == 0 && o.steps > 0)
        rc = train_loop(t, &o, ws, cr, opt_tp);
out:
    ms_hier_trainer_free(t);
    for (int k = 0; k < NEVAL; k++)
        ms_hier_window_fini(&ws[k]);
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return rc;
}
