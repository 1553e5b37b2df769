/* test_search.c: the search scheduler. Property: on 2,000 random workloads (every built-in
 * model, 1-4 GPUs, the generator's presets including the pathological ones, infinite sizes,
 * one batch or several with each concatenation mode) every schedule validates, keeps every
 * task, ends no earlier than l_bound and no later than FAR, FIXPARTBEST or miso-eager on
 * the same input. Determinism: same seed and thread count (1 and 2), same bytes; the
 * starting schedules, computed on 1, 2 or 5 threads, are the same bytes in the same order. Golden:
 * the Rodinia sample (the proved optimum), two CFD-like tasks (search finds the proved optimum
 * where FAR runs them one after the other), a 7-task batch that needs a list split over its node's
 * children, one whose optimum only the exact phase finds, the learned policy as a starting point,
 * bad options. Batches of 2 to 5 tasks on one GPU: search reaches the proved optimum (its exact
 * phase). MIGSCHED_PROPERTY_CASES overrides the count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/offline/search_internal.h"
#include "support.h"
#include "migsched/offline.h"

static const char *const presets[] = {"POORSCALING,WIDETIMES",
                                      "MIXEDSCALING,NARROWTIMES",
                                      "GOODSCALING,WIDETIMES",
                                      "MIXSCALINGEXTREME,WIDETIMES",
                                      "PATHO4",
                                      "PATHO2,WIDETIMES",
                                      "PATHOMIX"};

static int case_count(void)
{
    const char *env = getenv("MIGSCHED_PROPERTY_CASES");
    int n = env ? atoi(env) : 0;
    return n > 0 ? n : 2000;
}

static ms_schedule *run(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *o, int c)
{
    ms_schedule *s = NULL;
    ms_error err;
    int rc = ms_offline_schedule(algo, w, gpu, gpus, o, &s, &err);
    if (rc == MS_EINFEASIBLE && strcmp(algo, "search") && strcmp(algo, "far"))
        return NULL;
    if (rc)
        fail_msg("case %d: %s: %s", c, algo, err.msg);
    return s;
}

/* Valid from the layout `initial` (NULL: empty), every task kept, no shorter than l_bound. */
static void check_valid(const ms_schedule *s, const ms_workload *w, const ms_gpu_model *gpu,
                        int gpus, const ms_initial *initial, int c)
{
    ms_validation v = {0};
    if (ms_schedule_validate_initial(s, w, initial, &v)) {
        print_error("case %d (%s x%d, n=%d): %s: %s\n", c, gpu->name, gpus, w->n, v.v[0].rule,
                    v.v[0].msg);
        ms_validation_fini(&v);
        fail();
    }
    assert_int_equal(s->ntasks, w->n);
    double ms = ms_schedule_makespan(s);
    double lb = ms_bound_lbound_present(w, gpu, gpus, ms_initial_present_sizes(initial, gpu));
    if (ms < lb * (1 - 1e-9))
        fail_msg("case %d: makespan %.9g below l_bound %.9g", c, ms, lb);
}

/* Random workload of case c: a preset the GPU supports, some sizes made impossible. */
static ms_workload *random_workload(const ms_gpu_model *gpu, int n, ms_rng *rng, int c)
{
    ms_gen_params params;
    ms_workload *w = NULL;
    ms_error err;
    const char *p = presets[ms_rng_below(rng, 7)];
    if (ms_gen_preset(gpu, p, &params, &err))
        p = presets[0]; /* the pathological presets need a 3-slice size */
    if (ms_gen_preset(gpu, p, &params, &err) || ms_generate(gpu, &params, n, rng, &w, &err))
        fail_msg("case %d: %s", c, err.msg);
    for (int i = 0; i < w->n; i++)
        if (ms_rng_uniform(rng) < 0.2) {
            int keep = gpu->sizes[ms_rng_below(rng, (uint64_t)gpu->nsizes)];
            for (int k = 0; k < gpu->nsizes; k++)
                if (gpu->sizes[k] != keep && ms_rng_uniform(rng) < 0.4)
                    w->tasks[i].time[gpu->sizes[k]] = INFINITY;
        }
    return w;
}

