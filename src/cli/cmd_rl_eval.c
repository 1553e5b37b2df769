/* cmd_rl_eval.c: `migsched rl-eval`: a trained policy against the offline schedulers on
 * the same generated datasets: p_opt per batch for offline policies (paper 001 Table 4),
 * p_online^A for online ones (Table 5). Every schedule goes through the validator. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "migsched/learn.h"
#include "migsched/offline.h"

#define MAX_CMP 8

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched rl-eval --model FILE [options]\n"
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

typedef struct eval_ctx {
    const ms_gpu_model *gpu;
    ms_rl_model model, offline_model;
    bool has_offline;
    int rollout;  /* the policies' rule of decision (ms_rl_schedule) */
    float gap;
    int ncmp;
    char *cmp[MAX_CMP];
    double sum[MAX_CMP + 2]; /* policy, compared algorithms, offline policy */
    int npos;                /* batch positions of --by-batch (0: not asked) */
    double *pos_sum;         /* [position][policy, compared algorithms] */
    ms_error err;
} eval_ctx;

/* --by-batch: the sums of batch position b, the policy's first. */
static double *position_row(const eval_ctx *c, int b)
{
    return c->pos_sum + (size_t)b * (MAX_CMP + 1);
}

/* Makespan of a validated schedule, NAN (err filled) when something fails. */
static double checked(ms_schedule *s, const ms_workload *w, ms_error *err, const char *who)
{
    double mk = NAN;
    if (s && !ms_schedule_validate(s, w, NULL))
        mk = ms_schedule_makespan(s);
    else if (s)
        ms_error_set(err, MS_EINVAL, "%s produced an invalid schedule", who);
    ms_schedule_free(s);
    return mk;
}

static double run_algo(eval_ctx *c, int k, const ms_workload *w, int batch)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = batch;
    ms_schedule *s = NULL;
    if (ms_offline_schedule(c->cmp[k], w, c->gpu, 1, &o, &s, &c->err))
        return NAN;
    return checked(s, w, &c->err, c->cmp[k]);
}

static double run_policy(eval_ctx *c, const ms_rl_model *m, const ms_workload *w, bool online)
{
    ms_schedule *s = NULL;
    if (ms_rl_schedule(m, c->gpu, w, online, c->rollout, c->gap, &s, &c->err))
        return NAN;
    return checked(s, w, &c->err, "rl");
}

/* Offline: every batch alone, p_opt averaged over the batches. */
static int eval_offline(eval_ctx *c, const ms_workload *w)
{
    int N = c->model.env.n_batch, nb = 0;
    double acc[MAX_CMP + 1] = {0};
    for (int from = 0; from < w->n; from += N, nb++) {
        ms_workload *b = ms_workload_slice(w, from, N);
        if (!b)
            return ms_error_set(&c->err, MS_ENOMEM, "out of memory");
        double lb = ms_bound_lbound_paper(b, c->gpu, 1);
        for (int k = -1; k < c->ncmp; k++) {
            double mk = k < 0 ? run_policy(c, &c->model, b, false) : run_algo(c, k, b, 0);
            if (isnan(mk)) {
                ms_workload_free(b);
                return MS_EINVAL;
            }
            acc[k + 1] += (mk / lb - 1) * 100;
            if (c->npos)
                position_row(c, nb)[k + 1] += (mk / lb - 1) * 100;
        }
        ms_workload_free(b);
    }
    for (int k = 0; k <= c->ncmp; k++)
        c->sum[k] += acc[k] / nb;
    return MS_OK;
}

/* Online: the whole dataset; the others relative to the policy's makespan. */
static int eval_online(eval_ctx *c, const ms_workload *w)
{
    double mine = run_policy(c, &c->model, w, true);
    if (isnan(mine))
        return MS_EINVAL;
    c->sum[0] += mine;
    for (int k = 0; k < c->ncmp; k++) {
        double mk = run_algo(c, k, w, c->model.env.n_batch);
        if (isnan(mk))
            return MS_EINVAL;
        c->sum[k + 1] += (mk / mine - 1) * 100;
    }
    if (c->has_offline) {
        double mk = run_policy(c, &c->offline_model, w, false);
        if (isnan(mk))
            return MS_EINVAL;
        c->sum[c->ncmp + 1] += (mk / mine - 1) * 100;
    }
    return MS_OK;
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


static void report(const eval_ctx *c, const eval_args *a)
{
    bool online = c->model.env.online;
    printf("%s (%s, %ld steps) on %ld %s datasets of %ld tasks, seed %llu%s", a->model,
           c->model.gpu, c->model.steps, a->sets, a->preset, a->tasks,
           (unsigned long long)a->seed, a->sorted ? ", tasks in class order" : "");
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
        printf("p_opt %%: rl %.2f", c->sum[0] / a->sets);
        for (int k = 0; k < c->ncmp; k++)
            printf("  %s %.2f", c->cmp[k], c->sum[k + 1] / a->sets);
    } else {
        printf("online rl: mean makespan %.2f s; p_online %%:", c->sum[0] / a->sets);
        for (int k = 0; k < c->ncmp; k++)
            printf("  vs %s %.2f", c->cmp[k], c->sum[k + 1] / a->sets);
        if (c->has_offline)
            printf("  vs offline rl %.2f", c->sum[c->ncmp + 1] / a->sets);
    }
    printf("\n");
    for (int b = 0; b < c->npos; b++) {
        int from = b * c->model.env.n_batch, n = (int)a->tasks - from;
        const double *v = position_row(c, b);
        printf("batch %d (tasks %d-%d): rl %.2f", b + 1, from + 1,
               from + (n < c->model.env.n_batch ? n : c->model.env.n_batch), v[0] / a->sets);
        for (int k = 0; k < c->ncmp; k++)
            printf("  %s %.2f", c->cmp[k], v[k + 1] / a->sets);
        printf("\n");
    }
}

