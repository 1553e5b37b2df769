/* offline_run.c: one offline algorithm run as the registry runs it: timed, and the initial
 * instances the plan leaves alone listed, so that every caller gets the same schedule. */
#include <math.h>
#include <time.h>

#include "offline_internal.h"

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
        if (!listed &&
            ms_schedule_add_instance(s, x->gpu, x->at.profile, x->at.start, NAN, NAN, NAN, NAN) < 0)
            return MS_ENOMEM;
    }
    return MS_OK;
}

/* After a run that began at t0 and returned rc: completes *out, or frees it on an error. */
static int finish(int rc, const struct timespec *t0, const ms_initial *initial, ms_schedule **out,
                  ms_error *err)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == MS_OK && (rc = list_untouched(*out, initial)))
        ms_error_set(err, rc, "out of memory");
    if (rc) {
        ms_schedule_free(*out);
        *out = NULL;
        return rc;
    }
    ms_schedule_set_stat(*out, "compute_seconds",
                         (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) * 1e-9);
    return MS_OK;
}

int offline_run(ms_offline_fn run, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = run(w, gpu, gpus, opt, out, err);
    return finish(rc, &t0, opt->initial, out, err);
}

int offline_run_baseline(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = ms_baseline_schedule(algo, w, gpu, gpus, opt->initial, out, err);
    return finish(rc, &t0, opt->initial, out, err);
}
