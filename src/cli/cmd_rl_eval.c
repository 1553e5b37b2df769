/* cmd_rl_eval.c: `migsched rl-eval`: a trained policy against the offline schedulers on
 * the same generated datasets (ms_rl_eval_run), as text or JSON. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/learn.h"
#include "migsched/offline.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: migsched rl-eval --model FILE [options]\n"
            "  --gpu MODEL       GPU model (default: the model's)\n"
            "  --preset P        generator preset (default: the model's)\n"
            "  --sets D          datasets (default 1000)\n"
            "  --tasks T         tasks per dataset (default 100)\n"
            "  --seed S          seed of the datasets (default 2026)\n"
            "  --order O         shuffled (default) or sorted: each dataset's tasks in\n"
            "                    class order, as paper 001's authors' script writes them\n"
            "  --compare LIST    offline algorithms to run on the same data, e.g. far,miso\n"
            "  --offline-model F (online models) the offline policy to compare with\n"
            "  --rollout K       the policy improved by rollout over its K best actions\n"
            "                    (or all; default %d; 1: greedy, paper 001's agent)\n"
            "  --rollout-gap G   only over those whose logit is within G of the greedy\n"
            "                    action's (default: the model's calibrated gap, else %g;\n"
            "                    inf: at every decision)\n"
            "  --by-batch        (offline policies) also p_opt per batch position: the\n"
            "                    mean over the datasets of each one's k-th batch\n"
            "  --json            print the result as JSON\n"
            "Offline policies: p_opt = mean over each dataset's batches of N of\n"
            "(makespan / l_bound_paper - 1) x 100, each batch scheduled alone (also for\n"
            "the compared algorithms). Online policies: the whole dataset is one queue;\n"
            "p_online^A = (makespan of A / makespan of the policy - 1) x 100, A given the\n"
            "dataset in batches of N (FAR concatenates them trivially).\n",
            MS_RL_ROLLOUT_DEFAULT, (double)MS_RL_GAP_DEFAULT);
}

typedef struct eval_args {
    const char *model, *gpu, *preset, *offline;
    char list[512];
    long sets, tasks;
    uint64_t seed;
    bool json, sorted, by_batch;
    int rollout;
    float gap;
} eval_args;

/* What the evaluation runs with: the loaded policies and the algorithms compared. */
typedef struct eval_ctx {
    ms_rl_model model, offline_model;
    bool has_offline;
    ms_gpu_model gpu; /* the model's or --gpu */
    ms_rl_eval eval;
    ms_rl_eval_result res;
} eval_ctx;

static void report(const eval_ctx *c, const eval_args *a)
{
    bool online = c->model.env.online;
    const ms_rl_eval_result *r = &c->res;
    int ncmp = c->eval.ncompare;
    printf("%s (%s, %ld steps) on %ld %s datasets of %ld tasks, seed %llu%s", a->model,
           c->model.gpu, c->model.steps, a->sets, a->preset, a->tasks, (unsigned long long)a->seed,
           a->sorted ? ", tasks in class order" : "");
    if (!ms_rl_rule_rolls_out(a->rollout, a->gap))
        printf(", greedy");
    else {
        if (a->rollout == MS_RL_ROLLOUT_ALL)
            printf(", rollout over every allowed action");
        else
            printf(", rollout over the %d best actions", a->rollout);
        if (isfinite(a->gap))
            printf(" within logit gap %g", (double)a->gap);
        else
            printf(" at every decision");
    }
    printf("\n");
    if (!online) {
        printf("p_opt %%: rl %.2f", r->mean[0]);
        for (int k = 0; k < ncmp; k++)
            printf("  %s %.2f", c->eval.compare[k], r->mean[k + 1]);
    } else {
        printf("online rl: mean makespan %.2f s; p_online %%:", r->mean[0]);
        for (int k = 0; k < ncmp; k++)
            printf("  vs %s %.2f", c->eval.compare[k], r->mean[k + 1]);
        if (c->has_offline)
            printf("  vs offline rl %.2f", r->mean[ncmp + 1]);
    }
    printf("\n");
    for (int b = 0; b < r->npos; b++) {
        int from = b * c->model.env.n_batch, n = (int)a->tasks - from;
        const double *v = r->by_batch[b];
        printf("batch %d (tasks %d-%d): rl %.2f", b + 1, from + 1,
               from + (n < c->model.env.n_batch ? n : c->model.env.n_batch), v[0]);
        for (int k = 0; k < ncmp; k++)
            printf("  %s %.2f", c->eval.compare[k], v[k + 1]);
        printf("\n");
    }
}