/* The numbers of report(): p_opt per algorithm (offline) or p_online against each
 * (online, with the policy's mean makespan). */
static int report_json(const eval_ctx *c, const eval_args *a)
{
    bool online = c->model.env.online;
    json_t *per = json_object();
    if (!online) /* the policy's own p_opt beside the others' */
        json_object_set_new(per, "rl", cli_json_real(c->sum[0] / a->sets));
    for (int k = 0; k < c->ncmp; k++)
        json_object_set_new(per, c->cmp[k], cli_json_real(c->sum[k + 1] / a->sets));
    if (online && c->has_offline)
        json_object_set_new(per, "offline rl", cli_json_real(c->sum[c->ncmp + 1] / a->sets));
    json_t *root = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:s, s:b}", "model",
                             a->model, "model_gpu", c->model.gpu, "steps",
                             (json_int_t)c->model.steps, "gpu_model", c->gpu->name, "preset",
                             a->preset, "sets", (json_int_t)a->sets, "tasks",
                             (json_int_t)a->tasks, "seed", (json_int_t)a->seed, "order",
                             a->sorted ? "sorted" : "shuffled", "online", online);
    if (online)
        json_object_update_new(root, json_pack("{s:o, s:o}", "mean_makespan",
                                               cli_json_real(c->sum[0] / a->sets), "p_online",
                                               per));
    else
        json_object_set_new(root, "p_opt", per);
    if (c->npos) { /* one object per batch position, keyed as "p_opt" is */
        json_t *arr = json_array();
        for (int b = 0; b < c->npos; b++) {
            const double *v = position_row(c, b);
            json_t *o = json_pack("{s:o}", "rl", cli_json_real(v[0] / a->sets));
            for (int k = 0; k < c->ncmp; k++)
                json_object_set_new(o, c->cmp[k], cli_json_real(v[k + 1] / a->sets));
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "p_opt_by_batch", arr);
    }
    if (ms_rl_rule_rolls_out(a->rollout, a->gap)) { /* greedy evaluations have neither */
        json_object_set_new(root, "rollout", a->rollout == MS_RL_ROLLOUT_ALL
                                                 ? json_string("all")
                                                 : json_integer(a->rollout));
        json_object_set_new(root, "rollout_gap", isfinite(a->gap) ? json_real(a->gap)
                                                                  : json_string("inf"));
    }
    return cli_json_print("rl-eval", root);
}

/* Unknown names are bad input (1); rl against itself is a usage error (2). */
static int split_list(char *list, eval_ctx *c)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (!ms_offline_known(tok)) {
            fprintf(stderr, "migsched rl-eval: --compare: unknown algorithm '%s'\n", tok);
            return 1;
        }
        if (c->ncmp == MAX_CMP || !strcmp(tok, "rl")) {
            fprintf(stderr, "migsched rl-eval: --compare: at most %d offline algorithms, not "
                            "rl\n", MAX_CMP);
            return 2;
        }
        c->cmp[c->ncmp++] = tok;
    }
    return 0;
}

