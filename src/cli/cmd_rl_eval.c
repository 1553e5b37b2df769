/* cmd_rl_eval.c: `migsched rl-eval`: a trained policy against the offline schedulers on
 * the same generated datasets: p_opt per batch for offline policies (paper 001 Table 4),
 * p_online^A for online ones (Table 5). Every schedule goes through the validator. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
               "  --compare LIST    offline algorithms to run on the same data, e.g. far,miso\n"
               "  --offline-model F (online models) the offline policy to compare with\n"
               "Offline policies: p_opt = mean over each dataset's batches of N of\n"
               "(makespan / l_bound_paper - 1) x 100, each batch scheduled alone (also for\n"
               "the compared algorithms). Online policies: the whole dataset is one queue;\n"
               "p_online^A = (makespan of A / makespan of the policy - 1) x 100, A given the\n"
               "dataset in batches of N (FAR concatenates them trivially).\n");
}

typedef struct eval_ctx {
    const ms_gpu_model *gpu;
    ms_rl_model model, offline_model;
    bool has_offline;
    int ncmp;
    char *cmp[MAX_CMP];
    double sum[MAX_CMP + 2]; /* policy, compared algorithms, offline policy */
    ms_error err;
} eval_ctx;

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
    if (ms_rl_schedule(m, c->gpu, w, online, &s, &c->err))
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

static void report(const eval_ctx *c, const char *path, const char *preset, long sets,
                   long tasks, unsigned long long seed)
{
    bool online = c->model.env.online;
    printf("%s (%s, %ld steps) on %ld %s datasets of %ld tasks, seed %llu\n", path,
           c->model.gpu, c->model.steps, sets, preset, tasks, seed);
    if (!online) {
        printf("p_opt %%: rl %.2f", c->sum[0] / sets);
        for (int k = 0; k < c->ncmp; k++)
            printf("  %s %.2f", c->cmp[k], c->sum[k + 1] / sets);
    } else {
        printf("online rl: mean makespan %.2f s; p_online %%:", c->sum[0] / sets);
        for (int k = 0; k < c->ncmp; k++)
            printf("  vs %s %.2f", c->cmp[k], c->sum[k + 1] / sets);
        if (c->has_offline)
            printf("  vs offline rl %.2f", c->sum[c->ncmp + 1] / sets);
    }
    printf("\n");
}

static int split_list(char *list, eval_ctx *c)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (c->ncmp == MAX_CMP || !ms_offline_known(tok) || !strcmp(tok, "rl"))
            return -1;
        c->cmp[c->ncmp++] = tok;
    }
    return 0;
}

int cmd_rl_eval(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"model", 1, 0, 'm'}, {"gpu", 1, 0, 'g'},  {"preset", 1, 0, 'p'}, {"sets", 1, 0, 'd'},
        {"tasks", 1, 0, 't'}, {"seed", 1, 0, 's'}, {"compare", 1, 0, 'c'},
        {"offline-model", 1, 0, 'f'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *model_path = NULL, *gpu_name = NULL, *preset = NULL, *offline_path = NULL;
    char list[512] = "";
    long sets = 1000, tasks = 100;
    unsigned long long seed = 2026;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (ch) {
        case 'm': model_path = optarg; break;
        case 'g': gpu_name = optarg; break;
        case 'p': preset = optarg; break;
        case 'f': offline_path = optarg; break;
        case 'c': snprintf(list, sizeof list, "%s", optarg); break;
        case 'd': case 't': case 's': {
            unsigned long long v = strtoull(optarg, &end, 10);
            if (!*optarg || *end || *optarg == '-' || (ch != 's' && (v < 1 || v > 1000000))) {
                fprintf(stderr, "migsched rl-eval: bad value '%s'\n", optarg);
                return 2;
            }
            if (ch == 'd') sets = (long)v;
            if (ch == 't') tasks = (long)v;
            if (ch == 's') seed = v;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    eval_ctx c;
    memset(&c, 0, sizeof c);
    if (!model_path || optind < argc || split_list(list, &c)) {
        fprintf(stderr, "migsched rl-eval: need --model FILE and known --compare names\n");
        usage(stderr);
        return 2;
    }
    if (ms_model_load(model_path, &c.model, &c.err) ||
        (offline_path && ms_model_load(offline_path, &c.offline_model, &c.err))) {
        fprintf(stderr, "migsched rl-eval: %s\n", c.err.msg);
        ms_model_destroy(&c.model);
        return 1;
    }
    c.has_offline = offline_path != NULL;
    ms_gpu_model gpu;
    ms_gen_params gen;
    int rc = 1;
    c.gpu = &gpu;
    if (!preset)
        preset = c.model.preset;
    if (ms_gpu_lookup(gpu_name ? gpu_name : c.model.gpu, &gpu, &c.err) ||
        ms_gen_preset(&gpu, preset, &gen, &c.err))
        goto fail;
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    for (long i = 0; i < sets; i++) {
        ms_workload *w;
        if (ms_generate(&gpu, &gen, (int)tasks, &rng, &w, &c.err))
            goto fail;
        int bad = c.model.env.online ? eval_online(&c, w) : eval_offline(&c, w);
        ms_workload_free(w);
        if (bad) {
            ms_error_prefix(&c.err, "dataset %ld", i);
            goto fail;
        }
    }
    report(&c, model_path, preset, sets, tasks, seed);
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "migsched rl-eval: %s\n", c.err.msg);
out:
    ms_model_destroy(&c.model);
    if (c.has_offline)
        ms_model_destroy(&c.offline_model);
    return rc;
}