/* The numbers of report(): p_opt per algorithm (offline) or p_online against each
 * (online, with the policy's mean makespan). */
static int report_json(const eval_ctx *c, const eval_args *a)
{
    bool online = c->model.env.online;
    const ms_rl_eval_result *r = &c->res;
    int ncmp = c->eval.ncompare;
    json_t *per = json_object();
    if (!online) /* the policy's own p_opt beside the others' */
        json_object_set_new(per, "rl", cli_json_real(r->mean[0]));
    for (int k = 0; k < ncmp; k++)
        json_object_set_new(per, c->eval.compare[k], cli_json_real(r->mean[k + 1]));
    if (online && c->has_offline)
        json_object_set_new(per, "offline rl", cli_json_real(r->mean[ncmp + 1]));
    json_t *root = json_pack(
        "{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:s, s:b}", "model", a->model, "model_gpu",
        c->model.gpu, "steps", (json_int_t)c->model.steps, "gpu_model", c->gpu.name, "preset",
        a->preset, "sets", (json_int_t)a->sets, "tasks", (json_int_t)a->tasks, "seed",
        (json_int_t)a->seed, "order", a->sorted ? "sorted" : "shuffled", "online", online);
    if (online)
        json_object_update_new(root, json_pack("{s:o, s:o}", "mean_makespan",
                                               cli_json_real(r->mean[0]), "p_online", per));
    else
        json_object_set_new(root, "p_opt", per);
    if (r->npos) { /* one object per batch position, keyed as "p_opt" is */
        json_t *arr = json_array();
        for (int b = 0; b < r->npos; b++) {
            const double *v = r->by_batch[b];
            json_t *o = json_pack("{s:o}", "rl", cli_json_real(v[0]));
            for (int k = 0; k < ncmp; k++)
                json_object_set_new(o, c->eval.compare[k], cli_json_real(v[k + 1]));
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "p_opt_by_batch", arr);
    }
    if (ms_rl_rule_rolls_out(a->rollout, a->gap)) { /* greedy evaluations have neither */
        json_object_set_new(root, "rollout",
                            a->rollout == MS_RL_ROLLOUT_ALL ? json_string("all")
                                                            : json_integer(a->rollout));
        json_object_set_new(root, "rollout_gap",
                            isfinite(a->gap) ? json_real(a->gap) : json_string("inf"));
    }
    return cli_json_print("rl-eval", root);
}

/* Unknown names are bad input (1); rl against itself is a usage error (2). */
static int split_list(char *list, ms_rl_eval *e)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (!ms_offline_known(tok))
            return cli_fail("rl-eval", "--compare: unknown algorithm '%s'", tok);
        if (e->ncompare == MS_RL_EVAL_MAX_COMPARE || !strcmp(tok, "rl"))
            return cli_usage_error("rl-eval", NULL,
                                   "--compare: at most %d offline algorithms, "
                                   "not rl",
                                   MS_RL_EVAL_MAX_COMPARE);
        e->compare[e->ncompare++] = tok;
    }
    return 0;
}

const struct option cmd_rl_eval_options[] = {{"model", 1, 0, 'm'},
                                             CLI_LONG_GPU,
                                             {"preset", 1, 0, 'p'},
                                             {"sets", 1, 0, 'd'},
                                             {"tasks", 1, 0, 't'},
                                             CLI_LONG_SEED,
                                             {"compare", 1, 0, 'c'},
                                             {"offline-model", 1, 0, 'f'},
                                             CLI_LONG_JSON,
                                             {"order", 1, 0, 'o'},
                                             {"rollout", 1, 0, 'r'},
                                             {"rollout-gap", 1, 0, 'G'},
                                             {"by-batch", 0, 0, 'b'},
                                             {"help", 0, 0, 'h'},
                                             {0, 0, 0, 0}};