static void test_random_workloads(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 4242);
    int cases = case_count(), improved = 0;
    for (int c = 0; c < cases; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(c % ms_gpu_builtin_count());
        int gpus = 1 + (int)ms_rng_below(&rng, 4), n = 1 + (int)ms_rng_below(&rng, 30);
        ms_workload *w = random_workload(gpu, n, &rng, c);
        ms_offline_options o;
        ms_offline_options_init(&o);
        o.seed = (uint64_t)c;
        o.search.time_budget_ms = 0.2; /* thousands of cases: a small budget */
        if (c % 3 == 1) {
            static const int sizes[] = {1, 2, 3, 5, 10};
            o.batch = sizes[ms_rng_below(&rng, 5)];
            o.far.concat = (ms_concat_mode)ms_rng_below(&rng, 3);
        }
        ms_schedule *s = run("search", w, gpu, gpus, &o, c);
        check_valid(s, w, gpu, gpus, NULL, c);
        double ms = ms_schedule_makespan(s);
        static const char *const others[] = {"far", "fixpartbest", "miso-eager"};
        for (int a = 0; a < 3; a++) {
            ms_schedule *b = run(others[a], w, gpu, gpus, &o, c);
            if (b && ms > ms_schedule_makespan(b) * (1 + 1e-12))
                fail_msg("case %d (%s x%d, n=%d, batch %d): search %.9g > %s %.9g", c, gpu->name,
                         gpus, n, o.batch, ms, others[a], ms_schedule_makespan(b));
            if (a == 0 && b)
                improved += ms < ms_schedule_makespan(b);
            ms_schedule_free(b);
        }
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    print_message("search property: %d random workloads, %d shorter than FAR\n", cases, improved);
    assert_true(improved > cases / 4); /* the search does find better plans */
}

static char *json_of(const ms_schedule *s, const ms_workload *w)
{
    ms_schedule *copy = ms_schedule_clone(s);
    assert_non_null(copy);
    ms_schedule_drop_timings(copy);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ms_error err;
    assert_int_equal(ms_schedule_write_json(copy, w, f, &err), MS_OK);
    fclose(f);
    ms_schedule_free(copy);
    return buf;
}

/* Same seed and thread count, same bytes, with 1 and 2 threads and with batches. */
static void test_deterministic(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 99);
    for (int c = 0; c < 24; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(c % ms_gpu_builtin_count());
        int gpus = 1 + c % 2;
        ms_workload *w = random_workload(gpu, 8 + (int)ms_rng_below(&rng, 20), &rng, c);
        ms_offline_options o;
        ms_offline_options_init(&o);
        o.seed = 7;
        o.search.threads = 1 + c % 2;
        o.search.time_budget_ms = 2;
        if (c % 4 == 3) {
            o.batch = 6;
            o.far.concat = MS_CONCAT_OVERLAP;
        }
        ms_schedule *a = run("search", w, gpu, gpus, &o, c),
                    *b = run("search", w, gpu, gpus, &o, c);
        char *ja = json_of(a, w), *jb = json_of(b, w);
        assert_string_equal(ja, jb);
        free(ja);
        free(jb);
        ms_schedule_free(a);
        ms_schedule_free(b);
        ms_workload_free(w);
    }
}

/* The starting schedules do not depend on how many threads compute them. */
static void test_starts_threads(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    for (int c = 0; c < 12; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(c % ms_gpu_builtin_count());
        int gpus = 1 + c % 3;
        ms_workload *w = random_workload(gpu, 5 + (int)ms_rng_below(&rng, 40), &rng, c);
        ms_offline_options o;
        ms_offline_options_init(&o);
        search_starts one = {0};
        ms_error err;
        assert_int_equal(search_starts_run(&one, w, gpu, gpus, &o, &err), MS_OK);
        assert_true(one.n >= 3); /* FAR and its two variants at least */
        for (int threads = 2; threads <= 5; threads += 3) {
            search_starts many = {0};
            o.search.threads = threads;
            assert_int_equal(search_starts_run(&many, w, gpu, gpus, &o, &err), MS_OK);
            assert_int_equal(many.n, one.n);
            for (int i = 0; i < one.n; i++) {
                assert_string_equal(many.start[i].algo, one.start[i].algo);
                char *ja = json_of(one.start[i].s, w), *jb = json_of(many.start[i].s, w);
                assert_string_equal(ja, jb);
                free(ja);
                free(jb);
            }
            search_starts_free(&many);
        }
        search_starts_free(&one);
        ms_workload_free(w);
    }
}

