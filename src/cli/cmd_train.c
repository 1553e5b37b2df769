/* cmd_train.c: `migsched train`: PPO training of a scheduling policy (paper 001 6) with
 * periodic evaluation (p_opt on a fixed set of generated datasets) and checkpoints. */
#include <errno.h>
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
#include "commands.h"
#include "migsched/learn.h"
#include "migsched/offline.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { stop_requested = 1; }

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched train --preset P --steps S --out FILE [options]\n"
            "  --gpu MODEL          GPU model or JSON file (default A100-40GB)\n"
            "  --preset P           workload generator preset(s) of the training episodes\n"
            "  --steps S            total environment steps to train for\n"
            "  --out FILE           checkpoint written at every evaluation and at the end\n"
            "  --n-batch N          tasks visible at once (default 14)\n"
            "  --levels M           time discretisation levels (default 14)\n"
            "  --encoding E         float (default), one-hot, or exact (ours: times unrounded;\n"
            "                       with --resume --fine-tune a float policy goes on with it)\n"
            "  --no-direct          reconfiguration of paper 001 4.2 instead of DIRECT RECONFIG\n"
            "  --online             online batches (a started task is replaced)\n"
            "  --hidden W,W         hidden layer widths (default 256,256)\n"
            "  --envs E --rollout T --epochs K --minibatch B --lr X --threads N\n"
            "                       PPO settings (defaults 16, 128, 4, 256, 3e-4, 2)\n"
            "  --lr-decay D         learning rate over --steps: none (default), linear or\n"
            "                       cosine from --lr down to --lr-min at the last step\n"
            "  --lr-min X           the decay's floor (default 0)\n"
            "  --separate           separate policy and value networks (default: shared trunk)\n"
            "  --ent-coef A,B,C,D   entropy coefficient per quarter of --steps\n"
            "                       (default 0.01,0.0075,0.005,0)\n"
            "  --paper-ppo          paper 001's authors' PPO (SB3 defaults): --epochs 10\n"
            "                       --minibatch 64 --separate --ent-coef 0.01,0.00075,0.0005,0;\n"
            "                       options after it override\n"
            "  --paper-episodes     every episode holds exactly N tasks (3N online) and starts on\n"
            "                       a random configuration with random busy instances\n"
            "  --sorted-share X     share (0..1, default 0) of the episodes cut as rl-eval\n"
            "                       --order sorted cuts batches: one batch of N of a dataset\n"
            "                       of --sorted-tasks T (default 100) tasks in class order\n"
            "                       (offline only)\n"
            "  --async-reconfig     a direct reconfiguration does not stop the clock: the kept\n"
            "                       instances take tasks meanwhile (ours; with --resume\n"
            "                       --fine-tune a policy trained without it goes on with it)\n"
            "  --longest-first      of tasks whose times round to the same levels, the longest\n"
            "                       runs first, not the earliest (ours; with --resume\n"
            "                       --fine-tune a policy trained without it goes on with it)\n"
            "  --soonest-placement  a reconfiguration builds its configuration at the\n"
            "                       placement whose destroyed instances free soonest (ours;\n"
            "                       with --resume --fine-tune a policy trained without it\n"
            "                       goes on with it)\n"
            "  --imitate-share X    share (0..1, default 0) of the rollout's states labelled\n"
            "                       with the action of the policy improved by rollout over\n"
            "                       its --imitate-width K (default 8; all) best actions; the\n"
            "                       loss adds --imitate-coef C (default 1) x its cross-entropy\n"
            "                       (ours: expert iteration)\n"
            "  --demonstrate-share X  share (0..1, default 0) of the episodes that FAR's plan,\n"
            "                       followed in the environment, demonstrates where it ends\n"
            "                       before the policy's greedy episode: its actions are taken\n"
            "                       and labelled for the imitation term (--imitate-coef;\n"
            "                       ours; offline only)\n"
            "  --demonstrator D     whose plans demonstrate: far (default) or search\n"
            "                       (the search scheduler with its default 10 ms)\n"
            "  --seed S             (default 1)\n"
            "  --eval-every K       evaluate and checkpoint every K steps (default S/10)\n"
            "  --eval-sets D --eval-tasks T   evaluation datasets (default 100 of 100 tasks)\n"
            "  --resume             continue from the checkpoint in --out with its settings\n"
            "  --fine-tune          (with --resume) --envs --rollout --epochs --minibatch --lr\n"
            "                       --lr-decay --lr-min --ent-coef --sorted-share\n"
            "                       --sorted-tasks --imitate-* --demonstrate-share\n"
            "                       --demonstrator given\n"
            "                       here replace its\n"
            "  --slim               write the final file without the optimiser state\n");
}