/* Returns -1 when the arguments are good, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, eval_args *a)
{
    cli_common co = {.cmd = "rl-eval", .takes = CLI_GPU | CLI_SEED | CLI_JSON, .seed = a->seed};
    int ch, li = -1;
    optind = 1;
    while ((ch = cli_next_option(&co, argc, argv, "h", cmd_rl_eval_options, &li)) != -1) {
        switch (ch) {
        case 'm': a->model = optarg; break;
        case 'p': a->preset = optarg; break;
        case 'f': a->offline = optarg; break;
        case 'c': snprintf(a->list, sizeof a->list, "%s", optarg); break;
        case 'b': a->by_batch = true; break;
        case 'r':
            if (!cli_parse_rollout(optarg, &a->rollout))
                return cli_usage_error("rl-eval", NULL, "--rollout: '%s' is not 1..1000 or all",
                                       optarg);
            break;
        case 'G':
            if (!cli_parse_rollout_gap(optarg, &a->gap))
                return cli_usage_error("rl-eval", NULL,
                                       "--rollout-gap: '%s' is not a number in "
                                       "0..1000 or inf",
                                       optarg);
            break;
        case 'o':
            if (strcmp(optarg, "shuffled") && strcmp(optarg, "sorted"))
                return cli_usage_error("rl-eval", NULL, "--order: '%s' is not shuffled or sorted",
                                       optarg);
            a->sorted = !strcmp(optarg, "sorted");
            break;
        case 'd':
        case 't':
            if (!cli_parse_long(optarg, 1, 1000000, ch == 'd' ? &a->sets : &a->tasks))
                return cli_usage_error("rl-eval", NULL,
                                       "--%s: '%s' is not an integer in "
                                       "1..1000000",
                                       cmd_rl_eval_options[li].name, optarg);
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    a->gpu = co.gpu;
    a->seed = co.seed;
    a->json = co.json;
    if (!a->model || optind < argc)
        return cli_usage_error("rl-eval", usage, "%s",
                               a->model ? "unexpected argument" : "--model FILE is required");
    return -1;
}

/* The evaluation's datasets: the model's GPU and preset unless others are given. */
static int setup_eval(eval_ctx *c, eval_args *a, ms_error *err)
{
    if (!a->preset)
        a->preset = c->model.preset;
    if (ms_gpu_lookup(a->gpu ? a->gpu : c->model.gpu, &c->gpu, err) ||
        ms_gen_preset(&c->gpu, a->preset, &c->eval.gen, err))
        return 1;
    c->eval.gen.class_order = a->sorted;
    c->eval.model = &c->model;
    c->eval.offline_model = c->has_offline ? &c->offline_model : NULL;
    c->eval.rollout = a->rollout;
    c->eval.gap = a->gap;
    c->eval.sets = a->sets;
    c->eval.tasks = (int)a->tasks;
    c->eval.seed = a->seed;
    c->eval.by_batch = a->by_batch;
    return 0;
}

int cmd_rl_eval(int argc, char **argv)
{
    eval_args a = {
        .sets = 1000, .tasks = 100, .seed = 2026, .rollout = MS_RL_ROLLOUT_DEFAULT, .gap = NAN};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    eval_ctx c;
    memset(&c, 0, sizeof c);
    if ((rc = split_list(a.list, &c.eval)))
        return rc;
    ms_error err;
    if (ms_model_load(a.model, &c.model, &err) ||
        (a.offline && ms_model_load(a.offline, &c.offline_model, &err))) {
        ms_model_fini(&c.model);
        return cli_fail("rl-eval", "%s", err.msg);
    }
    c.has_offline = a.offline != NULL;
    if (isnan(a.gap))
        a.gap = ms_rl_model_gap(&c.model);
    rc = 1;
    if (a.by_batch && c.model.env.online) {
        rc = cli_usage_error("rl-eval", NULL,
                             "--by-batch: an online policy plans each dataset "
                             "as one queue, not in batches");
    } else if (setup_eval(&c, &a, &err) || ms_rl_eval_run(&c.gpu, &c.eval, &c.res, &err)) {
        cli_fail("rl-eval", "%s", err.msg);
    } else if (a.json) {
        rc = report_json(&c, &a);
    } else {
        report(&c, &a);
        rc = 0;
    }
    ms_rl_eval_result_fini(&c.res);
    ms_model_fini(&c.model);
    if (c.has_offline)
        ms_model_fini(&c.offline_model);
    return rc;
}