/* Returns -1 when the arguments are good, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, eval_args *a)
{
    static const struct option longopts[] = {
        {"model", 1, 0, 'm'}, {"gpu", 1, 0, 'g'},  {"preset", 1, 0, 'p'}, {"sets", 1, 0, 'd'},
        {"tasks", 1, 0, 't'}, {"seed", 1, 0, 's'}, {"compare", 1, 0, 'c'},
        {"offline-model", 1, 0, 'f'}, {"json", 0, 0, 'j'}, {"order", 1, 0, 'o'},
        {"rollout", 1, 0, 'r'}, {"rollout-gap", 1, 0, 'G'}, {"by-batch", 0, 0, 'b'},
        {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    int ch, li = -1;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
        switch (ch) {
        case 'm': a->model = optarg; break;
        case 'g': a->gpu = optarg; break;
        case 'p': a->preset = optarg; break;
        case 'f': a->offline = optarg; break;
        case 'c': snprintf(a->list, sizeof a->list, "%s", optarg); break;
        case 'j': a->json = true; break;
        case 'b': a->by_batch = true; break;
        case 'r':
            if (!cli_parse_rollout(optarg, &a->rollout)) {
                fprintf(stderr, "migsched rl-eval: --rollout: '%s' is not 1..1000 or all\n",
                        optarg);
                return 2;
            }
            break;
        case 'G':
            if (!cli_parse_rollout_gap(optarg, &a->gap)) {
                fprintf(stderr, "migsched rl-eval: --rollout-gap: '%s' is not a number in "
                                "0..1000 or inf\n", optarg);
                return 2;
            }
            break;
        case 'o':
            if (strcmp(optarg, "shuffled") && strcmp(optarg, "sorted")) {
                fprintf(stderr, "migsched rl-eval: --order: '%s' is not shuffled or sorted\n",
                        optarg);
                return 2;
            }
            a->sorted = !strcmp(optarg, "sorted");
            break;
        case 's':
            if (!cli_parse_seed(optarg, &a->seed)) {
                fprintf(stderr, "migsched rl-eval: --seed: '%s' is not a non-negative integer\n",
                        optarg);
                return 2;
            }
            break;
        case 'd': case 't':
            if (!cli_parse_long(optarg, 1, 1000000, ch == 'd' ? &a->sets : &a->tasks)) {
                fprintf(stderr, "migsched rl-eval: --%s: '%s' is not an integer in 1..1000000\n",
                        longopts[li].name, optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!a->model || optind < argc) {
        fprintf(stderr, "migsched rl-eval: %s\n",
                a->model ? "unexpected argument" : "--model FILE is required");
        usage(stderr);
        return 2;
    }
    return -1;
}

int cmd_rl_eval(int argc, char **argv)
{
    eval_args a = {.sets = 1000, .tasks = 100, .seed = 2026, .rollout = MS_RL_ROLLOUT_DEFAULT,
                   .gap = NAN};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    eval_ctx c;
    memset(&c, 0, sizeof c);
    if ((rc = split_list(a.list, &c)))
        return rc;
    if (ms_model_load(a.model, &c.model, &c.err) ||
        (a.offline && ms_model_load(a.offline, &c.offline_model, &c.err))) {
        fprintf(stderr, "migsched rl-eval: %s\n", c.err.msg);
        ms_model_destroy(&c.model);
        return 1;
    }
    c.has_offline = a.offline != NULL;
    if (isnan(a.gap))
        a.gap = ms_rl_model_gap(&c.model);
    c.rollout = a.rollout;
    c.gap = a.gap;
    ms_gpu_model gpu;
    ms_gen_params gen;
    rc = 1;
    c.gpu = &gpu;
    if (a.by_batch && c.model.env.online) {
        fprintf(stderr, "migsched rl-eval: --by-batch: an online policy plans each dataset as "
                        "one queue, not in batches\n");
        rc = 2;
        goto out;
    }
    if (a.by_batch) {
        c.npos = (int)((a.tasks + c.model.env.n_batch - 1) / c.model.env.n_batch);
        c.pos_sum = calloc((size_t)c.npos * (MAX_CMP + 1), sizeof *c.pos_sum);
        if (!c.pos_sum) {
            ms_error_set(&c.err, MS_ENOMEM, "out of memory");
            goto fail;
        }
    }
    if (!a.preset)
        a.preset = c.model.preset;
    if (ms_gpu_lookup(a.gpu ? a.gpu : c.model.gpu, &gpu, &c.err) ||
        ms_gen_preset(&gpu, a.preset, &gen, &c.err))
        goto fail;
    gen.class_order = a.sorted;
    ms_rng rng;
    ms_rng_seed(&rng, a.seed);
    for (long i = 0; i < a.sets; i++) {
        ms_workload *w;
        if (ms_generate(&gpu, &gen, (int)a.tasks, &rng, &w, &c.err))
            goto fail;
        int bad = c.model.env.online ? eval_online(&c, w) : eval_offline(&c, w);
        ms_workload_free(w);
        if (bad) {
            ms_error_prefix(&c.err, "dataset %ld", i);
            goto fail;
        }
    }
    if (a.json)
        rc = report_json(&c, &a);
    else {
        report(&c, &a);
        rc = 0;
    }
    goto out;
fail:
    fprintf(stderr, "migsched rl-eval: %s\n", c.err.msg);
out:
    free(c.pos_sum);
    ms_model_destroy(&c.model);
    if (c.has_offline)
        ms_model_destroy(&c.offline_model);
    return rc;
}