/* Training settings a resume takes from the command line instead of the checkpoint. */
enum {
    TUNE_ENVS,
    TUNE_ROLLOUT,
    TUNE_EPOCHS,
    TUNE_MINIBATCH,
    TUNE_LR,
    TUNE_DECAY,
    TUNE_LR_MIN,
    TUNE_ENT,
    TUNE_SHARE,
    TUNE_STASKS,
    TUNE_IM_SHARE,
    TUNE_IM_WIDTH,
    TUNE_IM_COEF,
    TUNE_DEMO,
    TUNE_DEMO_SOURCE,
    TUNE_N
};
static const char *const tune_names[TUNE_N] = {
    "envs",          "rollout",       "epochs",       "minibatch",         "lr",
    "lr-decay",      "lr-min",        "ent-coef",     "sorted-share",      "sorted-tasks",
    "imitate-share", "imitate-width", "imitate-coef", "demonstrate-share", "demonstrator"};

typedef struct train_opts {
    cli_common co; /* --gpu */
    const char *preset, *out;
    long steps, eval_every;
    int eval_sets, eval_tasks, levels;
    bool resume, slim, fine_tune, async_reconfig, exact, longest_first, soonest_placement;
    bool given[TUNE_N];
} train_opts;

const struct option cmd_train_options[] = {CLI_LONG_GPU,
                                           {"preset", 1, 0, 'p'},
                                           {"steps", 1, 0, 's'},
                                           {"out", 1, 0, 'o'},
                                           {"n-batch", 1, 0, 'N'},
                                           {"levels", 1, 0, 'M'},
                                           {"encoding", 1, 0, 'E'},
                                           {"no-direct", 0, 0, 'D'},
                                           {"online", 0, 0, 'O'},
                                           {"hidden", 1, 0, 'H'},
                                           {"envs", 1, 0, 'e'},
                                           {"rollout", 1, 0, 'T'},
                                           {"epochs", 1, 0, 'k'},
                                           {"minibatch", 1, 0, 'b'},
                                           {"lr", 1, 0, 'l'},
                                           {"threads", 1, 0, 'j'},
                                           {"seed", 1, 0, 'S'},
                                           {"eval-every", 1, 0, 'v'},
                                           {"eval-sets", 1, 0, 'd'},
                                           {"eval-tasks", 1, 0, 't'},
                                           {"resume", 0, 0, 'r'},
                                           {"slim", 0, 0, 'L'},
                                           {"separate", 0, 0, 'P'},
                                           {"ent-coef", 1, 0, 'C'},
                                           {"paper-ppo", 0, 0, 'A'},
                                           {"paper-episodes", 0, 0, 'Y'},
                                           {"lr-decay", 1, 0, 'y'},
                                           {"lr-min", 1, 0, 'm'},
                                           {"fine-tune", 0, 0, 'F'},
                                           {"sorted-share", 1, 0, 'x'},
                                           {"sorted-tasks", 1, 0, 'X'},
                                           {"async-reconfig", 0, 0, 'Z'},
                                           {"help", 0, 0, 'h'},
                                           {"longest-first", 0, 0, 'G'},
                                           {"soonest-placement", 0, 0, 'Q'},
                                           {"imitate-share", 1, 0, 'i'},
                                           {"imitate-width", 1, 0, 'w'},
                                           {"imitate-coef", 1, 0, 'c'},
                                           {"demonstrate-share", 1, 0, 'W'},
                                           {"demonstrator", 1, 0, 'R'},
                                           {0, 0, 0, 0}};

