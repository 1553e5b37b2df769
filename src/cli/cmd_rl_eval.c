/* cmd_rl_eval.c: `migsched rl-eval`: p_opt (paper 001 5.2) of a trained policy on freshly
 * generated evaluation datasets, and the mean makespan over them. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "migsched/learn.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched rl-eval --model FILE [options]\n"
               "  --gpu MODEL     GPU model (default: the model's)\n"
               "  --preset P      generator preset (default: the model's)\n"
               "  --sets D        datasets (default 1000)\n"
               "  --tasks T       tasks per dataset (default 100)\n"
               "  --seed S        seed of the datasets (default 2026)\n"
               "  --online        schedule each dataset online (default: the model's mode)\n");
}

int cmd_rl_eval(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"model", 1, 0, 'm'}, {"gpu", 1, 0, 'g'},  {"preset", 1, 0, 'p'}, {"sets", 1, 0, 'd'},
        {"tasks", 1, 0, 't'}, {"seed", 1, 0, 's'}, {"online", 0, 0, 'O'}, {"help", 0, 0, 'h'},
        {0, 0, 0, 0}};
    const char *model_path = NULL, *gpu_name = NULL, *preset = NULL;
    long sets = 1000, tasks = 100;
    unsigned long long seed = 2026;
    int online = -1, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (ch) {
        case 'm': model_path = optarg; break;
        case 'g': gpu_name = optarg; break;
        case 'p': preset = optarg; break;
        case 'O': online = 1; break;
        case 'd': case 't': case 's': {
            unsigned long long v = strtoull(optarg, &end, 10);
            if (!*optarg || *end || (ch != 's' && (v < 1 || v > 1000000))) {
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
    if (!model_path || optind < argc) {
        usage(stderr);
        return 2;
    }
    ms_error err;
    ms_rl_model model;
    if (ms_model_load(model_path, &model, &err)) {
        fprintf(stderr, "migsched rl-eval: %s\n", err.msg);
        return 1;
    }
    if (online >= 0)
        model.env.online = online;
    ms_gpu_model gpu;
    ms_gen_params gen;
    int rc = 1;
    if (!preset)
        preset = model.preset;
    if (ms_gpu_lookup(gpu_name ? gpu_name : model.gpu, &gpu, &err) ||
        ms_gen_preset(&gpu, preset, &gen, &err)) {
        fprintf(stderr, "migsched rl-eval: %s\n", err.msg);
        goto out;
    }
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    double popt = 0, makespan = 0;
    for (long i = 0; i < sets; i++) {
        ms_workload *w;
        ms_schedule *s = NULL;
        double p;
        if (ms_generate(&gpu, &gen, (int)tasks, &rng, &w, &err))
            goto fail;
        int bad = ms_rl_eval_popt(&model, &gpu, w, &p, &err) ||
                  ms_rl_schedule(&model, &gpu, w, model.env.online, &s, &err);
        if (!bad) {
            popt += p;
            makespan += ms_schedule_makespan(s);
            if (ms_schedule_validate(s, w, NULL))
                bad = ms_error_set(&err, MS_EINVAL, "dataset %ld: invalid schedule", i);
        }
        ms_schedule_free(s);
        ms_workload_free(w);
        if (bad)
            goto fail;
    }
    printf("%s: %s on %ld %s datasets of %ld tasks (seed %llu): p_opt %.2f%% (%s), "
           "mean makespan %.2f s\n", model_path, model.gpu, sets, preset, tasks, seed,
           popt / sets, model.env.online ? "whole dataset" : "mean over batches",
           makespan / sets);
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "migsched rl-eval: %s\n", err.msg);
out:
    ms_model_destroy(&model);
    return rc;
}
