/* test_baselines_property.c: every baseline's schedule passes the validator on thousands
 * of random workloads on every GPU model, 1-3 GPUs; makespans respect the lower bounds;
 * FIXPARTBEST is the minimum over FIXPART(P). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "migsched/offline.h"

static void assert_valid(const ms_schedule *s, const ms_workload *w, const char *what)
{
    ms_validation v = {0};
    int n = ms_schedule_validate(s, w, &v);
    for (int i = 0; i < v.n && i < 5; i++)
        print_error("%s (%s): [%s] %s\n", s->algorithm, what, v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    assert_int_equal(n, 0);
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    if (w->n && !(m.makespan >= m.l_bound * (1 - 1e-9) && m.makespan >= m.baseline * (1 - 1e-9)))
        fail_msg("%s (%s): makespan %.9g below l_bound %.9g or baseline %.9g", s->algorithm, what,
                 m.makespan, m.l_bound, m.baseline);
}

/* Random monotone times over the GPU's sizes; sometimes a small size cannot run the task
 * (memory), sometimes super-linear steps, sometimes equal times. */
static ms_workload *random_workload(const ms_gpu_model *gpu, int n, ms_rng *r)
{
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < n; i++) {
        double t[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            t[s] = INFINITY;
        double cur = ms_rng_uniform(r) < 0.2 ? 0.05 + ms_rng_uniform(r)
                                             : 1 + 99 * ms_rng_uniform(r);
        int no_below = ms_rng_uniform(r) < 0.15
                           ? 1 + (int)ms_rng_below(r, (uint64_t)gpu->nsizes - 1)
                           : 0;
        for (int k = 0; k < gpu->nsizes; k++) {
            if (k > 0) {
                double u = ms_rng_uniform(r); /* equal, super-linear-ish or sub-linear step */
                cur *= u < 0.1   ? 1.0
                       : u < 0.3 ? 0.2 + 0.3 * ms_rng_uniform(r)
                                 : 0.5 + 0.5 * ms_rng_uniform(r);
            }
            t[gpu->sizes[k]] = k < no_below ? INFINITY : fmax(cur, 1e-3);
        }
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        assert_int_equal(ms_workload_add(w, name, t, NULL, NULL, NULL), 0);
    }
    return w;
}

static void check_all(const ms_workload *w, const ms_gpu_model *gpu, int gpus)
{
    char what[64];
    snprintf(what, sizeof what, "%s x%d, n=%d", gpu->name, gpus, w->n);
    ms_schedule *s = NULL;
    ms_error err = {0};
    const char *algos[] = {"miso", "miso-eager", "nomig"};
    for (int a = 0; a < 3; a++) {
        int rc = ms_offline_schedule(algos[a], w, gpu, gpus, NULL, &s, &err);
        if (rc)
            fail_msg("%s on %s: %s", algos[a], what, err.msg);
        assert_valid(s, w, what);
        ms_schedule_free(s);
    }
    /* Every FIXPART(P), and FIXPARTBEST = their minimum. */
    double min = INFINITY;
    for (int k = 0; k < gpu->npartitions; k++) {
        int rc = ms_fixpart_schedule(w, gpu, gpus, NULL, k, &s, &err);
        if (rc == MS_EINFEASIBLE)
            continue;
        assert_int_equal(rc, 0);
        assert_valid(s, w, what);
        min = fmin(min, ms_schedule_makespan(s));
        ms_schedule_free(s);
    }
    int rc = ms_fixpartbest_schedule(w, gpu, gpus, NULL, &s, &err);
    if (isinf(min)) {
        assert_int_equal(rc, MS_EINFEASIBLE);
        return;
    }
    assert_int_equal(rc, 0);
    assert_valid(s, w, what);
    assert_true(ms_schedule_makespan(s) == min);
    ms_schedule_free(s);
}

static void random_times_every_model(void **state)
{
    ms_rng r;
    ms_rng_seed(&r, 20261122);
    int runs = 0;
    for (int rep = 0; rep < 500; rep++)
        for (int g = 0; g < ms_gpu_builtin_count(); g++) {
            const ms_gpu_model *gpu = ms_gpu_builtin_at(g);
            int n = (int)ms_rng_below(&r, 30), gpus = 1 + (int)ms_rng_below(&r, 3);
            ms_workload *w = random_workload(gpu, n, &r);
            check_all(w, gpu, gpus);
            ms_workload_free(w);
            runs++;
        }
    print_message("%d random workloads checked\n", runs);
}

/* The papers' generator, every preset pair, every GPU model. */
static void presets_every_model(void **state)
{
    static const char *const scalings[] = {"POORSCALING", "MIXEDSCALING", "GOODSCALING",
                                           "MIXSCALINGEXTREME"};
    static const char *const times[] = {"WIDETIMES", "NARROWTIMES"};
    ms_rng r;
    ms_rng_seed(&r, 7);
    int runs = 0;
    for (int g = 0; g < ms_gpu_builtin_count(); g++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(g);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 2; b++)
                for (int rep = 0; rep < 12; rep++) {
                    char presets[64];
                    snprintf(presets, sizeof presets, "%s,%s", scalings[a], times[b]);
                    ms_gen_params p;
                    ms_error err = {0};
                    assert_int_equal(ms_gen_preset(gpu, presets, &p, &err), 0);
                    ms_workload *w = NULL;
                    int n = 1 + (int)ms_rng_below(&r, 40), gpus = 1 + (int)ms_rng_below(&r, 3);
                    assert_int_equal(ms_generate(gpu, &p, n, &r, &w, &err), 0);
                    check_all(w, gpu, gpus);
                    ms_workload_free(w);
                    runs++;
                }
    }
    print_message("%d generated workloads checked\n", runs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_times_every_model),
        cmocka_unit_test(presets_every_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
