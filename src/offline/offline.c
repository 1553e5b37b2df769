/* offline.c: the offline schedulers' registry: their table, and the entry point that runs
 * one by name (offline_run.c times it). */
#include <string.h>
#include <strings.h>

#include "migsched/parse.h"
#include "offline_internal.h"

/* One line per algorithm; "fixpart:P" (any partition P) is handled by ms_baseline_*. */
static const ms_offline_algo algos[] = {
    {"search",
     "local search over sizes, order and reconfigurations from the best of FAR "
     "and the baselines (--time-budget MS, --threads N)",
     ms_search_schedule},
    {"far", "FAR (paper 000): allocation family, repartitioning tree, refinement", offline_far},
    {"far-norefine", "FAR without phase 3 (refinement)", offline_far_norefine},
    {"miso", "MISO-OPT: FIFO rounds on the partition maximising summed speedups", offline_miso},
    {"miso-eager", "MISO without rounds: tasks start as instances free up (paper 001's wording)",
     offline_miso_eager},
    {"fixpartbest", "best static partition, FIFO on the first free instance", offline_fixpartbest},
    {"nomig", "whole GPU, no MIG, tasks one after another in FIFO order", offline_nomig},
    {"optimal", "exact branch and bound: the optimal makespan on one GPU (small batches)",
     ms_optimal_schedule},
    {"rl", "learned policy of paper 001 (--model FILE, --online)", ms_rl_offline_schedule},
};

int ms_offline_algo_count(void) { return (int)(sizeof algos / sizeof algos[0]); }

const ms_offline_algo *ms_offline_algo_at(int i)
{
    return i >= 0 && i < ms_offline_algo_count() ? &algos[i] : NULL;
}

const ms_offline_algo *ms_offline_find(const char *name)
{
    for (int i = 0; i < ms_offline_algo_count(); i++)
        if (!strcasecmp(algos[i].name, name))
            return &algos[i];
    return NULL;
}

bool ms_offline_known(const char *name) { return ms_offline_find(name) || ms_baseline_known(name); }

int ms_offline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    const ms_offline_algo *a = ms_offline_find(algo);
    if (!a && !ms_baseline_known(algo)) {
        char names[256] = "";
        for (int i = 0; i < ms_offline_algo_count(); i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, algos[i].name, sizeof names - strlen(names) - 1);
        }
        return ms_error_set(err, MS_EINVAL, "unknown algorithm '%s' (known: %s, fixpart:P)", algo,
                            names);
    }
    ms_offline_options defaults;
    if (!opt) {
        ms_offline_options_init(&defaults);
        opt = &defaults;
    }
    return a ? offline_run(a->run, w, gpu, gpus, opt, out, err)
             : offline_run_baseline(algo, w, gpu, gpus, opt, out, err);
}