static int parse_args(int argc, char **argv, train_opts *o, ms_train_config *c)
{
    optind = 1;
    int ch, li = -1;
    while ((li = -1, ch = cli_next_option(&o->co, argc, argv, "h", cmd_train_options, &li)) != -1) {
        char *end = NULL;
        long v = optarg ? strtol(optarg, &end, 10) : 0;
        bool num_ok = optarg && *optarg && end && !*end && v >= 0;
        switch (ch) {
        case 'p': o->preset = optarg; break;
        case 'o': o->out = optarg; break;
        case 'D': c->env.direct_reconfig = false; break;
        case 'O': c->env.online = true; break;
        case 'r': o->resume = true; break;
        case 'L': o->slim = true; break;
        case 'F': o->fine_tune = true; break;
        case 'P': c->ppo.separate = true; break;
        case 'Y': c->paper_episodes = true; break;
        case 'Z': o->async_reconfig = c->env.async_reconfig = true; break;
        case 'G': o->longest_first = c->env.longest_first = true; break;
        case 'Q': o->soonest_placement = c->env.soonest_placement = true; break;
        case 'A': {
            ms_ppo_config paper;
            ms_ppo_config_paper(&paper);
            c->ppo.n_epochs = paper.n_epochs;
            c->ppo.minibatch = paper.minibatch;
            c->ppo.separate = paper.separate;
            memcpy(c->ppo.ent_coef, paper.ent_coef, sizeof paper.ent_coef);
            o->given[TUNE_EPOCHS] = o->given[TUNE_MINIBATCH] = o->given[TUNE_ENT] = true;
            break;
        }
        case 'C': {
            float v4[4];
            const char *q = optarg;
            for (int i = 0; i < 4; i++) {
                double x = strtod(q, &end);
                if (end == q || !(x >= 0 && x < 1) || *end != (i < 3 ? ',' : '\0'))
                    goto bad;
                v4[i] = (float)x;
                q = end + 1;
            }
            memcpy(c->ppo.ent_coef, v4, sizeof v4);
            o->given[TUNE_ENT] = true;
            break;
        }
        case 'E':
            if (ms_env_encoding_parse(optarg, &c->env.encoding))
                goto bad;
            o->exact = c->env.encoding == MS_ENC_EXACT;
            break;
        case 'H':
            if (!cli_parse_widths(optarg, MS_MLP_MAX_HIDDEN, c->ppo.hidden, &c->ppo.nhidden))
                goto bad;
            break;
        case 'l':
        case 'm': {
            double x = strtod(optarg, &end);
            if (*end || end == optarg || !(ch == 'm' ? x >= 0 && x < 1 : x > 0 && x < 1))
                goto bad;
            *(ch == 'l' ? &c->ppo.lr : &c->ppo.lr_min) = (float)x;
            o->given[ch == 'l' ? TUNE_LR : TUNE_LR_MIN] = true;
            break;
        }
        case 'x':
        case 'i':
        case 'c':
        case 'W': { /* shares in [0, 1], the coefficient in (0, 100] */
            double x;
            if (!cli_parse_double(optarg, 0, ch == 'c' ? 100 : 1, &x) || (ch == 'c' && x == 0))
                goto bad;
            if (ch == 'x')
                c->sorted.share = x;
            if (ch == 'i')
                c->ppo.imitate_share = (float)x;
            if (ch == 'c')
                c->ppo.imitate_coef = (float)x;
            if (ch == 'W')
                c->ppo.demo_share = (float)x;
            o->given[ch == 'x'   ? TUNE_SHARE
                     : ch == 'i' ? TUNE_IM_SHARE
                     : ch == 'c' ? TUNE_IM_COEF
                                 : TUNE_DEMO] = true;
            break;
        }
        case 'w':
            if (!cli_parse_rollout(optarg, &c->ppo.imitate_width))
                goto bad;
            if (c->ppo.imitate_width == MS_RL_ROLLOUT_ALL)
                c->ppo.imitate_width = 0;
            o->given[TUNE_IM_WIDTH] = true;
            break;
        case 'R':
            if (ms_demo_source_parse(optarg, &c->demo_source))
                goto bad;
            o->given[TUNE_DEMO_SOURCE] = true;
            break;
        case 'y':
            if (ms_lr_decay_parse(optarg, &c->ppo.lr_decay))
                goto bad;
            o->given[TUNE_DECAY] = true;
            break;
        case 'S':
            errno = 0;
            c->seed = strtoull(optarg, &end, 10);
            if (*end || errno)
                goto bad;
            break;
        case 's':
        case 'N':
        case 'M':
        case 'e':
        case 'T':
        case 'k':
        case 'b':
        case 'j':
        case 'v':
        case 'd':
        case 't':
        case 'X':
            if (!num_ok || (v == 0 && ch != 'v'))
                goto bad;
            if (ch == 's')
                o->steps = v;
            if (ch == 'N')
                c->env.n_batch = (int)v;
            if (ch == 'M')
                c->env.levels = o->levels = (int)v;
            if (ch == 'e')
                c->ppo.n_envs = (int)v;
            if (ch == 'T')
                c->ppo.n_steps = (int)v;
            if (ch == 'k')
                c->ppo.n_epochs = (int)v;
            if (ch == 'b')
                c->ppo.minibatch = (int)v;
            o->given[TUNE_ENVS] |= ch == 'e';
            o->given[TUNE_ROLLOUT] |= ch == 'T';
            o->given[TUNE_EPOCHS] |= ch == 'k';
            o->given[TUNE_MINIBATCH] |= ch == 'b';
            if (ch == 'j')
                c->ppo.threads = (int)v;
            if (ch == 'v')
                o->eval_every = v;
            if (ch == 'd')
                o->eval_sets = (int)v;
            if (ch == 't')
                o->eval_tasks = (int)v;
            if (ch == 'X')
                c->sorted.tasks = (int)v;
            o->given[TUNE_STASKS] |= ch == 'X';
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        continue;
    bad:
        return cli_usage_error("train", NULL, "--%s: bad value '%s' (see --help)",
                               li >= 0 ? cmd_train_options[li].name : "?", optarg);
    }
    if (o->co.status)
        return o->co.status;
    const char *missing = !o->preset                   ? "--preset"
                          : !o->steps                  ? "--steps"
                          : !o->out                    ? "--out"
                          : o->fine_tune && !o->resume ? "--resume (for --fine-tune)"
                                                       : NULL;
    if (!missing && (c->sorted.share > 0 || c->ppo.demo_share > 0) && c->env.online)
        return cli_usage_error("train", NULL, "--%s: %s are for offline policies, not --online",
                               c->sorted.share > 0 ? "sorted-share" : "demonstrate-share",
                               c->sorted.share > 0 ? "sorted batches" : "demonstrations");
    if (missing)
        return cli_usage_error("train", usage, "%s is required", missing);
    if (optind < argc)
        return cli_usage_error("train", usage, "unexpected argument '%s'", argv[optind]);
    return -1;
}

/* The fixed evaluation datasets: drawn from the training preset with a derived seed. */
static int make_eval_set(const ms_gpu_model *gpu, const ms_train_config *c, int sets, int tasks,
                         ms_workload ***out, ms_error *err)
{
    ms_workload **ws = calloc((size_t)sets, sizeof *ws);
    if (!ws)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rng rng;
    ms_rng_seed(&rng, c->seed ^ 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < sets; i++)
        if (ms_generate(gpu, &c->gen, tasks, &rng, &ws[i], err)) {
            for (int j = 0; j < i; j++)
                ms_workload_free(ws[j]);
            free(ws);
            return err->code;
        }
    *out = ws;
    return MS_OK;
}

static double evaluate(ms_trainer *t, const ms_gpu_model *gpu, ms_workload **ws, int sets,
                       ms_error *err)
{
    ms_rl_model view;
    ms_trainer_model(t, &view);
    double sum = 0;
    for (int i = 0; i < sets; i++) {
        double p;
        if (ms_rl_eval_popt(&view, gpu, ws[i], &p, err))
            return NAN;
        sum += p;
    }
    return sum / sets;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --fine-tune: the settings given on this command line replace the checkpoint's, said on
 * one line (which `plot --curves` skips). */
static void fine_tune(const train_opts *o, const ms_train_config *cli, ms_train_config *tc)
{
    bool any = false;
    ms_ppo_config *c = &tc->ppo;
    for (int k = 0; k < TUNE_N; k++) {
        if (!o->fine_tune || !o->given[k])
            continue;
        if (k == TUNE_ENVS)
            c->n_envs = cli->ppo.n_envs;
        if (k == TUNE_ROLLOUT)
            c->n_steps = cli->ppo.n_steps;
        if (k == TUNE_EPOCHS)
            c->n_epochs = cli->ppo.n_epochs;
        if (k == TUNE_MINIBATCH)
            c->minibatch = cli->ppo.minibatch;
        if (k == TUNE_LR)
            c->lr = cli->ppo.lr;
        if (k == TUNE_DECAY)
            c->lr_decay = cli->ppo.lr_decay;
        if (k == TUNE_LR_MIN)
            c->lr_min = cli->ppo.lr_min;
        if (k == TUNE_ENT)
            memcpy(c->ent_coef, cli->ppo.ent_coef, sizeof c->ent_coef);
        if (k == TUNE_SHARE)
            tc->sorted.share = cli->sorted.share;
        if (k == TUNE_STASKS)
            tc->sorted.tasks = cli->sorted.tasks;
        if (k == TUNE_IM_SHARE)
            c->imitate_share = cli->ppo.imitate_share;
        if (k == TUNE_IM_WIDTH)
            c->imitate_width = cli->ppo.imitate_width;
        if (k == TUNE_IM_COEF)
            c->imitate_coef = cli->ppo.imitate_coef;
        if (k == TUNE_DEMO)
            c->demo_share = cli->ppo.demo_share;
        if (k == TUNE_DEMO_SOURCE)
            tc->demo_source = cli->demo_source;
        fprintf(stderr, "%s --%s", any ? "," : "fine-tune: this run's", tune_names[k]);
        any = true;
    }
    if (any)
        fprintf(stderr, " replace the checkpoint's\n");
}

static int load_resume(const train_opts *o, ms_train_config *c, ms_rl_model *r, bool *have)
{
    ms_error err;
    *have = false;
    if (!o->resume || access(o->out, F_OK))
        return 0;
    if (ms_model_load(o->out, r, &err)) {
        fprintf(stderr, "migsched train: %s\n", err.msg);
        return 1;
    }
    *have = true;
    c->env = r->env; /* the checkpoint's environment wins */
    /* A fine-tune may switch on asynchronous reconfigurations, the longest task of a class
     * first, the soonest placement, and exact times for the rounded ones of FLOAT (never
     * back: the policy has learnt them). */
    bool add_async = o->async_reconfig && !r->env.async_reconfig,
         add_longest = o->longest_first && !r->env.longest_first,
         add_soonest = o->soonest_placement && !r->env.soonest_placement,
         add_exact = o->exact && r->env.encoding == MS_ENC_FLOAT;
    if ((add_async || add_longest || add_soonest || add_exact) && !o->fine_tune) {
        fprintf(stderr,
                "migsched train: %s was trained without %s: adding it needs "
                "--fine-tune\n",
                o->out,
                add_async     ? "--async-reconfig"
                : add_longest ? "--longest-first"
                : add_soonest ? "--soonest-placement"
                              : "exact times");
        ms_model_fini(r);
        *have = false;
        return 1;
    }
    c->env.async_reconfig |= add_async;
    c->env.longest_first |= add_longest;
    c->env.soonest_placement |= add_soonest;
    if (add_exact)
        c->env.encoding = MS_ENC_EXACT;
    /* With exact times the levels only group tasks into classes (the state's size and values
     * do not depend on them), so a fine-tune may change them. */
    bool new_levels = o->levels && o->levels != r->env.levels;
    if (new_levels && (!o->fine_tune || c->env.encoding != MS_ENC_EXACT)) {
        fprintf(stderr,
                "migsched train: %s has %d levels: --levels %d needs --fine-tune and "
                "exact times\n",
                o->out, r->env.levels, o->levels);
        ms_model_fini(r);
        *have = false;
        return 1;
    }
    if (new_levels) {
        c->env.levels = o->levels;
        fprintf(stderr, "fine-tune: tasks form classes at %d levels (was %d)\n", o->levels,
                r->env.levels);
    }
    if (add_async)
        fprintf(stderr, "fine-tune: reconfigurations no longer stop the clock\n");
    if (add_exact)
        fprintf(stderr, "fine-tune: the state shows exact times\n");
    if (add_longest)
        fprintf(stderr, "fine-tune: a class's longest task runs first\n");
    if (add_soonest)
        fprintf(stderr, "fine-tune: reconfigurations take the placement that frees soonest\n");
    if (r->has_train) { /* and so do its training settings (threads are this run's) */
        ms_train_config cli = *c;
        c->ppo = r->ppo;
        c->ppo.threads = cli.ppo.threads;
        c->paper_episodes = r->paper_episodes;
        c->sorted = r->sorted;
        c->demo_source = r->demo_source;
        if (!c->sorted.tasks) /* a share given now cuts from the default dataset */
            c->sorted.tasks = cli.sorted.tasks;
        fine_tune(o, &cli, c);
    }
    c->ppo.nhidden = r->mlp.nhidden;
    c->ppo.separate = r->mlp.separate;
    memcpy(c->ppo.hidden, r->mlp.hidden, sizeof c->ppo.hidden);
    /* The CPU count goes on from the checkpoint's; `plot --curves` reads this line. */
    if (r->has_cpu)
        fprintf(stderr, "resuming %s at %ld steps, cpu %.1f s\n", o->out, r->steps, r->cpu_seconds);
    else
        fprintf(stderr,
                "resuming %s at %ld steps (the checkpoint has no CPU time: counting "
                "from 0)\n",
                o->out, r->steps);
    if (r->steps >= o->steps)
        fprintf(stderr, "%s is at %ld steps, --steps %ld: nothing to train; %s\n", o->out, r->steps,
                o->steps,
                o->slim ? "writing it without the optimiser state"
                        : "the file is left as it is (--slim writes it without the optimiser "
                          "state and with this run's settings)");
    return 0;
}

static int train_loop(ms_trainer *t, const train_opts *o, const ms_gpu_model *gpu, ms_workload **ws)
{
    ms_error err;
    long every = o->eval_every ? o->eval_every : (o->steps + 9) / 10;
    long next_eval = ms_trainer_steps(t) + every;
    double t0 = now_s(), cpu0 = ms_trainer_cpu_seconds(t);
    long s0 = ms_trainer_steps(t);
    double ret_sum = 0;
    int ret_n = 0, demos = 0;
    while (ms_trainer_steps(t) < o->steps && !stop_requested) {
        ms_ppo_stats st;
        if (ms_trainer_iterate(t, &st, &err)) {
            fprintf(stderr, "migsched train: %s\n", err.msg);
            return 1;
        }
        if (st.episodes) {
            ret_sum += st.mean_return * st.episodes;
            ret_n += st.episodes;
        }
        demos += st.demonstrations;
        bool final = ms_trainer_steps(t) >= o->steps || stop_requested;
        if (ms_trainer_steps(t) < next_eval && !final)
            continue;
        next_eval += every;
        double el = now_s() - t0;
        double popt = evaluate(t, gpu, ws, o->eval_sets, &err);
        if (isnan(popt)) {
            fprintf(stderr, "migsched train: evaluation: %s\n", err.msg);
            return 1;
        }
        /* The whole process (evaluations included), over every resumed run. */
        double cpu = cpu0 + cli_cpu_seconds();
        ms_trainer_set_cpu_seconds(t, cpu);
        fprintf(stderr,
                "steps %ld/%ld  %.0f steps/s  cpu %.1f s  mean return %.4f (%d episodes)  "
                "entropy %.3f (coef %.4f)  lr %.2e  kl %.4f  ",
                ms_trainer_steps(t), o->steps, (ms_trainer_steps(t) - s0) / (el > 0 ? el : 1), cpu,
                ret_n ? ret_sum / ret_n : NAN, ret_n, st.entropy, st.ent_coef, st.lr, st.approx_kl);
        if (!isnan(st.imitate_loss)) /* the last update's cross-entropy to the improved actions */
            fprintf(stderr, "imitate %.4f  ", st.imitate_loss);
        if (demos) /* FAR's episodes, not in the mean return */
            fprintf(stderr, "demonstrated %d  ", demos);
        fprintf(stderr, "p_opt %.2f%% on %d sets\n", popt, o->eval_sets);
        ret_sum = 0;
        ret_n = demos = 0;
        if (ms_trainer_save(t, o->out, &err)) {
            fprintf(stderr, "migsched train: %s\n", err.msg);
            return 1;
        }
    }
    return stop_requested ? 130 : 0;
}

int cmd_train(int argc, char **argv)
{
    train_opts o = {.co = {.cmd = "train", .takes = CLI_GPU, .gpu = "A100-40GB"},
                    .eval_sets = 100,
                    .eval_tasks = 100};
    ms_train_config c;
    memset(&c, 0, sizeof c);
    ms_env_config_default(&c.env);
    ms_ppo_config_default(&c.ppo);
    c.seed = 1;
    c.sorted.tasks = 100; /* rl-eval's --tasks */
    int rc = parse_args(argc, argv, &o, &c);
    if (rc >= 0)
        return rc;
    /* before training, not at the first checkpoint minutes later */
    const char *outputs[] = {o.out};
    if (cli_check_outputs("train --out", outputs, 1))
        return 1;
    ms_error err;
    ms_gpu_model gpu;
    if (ms_gpu_lookup(o.co.gpu, &gpu, &err) || ms_gen_preset(&gpu, o.preset, &c.gen, &err)) {
        fprintf(stderr, "migsched train: %s\n", err.msg);
        return 1;
    }
    snprintf(c.preset, sizeof c.preset, "%s", o.preset);
    c.total_steps = o.steps;
    ms_rl_model resume;
    bool have = false;
    if (load_resume(&o, &c, &resume, &have))
        return 1;
    c.demonstrator = c.demo_source == MS_DEMO_SEARCH ? ms_search_plan : ms_far_plan;
    if (c.ppo.lr_min > c.ppo.lr) {
        fprintf(stderr, "migsched train: --lr-min %g is above --lr %g\n", c.ppo.lr_min, c.ppo.lr);
        if (have)
            ms_model_fini(&resume);
        return 1;
    }
    ms_workload **ws = NULL;
    ms_trainer *t = NULL;
    rc = 1;
    if (make_eval_set(&gpu, &c, o.eval_sets, o.eval_tasks, &ws, &err) ||
        !(t = ms_trainer_new(&gpu, &c, have ? &resume : NULL, &err))) {
        fprintf(stderr, "migsched train: %s\n", err.msg);
        goto out;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    rc = train_loop(t, &o, &gpu, ws);
    if (rc != 1 && o.slim) {
        ms_rl_model view;
        ms_trainer_model(t, &view);
        view.has_adam = false;
        view.has_cpu = false; /* a measured time: the final file stays reproducible */
        if (ms_model_save(o.out, &view, &err)) {
            fprintf(stderr, "migsched train: %s\n", err.msg);
            rc = 1;
        }
    }
out:
    ms_trainer_free(t);
    for (int i = 0; ws && i < o.eval_sets; i++)
        ms_workload_free(ws[i]);
    free(ws);
    if (have)
        ms_model_fini(&resume);
    return rc;
}
