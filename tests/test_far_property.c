/* test_far_property.c: FAR on 10,000 random workloads (every preset pair, n 1..60, every
 * built-in GPU model, 1-4 GPUs, one batch or several with each concatenation mode, random
 * infinite sizes and tied times): every schedule passes the validator, keeps every task and
 * ends no earlier than l_bound; refinement never worsens the makespan; reverse and overlap
 * concatenation never end later than trivial concatenation; every tenth plan is computed
 * twice (same plan) and read back from its JSON. The same checks on a third as many
 * workloads with the rule options four_runs_three and tie_right_first. MIGSCHED_PROPERTY_CASES
 * overrides the count (the sanitizer build checks 2,000 unless told otherwise). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"
#include "migsched/offline.h"

/* The sanitizer build runs 5x slower on this 2-core machine: it checks 2,000 by default. */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_CASES 2000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_CASES 2000
#endif
#endif
#ifndef DEFAULT_CASES
#define DEFAULT_CASES 10000
#endif

static int case_count(void)
{
    const char *env = getenv("MIGSCHED_PROPERTY_CASES");
    int n = env ? atoi(env) : 0;
    return n > 0 ? n : DEFAULT_CASES;
}

static ms_schedule *schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                             int gpus, const ms_offline_options *o, int c)
{
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_offline_schedule(algo, w, gpu, gpus, o, &s, &err))
        fail_msg("case %d: %s", c, err.msg);
    ms_validation v = {0};
    int bad = ms_schedule_validate(s, w, &v);
    if (bad) {
        print_error("case %d (%s, %s x%d, n=%d, batch %d, concat %s): %s: %s\n", c, algo, gpu->name,
                    gpus, w->n, o->batch, ms_concat_name(o->far.concat), v.v[0].rule, v.v[0].msg);
        ms_validation_fini(&v);
        fail();
    }
    ms_validation_fini(&v);
    assert_int_equal(s->ntasks, w->n);
    double ms = ms_schedule_makespan(s);
    double lb = ms_bound_lbound(w, gpu, gpus), base = ms_bound_baseline(w, gpu, gpus);
    if (ms < lb * (1 - 1e-9) || ms < base * (1 - 1e-9))
        fail_msg("case %d: makespan %.9g below l_bound %.9g / baseline %.9g", c, ms, lb, base);
    return s;
}

/* Every tenth case: a second run gives the same plan, and the plan survives its JSON form
 * (written, read back, still valid, same makespan). */
static void check_repeat_and_json(const ms_schedule *s, const char *algo, const ms_workload *w,
                                  const ms_gpu_model *gpu, int gpus, const ms_offline_options *o,
                                  int c)
{
    ms_schedule *again = NULL;
    ms_error err;
    if (ms_offline_schedule(algo, w, gpu, gpus, o, &again, &err))
        fail_msg("case %d: %s", c, err.msg);
    assert_int_equal(again->ntasks, s->ntasks);
    assert_int_equal(again->ninst, s->ninst);
    for (int i = 0; i < s->ntasks; i++) {
        assert_int_equal(again->task[i].index, s->task[i].index);
        assert_int_equal(again->task[i].instance, s->task[i].instance);
        assert_true(again->task[i].start == s->task[i].start);
    }
    ms_schedule_free(again);
    size_t len;
    char *buf = test_schedule_json_text(s, w, &len);
    ms_schedule *back = NULL;
    if (ms_schedule_parse_json(buf, len, "far", gpu, &back, &err))
        fail_msg("case %d: reading the JSON back: %s", c, err.msg);
    assert_int_equal(ms_schedule_validate(back, w, NULL), 0);
    assert_near(ms_schedule_makespan(back), ms_schedule_makespan(s),
                1e-9 * ms_schedule_makespan(s));
    ms_schedule_free(back);
    free(buf);
}

static void check_case(int c, ms_rng *rng)
{
    const ms_gpu_model *gpu = ms_gpu_builtin_at(c % ms_gpu_builtin_count());
    int gpus = 1 + (int)ms_rng_below(rng, 4);
    int n = 1 + (int)ms_rng_below(rng, 60);
    ms_workload *w = test_random_preset_workload(gpu, n, rng);
    test_perturb_workload(w, gpu, rng);
    ms_offline_options o;
    ms_offline_options_init(&o);
    if (c % 2 == 0) { /* one batch: phase 3 against phases 1-2 */
        ms_schedule *plain = schedule("far-norefine", w, gpu, gpus, &o, c);
        ms_schedule *refined = schedule("far", w, gpu, gpus, &o, c);
        assert_true(ms_schedule_makespan(refined) <= ms_schedule_makespan(plain));
        if (c % 10 == 0)
            check_repeat_and_json(refined, "far", w, gpu, gpus, &o, c);
        ms_schedule_free(plain);
        ms_schedule_free(refined);
    } else { /* several batches: each concatenation against trivial */
        static const int sizes[] = {1, 2, 3, 5, 10, 20};
        o.batch = sizes[ms_rng_below(rng, 6)];
        o.far.refine = (int)ms_rng_below(rng, 2);
        const char *algo = o.far.refine ? "far" : "far-norefine";
        double trivial = 0;
        for (int m = MS_CONCAT_TRIVIAL; m <= MS_CONCAT_OVERLAP; m++) {
            o.far.concat = (ms_concat_mode)m;
            ms_schedule *s = schedule(algo, w, gpu, gpus, &o, c);
            double ms = ms_schedule_makespan(s);
            if (c % 10 == 1)
                check_repeat_and_json(s, algo, w, gpu, gpus, &o, c);
            if (m == MS_CONCAT_TRIVIAL)
                trivial = ms;
            else if (ms > trivial)
                fail_msg("case %d: %s concatenation %.9g > trivial %.9g", c,
                         ms_concat_name(o.far.concat), ms, trivial);
            ms_schedule_free(s);
        }
    }
    ms_workload_free(w);
}