static ms_workload *read_sample(const ms_gpu_model *gpu)
{
    ms_workload *w = NULL;
    ms_error err;
    if (ms_workload_read(test_source_path("data/rodinia_a30_8tasks.csv"), gpu, &w, &err))
        fail_msg("%s", err.msg);
    return w;
}

/* The bundled Rodinia sample from an empty A30: search beats FIXPARTBEST and FAR (29.491 s)
 * and reaches the proved optimum, 28.434 s. That is the 28.304 s optimum of the model in
 * which the first instances were free plus the 4g's creation (0.13 s); no plan from an
 * empty GPU ends before that optimum plus the cheapest creation (0.11 s): nothing runs
 * before the first creation ends, and with that instance there from the start and
 * everything else that much earlier, the plan would be one of that model's. */
static void test_rodinia_sample(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = read_sample(gpu);
    ms_offline_options o;
    ms_offline_options_init(&o);
    ms_schedule *s = run("search", w, gpu, 1, &o, 0);
    check_valid(s, w, gpu, 1, NULL, 0);
    assert_near(ms_schedule_makespan(s), 28.43392, 1e-5);
    assert_true(ms_schedule_stat(s, "from_start") == 0);
    ms_schedule *opt = run("optimal", w, gpu, 1, &o, 0); /* the proved optimum */
    assert_true(ms_schedule_stat(opt, "proved") == 1);
    assert_near(ms_schedule_makespan(s), ms_schedule_makespan(opt), 1e-9);
    ms_schedule_free(opt);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Two CFD-like tasks on an A100: 10 s at 4 or 7 slices, 10.5 s at 3, 20 s or more below.
 * From an empty GPU, FAR creates 3g@0 and 3g@4 (0.20 s each) and ends at 0.40 + 10.5 =
 * 10.90 s; search creates 3g@4 first and then 4g@0 and ends at 0.20 + 10.5 = 10.70 s (the
 * 4g's task at 0.41 + 10), the optimum that branch and bound proves: side by side on 3
 * slices or more there is only 3g + 3g (10.90 s) or 3g + 4g (10.91 s with the 4g first),
 * and anything else takes 20 s. From 4-3 both run at once: 10.5 s. */
static void test_cfd_pair(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    double t[MS_MAX_SLICES + 1] = {0, 40, 20, 10.5, 10, 0, 0, 10};
    assert_int_equal(ms_workload_add(w, "cfd1", t, NULL, NULL, NULL), MS_OK);
    assert_int_equal(ms_workload_add(w, "cfd2", t, NULL, NULL, NULL), MS_OK);
    ms_initial held;
    ms_error err;
    assert_int_equal(ms_initial_parse("4-3", gpu, 1, &held, &err), MS_OK);
    static const double expect[2] = {10.7, 10.5};
    for (int k = 0; k < 2; k++) {
        ms_offline_options o;
        ms_offline_options_init(&o);
        o.initial = k ? &held : NULL;
        ms_schedule *s = run("search", w, gpu, 1, &o, 0), *far = run("far", w, gpu, 1, &o, 0);
        ms_schedule *opt = run("optimal", w, gpu, 1, &o, 0);
        check_valid(s, w, gpu, 1, o.initial, 0);
        check_valid(opt, w, gpu, 1, o.initial, 0);
        assert_true(ms_schedule_stat(opt, "proved") == 1);
        assert_near(ms_schedule_makespan(s), ms_schedule_makespan(opt), 1e-9);
        assert_near(ms_schedule_makespan(s), expect[k], 1e-9);
        if (!k)
            assert_near(ms_schedule_makespan(far), 10.9, 1e-9);
        ms_schedule_free(s);
        ms_schedule_free(far);
        ms_schedule_free(opt);
    }
    ms_initial_fini(&held);
    ms_workload_free(w);
}

/* A 7-task A100-40GB batch (times at sizes 1, 2, 3, 4, 7) searched at the default budget
 * reaches the proved optimum `expect`; returns search's schedule (the caller frees it). */
static ms_schedule *assert_reaches_optimum(const double times[7][5], double expect)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < 7; i++) {
        double t[MS_MAX_SLICES + 1] = {0,           times[i][0], times[i][1], times[i][2],
                                       times[i][3], 0,           0,           times[i][4]};
        char name[8];
        snprintf(name, sizeof name, "t%d", i + 1);
        assert_int_equal(ms_workload_add(w, name, t, NULL, NULL, NULL), MS_OK);
    }
    ms_offline_options o;
    ms_offline_options_init(&o);
    ms_schedule *s = run("search", w, gpu, 1, &o, 0), *opt = run("optimal", w, gpu, 1, &o, 0);
    check_valid(s, w, gpu, 1, NULL, 0);
    assert_true(ms_schedule_stat(opt, "proved") == 1);
    assert_near(ms_schedule_makespan(opt), expect, 1e-4);
    assert_near(ms_schedule_makespan(s), ms_schedule_makespan(opt), 1e-9);
    ms_schedule_free(opt);
    ms_workload_free(w);
    return s;
}

