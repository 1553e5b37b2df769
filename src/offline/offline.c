/* offline.c: the table of offline algorithms and the one entry point that runs them. */
#include <string.h>
#include <time.h>

#include "migsched/offline.h"

void ms_offline_options_init(ms_offline_options *o)
{
    memset(o, 0, sizeof *o);
    o->refine = 1;
}

static int run_miso(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                    const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_miso_schedule(w, gpu, gpus, out, err);
}

static int run_fixpartbest(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_fixpartbest_schedule(w, gpu, gpus, out, err);
}

static int run_nomig(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                     const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_nomig_schedule(w, gpu, gpus, out, err);
}

static const ms_offline_algo ALGOS[] = {
    {"miso", "MISO-OPT: FIFO rounds on the partition maximising summed speedups", run_miso},
    {"fixpartbest", "best static partition, FIFO on the first free instance", run_fixpartbest},
    {"nomig", "whole GPU, no MIG, tasks one after another in FIFO order", run_nomig},
};

int ms_offline_algo_count(void) { return (int)(sizeof ALGOS / sizeof ALGOS[0]); }

const ms_offline_algo *ms_offline_algo_at(int i)
{
    return i >= 0 && i < ms_offline_algo_count() ? &ALGOS[i] : NULL;
}

const ms_offline_algo *ms_offline_find(const char *name)
{
    for (int i = 0; i < ms_offline_algo_count(); i++)
        if (!strcmp(ALGOS[i].name, name))
            return &ALGOS[i];
    return NULL;
}

bool ms_offline_known(const char *name)
{
    return ms_offline_find(name) || ms_baseline_known(name);
}

int ms_offline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                        int gpus, const ms_offline_options *opt, ms_schedule **out,
                        ms_error *err)
{
    ms_offline_options defaults;
    if (!opt) {
        ms_offline_options_init(&defaults);
        opt = &defaults;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const ms_offline_algo *a = ms_offline_find(algo);
    int rc = a ? a->run(w, gpu, gpus, opt, out, err)
               : ms_baseline_known(algo) ? ms_baseline_schedule(algo, w, gpu, gpus, out, err)
                                         : ms_error_set(err, MS_EINVAL, "unknown algorithm '%s'", algo);
    if (rc)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms_schedule_set_stat(*out, "compute_seconds",
                         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return MS_OK;
}