static void test_random_workloads(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 20240607);
    int cases = case_count();
    for (int c = 0; c < cases; c++)
        check_case(c, &rng);
    print_message("FAR property: %d random workloads checked\n", cases);
}

/* FAR's rule options (four_runs_three, tie_right_first, both) on random workloads of every
 * model, GPU count, batch size and concatenation mode: every plan validates, keeps every
 * task, and refinement still never worsens phase 2's makespan. A third of the cases: the
 * option is repeated (same plan). */
static void test_rule_options(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 31337);
    int cases = case_count() / 3, changed = 0;
    for (int c = 0; c < cases; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(c % ms_gpu_builtin_count());
        int gpus = 1 + (int)ms_rng_below(&rng, 3), n = 1 + (int)ms_rng_below(&rng, 40);
        ms_workload *w = test_random_preset_workload(gpu, n, &rng);
        test_perturb_workload(w, gpu, &rng);
        ms_offline_options o;
        ms_offline_options_init(&o);
        int rules = 1 + (int)ms_rng_below(&rng, 3);
        o.far.four_runs_three = rules & 1;
        o.far.tie_right_first = (rules & 2) != 0;
        if (ms_rng_below(&rng, 2)) {
            static const int sizes[] = {1, 2, 3, 5, 10, 20};
            o.batch = sizes[ms_rng_below(&rng, 6)];
            o.far.concat = (ms_concat_mode)ms_rng_below(&rng, 3);
        }
        ms_schedule *plain = schedule("far-norefine", w, gpu, gpus, &o, c);
        ms_schedule *s = schedule("far", w, gpu, gpus, &o, c);
        if (o.batch == 0)
            assert_true(ms_schedule_makespan(s) <= ms_schedule_makespan(plain));
        if (c % 3 == 0)
            check_repeat_and_json(s, "far", w, gpu, gpus, &o, c);
        ms_offline_options_init(&o);
        ms_schedule *def = schedule("far", w, gpu, gpus, &o, c);
        changed += ms_schedule_makespan(def) != ms_schedule_makespan(s);
        ms_schedule_free(def);
        ms_schedule_free(plain);
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    /* The options must matter somewhere, or this test checks nothing new. */
    assert_true(changed > cases / 20);
    print_message("FAR rule options: %d random workloads checked, %d with another makespan\n",
                  cases, changed);
}

/* The refinement options: on workloads where FAR keeps several refinement iterations,
 * --refine-iters 1 keeps exactly one (a makespan between the unrefined and the fully
 * refined ones) and a minimum gain of 100 % stops after the first kept iteration too. */
static void test_refine_options(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_rng rng;
    ms_rng_seed(&rng, 99);
    int found = 0;
    for (int tries = 0; tries < 500 && found < 5; tries++) {
        ms_gen_params params;
        ms_workload *w = NULL;
        ms_error err;
        if (ms_gen_preset(gpu, "MIXEDSCALING,NARROWTIMES", &params, &err) ||
            ms_generate(gpu, &params, 20 + (int)ms_rng_below(&rng, 20), &rng, &w, &err))
            fail_msg("%s", err.msg);
        ms_offline_options o;
        ms_offline_options_init(&o);
        ms_schedule *full = schedule("far", w, gpu, 1, &o, tries);
        if (ms_schedule_stat(full, "refine_iterations") >= 2) {
            found++;
            o.far.refine_max_iters = 1;
            ms_schedule *one = schedule("far", w, gpu, 1, &o, tries);
            o.far.refine_max_iters = 0;
            o.far.refine_min_gain = 1;
            ms_schedule *gain = schedule("far", w, gpu, 1, &o, tries);
            assert_int_equal((int)ms_schedule_stat(one, "refine_iterations"), 1);
            assert_int_equal((int)ms_schedule_stat(gain, "refine_iterations"), 1);
            assert_true(ms_schedule_makespan(one) < ms_schedule_stat(one, "makespan_phase2"));
            assert_true(ms_schedule_makespan(full) < ms_schedule_makespan(one));
            assert_true(ms_schedule_makespan(gain) == ms_schedule_makespan(one));
            ms_schedule_free(one);
            ms_schedule_free(gain);
        }
        ms_schedule_free(full);
        ms_workload_free(w);
    }
    assert_int_equal(found, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_workloads),
                                       cmocka_unit_test(test_rule_options),
                                       cmocka_unit_test(test_refine_options)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
