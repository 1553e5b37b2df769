/* offline.c: the offline schedulers' registry and common entry point (timing, naming). */
#include <math.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "migsched/offline.h"
#include "migsched/parse.h"

static int far_refine(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    ms_offline_options o = *opt;
    o.far.refine = 1;
    return ms_far_schedule(w, gpu, gpus, &o, out, err);
}

static int far_norefine(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    ms_offline_options o = *opt;
    o.far.refine = 0;
    return ms_far_schedule(w, gpu, gpus, &o, out, err);
}

static int miso(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_miso_schedule(w, gpu, gpus, opt->initial, out, err);
}

static int miso_eager(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_miso_eager_schedule(w, gpu, gpus, opt->initial, out, err);
}

static int fixpartbest(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_fixpartbest_schedule(w, gpu, gpus, opt->initial, out, err);
}

static int nomig(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                 const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_nomig_schedule(w, gpu, gpus, opt->initial, out, err);
}

/* One line per algorithm; "fixpart:P" (any partition P) is handled by ms_baseline_*. */
static const ms_offline_algo algos[] = {
    {"search", "local search over sizes, order and reconfigurations from the best of FAR "
     "and the baselines (--time-budget MS, --threads N)", ms_search_schedule},
    {"far", "FAR (paper 000): allocation family, repartitioning tree, refinement", far_refine},
    {"far-norefine", "FAR without phase 3 (refinement)", far_norefine},
    {"miso", "MISO-OPT: FIFO rounds on the partition maximising summed speedups", miso},
    {"miso-eager", "MISO without rounds: tasks start as instances free up (paper 001's wording)",
     miso_eager},
    {"fixpartbest", "best static partition, FIFO on the first free instance", fixpartbest},
    {"nomig", "whole GPU, no MIG, tasks one after another in FIFO order", nomig},
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

bool ms_offline_known(const char *name)
{
    return ms_offline_find(name) || ms_baseline_known(name);
}

/* The initial instances a plan has no business with are listed too (no creation, no
 * destruction), so that the plan says what the GPUs hold from start to end. */
static int list_untouched(ms_schedule *s, const ms_initial *l)
{
    for (int i = 0; l && i < l->n; i++) {
        const ms_initial_inst *x = &l->inst[i];
        bool listed = false;
        for (int k = 0; k < s->ninst && !listed; k++)
            listed = isnan(s->inst[k].create_start) && s->inst[k].gpu == x->gpu &&
                     s->inst[k].profile == x->at.profile && s->inst[k].start_slot == x->at.start;
        if (!listed && ms_schedule_add_instance(s, x->gpu, x->at.profile, x->at.start, NAN, NAN,
                                                NAN, NAN) < 0)
            return MS_ENOMEM;
    }
    return MS_OK;
}

int ms_offline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                        int gpus, const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    const ms_offline_algo *a = ms_offline_find(algo);
    if (!a && !ms_baseline_known(algo)) {
        char names[256] = "";
        for (int i = 0; i < ms_offline_algo_count(); i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, algos[i].name, sizeof names - strlen(names) - 1);
        }
        return ms_error_set(err, MS_EINVAL, "unknown algorithm '%s' (known: %s, fixpart:P)",
                            algo, names);
    }
    ms_offline_options defaults;
    if (!opt) {
        ms_offline_options_init(&defaults);
        opt = &defaults;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = a ? a->run(w, gpu, gpus, opt, out, err)
               : ms_baseline_schedule(algo, w, gpu, gpus, opt->initial, out, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == MS_OK && (rc = list_untouched(*out, opt->initial)))
        ms_error_set(err, rc, "out of memory");
    if (rc) {
        ms_schedule_free(*out);
        *out = NULL;
        return rc;
    }
    ms_schedule_set_stat(*out, "compute_seconds",
                         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return MS_OK;
}