/* A100 POORSCALING,WIDETIMES repetition 22 of the gap experiment (EXPERIMENTS.md, search):
 * search stopped 5.16 % above the optimum while the tie-break counted a 2-slice list split
 * over two 1-slice instances as worse; with the slice-weighted tie-break, the split move
 * and the budget's calibration it reaches the proved optimum. From an empty GPU that is
 * 91.0605 s: t5 on a 1-slice instance from its creation (0.16 s) for 90.9005 s, the
 * optimum of the model in which the first instances were free; less is not possible
 * (test_rodinia_sample). */
static void test_split_batch(void **state)
{
    (void)state;
    static const double times[7][5] = {{56.43390321648509, 28.216951608242546, 25.15861751056135,
                                        24.359751797925284, 21.908517983538335},
                                       {75.81674631184588, 65.56216519007053, 63.82394125978317,
                                        60.253700867250004, 49.72049097624073},
                                       {44.46081913626019, 35.422380205559044, 32.90907663363652,
                                        30.67306358020917, 27.811690700755648},
                                       {89.42132822370293, 52.47625946173617, 43.730216218113476,
                                        38.26393919084929, 35.877937618904795},
                                       {90.90049994553627, 74.26909467713982, 66.96616119492383,
                                        60.35238742455232, 53.27590726311329},
                                       {56.61597334212967, 33.45422522222326, 30.023363801361253,
                                        30.006480460035053, 23.798596686205585},
                                       {95.59472644493084, 71.69604483369812, 61.018693779513086,
                                        57.50149954911162, 49.14629075754233}};
    ms_schedule_free(assert_reaches_optimum(times, 91.0605));
}

/* A100 MIXSCALINGEXTREME,WIDETIMES, 7 tasks generated from seed 40 (ms_generate): from an
 * empty GPU the local search alone stops at 41.400 s, 0.24 % above the proved optimum,
 * 41.299 s. The exact phase, with nodes of its own after the local search's whole budget,
 * finds the optimum below it (2,958 nodes, measured 2 Dec 2026). */
static void test_exact_phase_batch(void **state)
{
    (void)state;
    static const double times[7][5] = {{84.198634046631867, 22.008990689250314, 11.114275132147867,
                                        7.5046039854099726, 4.4657356144202129},
                                       {53.085036374827858, 26.542518187413929, 18.62255183118377,
                                        14.875642079200938, 9.2842955335591935},
                                       {6.3016217245817767, 6.3016217245817767, 5.2513514371514809,
                                        5.0866993208748754, 4.251027289588289},
                                       {41.551307075945616, 38.070301507251543, 31.725251256042952,
                                        31.121607915240968, 27.217872909488108},
                                       {4.7683926689735765, 2.8610356013841458, 2.0186345615680295,
                                        1.5933632368392543, 0.93884911279515493},
                                       {40.85978634240395, 37.570043556588899, 33.195105374342482,
                                        30.250072526066013, 25.254623716468931},
                                       {66.039209154984036, 33.019604577492018, 27.516337147910015,
                                        26.638103577177972, 22.507709806028508}};
    ms_schedule *s = assert_reaches_optimum(times, 41.298743897);
    assert_true(ms_schedule_stat(s, "nodes") >= 1);
    assert_true(ms_schedule_stat(s, "nodes") <=
                SEARCH_DEFAULT_BUDGET_MS * SEARCH_EXACT_NODES_PER_MS);
    /* the local search had its whole budget: the nodes are not taken from its units */
    assert_true(ms_schedule_stat(s, "work_units") >=
                SEARCH_DEFAULT_BUDGET_MS * SEARCH_UNITS_PER_MS);
    ms_schedule_free(s);
}

/* Batches of at most SEARCH_EXACT_MAX_N (7) tasks on one GPU get the exact solver's branch
 * and bound below the local search's best, from the same layout: at 2 to 5 tasks the
 * default budget reaches the proved optimum (the bench proves n = 5 in a few hundred
 * nodes), from an empty GPU or from a partition. */
static void test_small_batches_optimal(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 777);
    static const char *const gpus[] = {"A100-40GB", "A30-24GB"};
    for (int c = 0; c < 60; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin(gpus[c % 2]);
        ms_workload *w = random_workload(gpu, 2 + (int)ms_rng_below(&rng, 4), &rng, c);
        ms_offline_options o;
        ms_offline_options_init(&o);
        ms_initial held; /* every third case from a partition of the GPU */
        ms_initial_init(&held);
        for (int k = 0; c % 3 == 1 && k < gpu->partitions[c % gpu->npartitions].n; k++) {
            ms_error err;
            assert_int_equal(ms_initial_add(&held, gpu, 0,
                                            gpu->partitions[c % gpu->npartitions].inst[k], 0, &err),
                             MS_OK);
        }
        o.initial = &held;
        ms_schedule *s = run("search", w, gpu, 1, &o, c);
        ms_schedule *opt = run("optimal", w, gpu, 1, &o, c);
        check_valid(s, w, gpu, 1, &held, c);
        check_valid(opt, w, gpu, 1, &held, c);
        assert_true(ms_schedule_stat(opt, "proved") == 1);
        if (ms_schedule_makespan(s) > ms_schedule_makespan(opt) * (1 + 1e-9))
            fail_msg("case %d (%s, n=%d): search %.9g > optimum %.9g", c, gpu->name, w->n,
                     ms_schedule_makespan(s), ms_schedule_makespan(opt));
        ms_schedule_free(s);
        ms_schedule_free(opt);
        ms_initial_fini(&held);
        ms_workload_free(w);
    }
}

/* With a policy file, the agent's schedule is a starting point: search is no worse. */
static void test_rl_start(void **state)
{
    (void)state;
    const char *model = test_source_path("models/a100-widetimes.bin");
    if (access(model, R_OK))
        skip();
    char path[4096];
    snprintf(path, sizeof path, "%s", model);
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    for (int c = 0; c < 5; c++) {
        ms_workload *w = random_workload(gpu, 14, &rng, c);
        ms_offline_options o;
        ms_offline_options_init(&o);
        o.rl.model = path;
        o.search.time_budget_ms = 1;
        ms_schedule *s = run("search", w, gpu, 1, &o, c), *rl = run("rl", w, gpu, 1, &o, c);
        check_valid(s, w, gpu, 1, NULL, c);
        assert_true(ms_schedule_makespan(s) <= ms_schedule_makespan(rl));
        ms_schedule_free(s);
        ms_schedule_free(rl);
        ms_workload_free(w);
    }
}

static void test_bad_options(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = read_sample(gpu);
    ms_offline_options o;
    ms_offline_options_init(&o);
    ms_schedule *s = NULL;
    ms_error err;
    o.search.time_budget_ms = -1;
    assert_int_equal(ms_offline_schedule("search", w, gpu, 1, &o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "budget"));
    o.search.time_budget_ms = 0;
    o.search.threads = 1000;
    assert_int_equal(ms_offline_schedule("search", w, gpu, 1, &o, &s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "threads"));
    assert_null(s);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rodinia_sample),
        cmocka_unit_test(test_cfd_pair),
        cmocka_unit_test(test_split_batch),
        cmocka_unit_test(test_exact_phase_batch),
        cmocka_unit_test(test_rl_start),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_small_batches_optimal),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_starts_threads),
        cmocka_unit_test(test_random_workloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
