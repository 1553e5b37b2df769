/* test_online_trace.c: online workload readers (trace CSV, Alibaba pod list) and the
 * Poisson/Normal/Long generator. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/online.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static int parse(const char *text, ms_online_workload *w, ms_error *err)
{
    return ms_online_trace_parse(text, strlen(text), "t.csv", a100(), w, err);
}

static void test_trace_ok(void **state)
{
    (void)state;
    ms_online_workload w;
    assert_int_equal(
        parse("arrival,profile,work,name\r\n5,1g.10gb,3,b\r\n0,7g.40gb,2.5,a\r\n\n", &w, NULL), 0);
    assert_int_equal(w.n, 2);
    assert_string_equal(ms_online_job_name(&w, 0), "a"); /* sorted by arrival */
    assert_int_equal(w.jobs[1].profile, ms_gpu_profile_by_name(a100(), "1g.10gb"));
    assert_float_equal(w.jobs[0].work, 2.5, 0);
    /* written and read back unchanged */
    char *path = test_write_temp("");
    ms_online_workload back;
    assert_int_equal(ms_online_trace_write(path, a100(), &w, NULL), 0);
    assert_int_equal(ms_online_trace_read(path, a100(), &back, NULL), 0);
    assert_int_equal(back.n, 2);
    assert_float_equal(back.jobs[1].arrival, 5, 0);
    assert_string_equal(ms_online_job_name(&back, 1), "b");
    remove(path);
    free(path);
    ms_online_workload_fini(&back);
    ms_online_workload_fini(&w);
}

/* Empty inputs are errors, not empty successes: a header-only trace, zero generated jobs,
 * and an empty workload given to the simulator. */
static void test_empty_inputs(void **state)
{
    (void)state;
    ms_online_workload w;
    ms_error err;
    assert_int_equal(parse("arrival,profile,work\n\n", &w, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "t.csv: no jobs"));
    assert_int_equal(w.n, 0);
    ms_online_gen g;
    ms_online_gen_defaults(a100(), &g);
    g.jobs = 0;
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    assert_int_equal(ms_online_generate(a100(), &g, &rng, &w, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "jobs 0"));
    ms_online_config c;
    ms_online_config_defaults(&c);
    ms_online_result r;
    memset(&w, 0, sizeof w);
    assert_int_equal(ms_online_simulate(a100(), &w, &c, &r, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "no jobs"));
}

static void expect_error(const char *text, const char *needle)
{
    ms_online_workload w;
    ms_error err = {0};
    assert_int_equal(parse(text, &w, &err), MS_EINVAL);
    if (!strstr(err.msg, needle))
        fail_msg("'%s' lacks '%s'", err.msg, needle);
    assert_int_equal(w.n, 0);
    assert_null(w.jobs);
}

static void test_trace_errors_name_the_line(void **state)
{
    (void)state;
    expect_error("", "t.csv:1: header");
    expect_error("time,profile,work\n", "t.csv:1: header");
    expect_error("arrival,profile,work\n0,1g.5gb,1\n0,5g.30gb,1\n", "t.csv:3: profile '5g.30gb'");
    expect_error("arrival,profile,work\n0,1g.5gb,0\n", "t.csv:2: work '0'");
    expect_error("arrival,profile,work\n-1,1g.5gb,1\n", "t.csv:2: arrival '-1'");
    expect_error("arrival,profile,work\nx,1g.5gb,1\n", "t.csv:2: arrival 'x'");
    expect_error("arrival,profile,work\n0,1g.5gb,nan\n", "t.csv:2: work 'nan'");
    expect_error("arrival,profile,work\n0,1g.5gb\n", "t.csv:2: expected 3 fields, found 2");
    expect_error("arrival,profile,work\n0,1g.5gb,1,x,y\n", "t.csv:2: expected 3 fields");
    /* the time ceiling (MS_TIME_MAX) on both time fields */
    expect_error("arrival,profile,work\n0,1g.5gb,1e300\n",
                 "t.csv:2: work '1e300' is over the ceiling");
    expect_error("arrival,profile,work\n1e300,1g.5gb,1\n",
                 "t.csv:2: arrival '1e300' is over the ceiling");
    expect_error("arrival,profile,work\n0,1g.5gb,-2\n", "t.csv:2: work '-2' is not a number > 0");
}

/* gpu_milli maps to the smallest base profile whose share covers it: on an A100 (7
 * slices) 100 -> 1g (1/7), 150 -> 2g, 460 -> 4g (3/7 < 0.46), 1000 -> 7g. */
static void test_alibaba_mapping_and_skips(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    char *path = test_write_temp(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
        "deletion_time,scheduled_time\n"
        "p0,1,1,1,100,,LS,Running,100,200,100\n"
        "p1,1,1,1,150,,LS,Running,110,300,110\n"
        "p2,1,1,1,460,,LS,Running,120,130,120\n"
        "p3,1,1,1,1000,,LS,Running,130,140,130\n"
        "p4,1,1,2,1000,,LS,Running,130,140,130\n"
        "p5,1,1,0,0,,LS,Running,130,140,130\n"
        "p6,1,1,1,500,,LS,Running,130,,130\n");
    ms_online_workload w;
    assert_int_equal(ms_online_alibaba_read(path, m, 0, &w, NULL), 0);
    assert_int_equal(w.n, 4);
    assert_int_equal(w.skipped, 3);
    assert_int_equal(w.skipped_multi_gpu, 1);
    assert_int_equal(w.skipped_no_gpu, 1);
    assert_int_equal(w.skipped_bad_time, 1);
    const char *want[] = {"1g.5gb", "2g.10gb", "4g.20gb", "7g.40gb"};
    for (int j = 0; j < 4; j++)
        assert_string_equal(m->profiles[w.jobs[j].profile].name, want[j]);
    assert_float_equal(w.jobs[0].arrival, 0, 0);
    assert_float_equal(w.jobs[1].arrival, 10, 0);
    assert_float_equal(w.jobs[1].work, 190, 0);
    ms_online_workload_fini(&w);
    remove(path);
    free(path);
}

static void test_alibaba_errors(void **state)
{
    (void)state;
    ms_online_workload w;
    ms_error err;
    const char *bad[][2] = {
        {"name,num_gpu\n", "a.csv:1: header lacks"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,x,0,1\n",
         "a.csv:2: num_gpu or gpu_milli"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,100,0\n",
         "a.csv:2: expected 5 fields"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,100,0,1\nq,1,1500,0,1\n",
         "a.csv:3: gpu_milli 1500 is out of range"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,-5,0,1\n",
         "a.csv:2: gpu_milli -5 is out of range"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,0,0,1\n",
         "a.csv:2: gpu_milli 0 is out of range (1..1000 for a one-GPU pod)"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,0.5,100,0,1\n",
         "a.csv:2: num_gpu 0.5 is not a GPU count"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,100,soon,1\n",
         "a.csv:2: creation_time 'soon' is not a number"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,100,0,later\n",
         "a.csv:2: deletion_time 'later' is not a number"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,1,100,0,1e300\n",
         "a.csv:2: deletion_time '1e300' is over the ceiling"},
        /* every row skipped: nothing to simulate */
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\np,0,0,0,1\nq,2,1000,0,1\n"
         "r,1,100,5,5\n",
         "a.csv: no usable pods (3 skipped: 1 without a GPU, 1 on several GPUs, 1 without a "
         "lifetime)"},
        {"name,num_gpu,gpu_milli,creation_time,deletion_time\n", "a.csv: no usable pods"},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        assert_int_equal(
            ms_online_alibaba_parse(bad[i][0], strlen(bad[i][0]), "a.csv", a100(), 0, &w, &err),
            MS_EINVAL);
        if (!strstr(err.msg, bad[i][1]))
            fail_msg("'%s' lacks '%s'", err.msg, bad[i][1]);
        assert_int_equal(w.n, 0);
    }
}

/* The real trace: 6,989 pods ask for one GPU or part of one (shared/data/README.md). */
static void test_alibaba_real_trace(void **state)
{
    (void)state;
    const char *path = test_source_path(
        "../shared/data/alibaba-openb-2023/openb_pod_list_default.csv");
    FILE *f = fopen(path, "r");
    if (!f)
        skip();
    fclose(f);
    ms_online_workload w;
    ms_error err;
    if (ms_online_alibaba_read(path, a100(), 0, &w, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(w.n + w.skipped_bad_time, 6989);
    assert_int_equal(w.skipped_multi_gpu, 16 + 15 + 44);
    assert_int_equal(w.skipped_no_gpu, 1088);
    for (int j = 1; j < w.n; j++)
        assert_true(w.jobs[j].arrival >= w.jobs[j - 1].arrival && w.jobs[j].work > 0);
    ms_online_workload_fini(&w);
}

static void test_generator_statistics(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_gen g;
    ms_online_gen_defaults(m, &g);
    assert_int_equal(g.nmix, 4); /* 1g.5gb 2g 3g 4g, as in paper 002 */
    g.jobs = 20000;
    g.arrival_mean = 50;
    for (int service = 0; service < 2; service++) {
        g.service = service;
        ms_rng rng;
        ms_rng_seed(&rng, 3);
        ms_online_workload w;
        assert_int_equal(ms_online_generate(m, &g, &rng, &w, NULL), 0);
        double gaps = w.jobs[w.n - 1].arrival / (w.n - 1);
        assert_true(fabs(gaps - 50) < 2.5);
        int below = 0, count[MS_MAX_PROFILES] = {0};
        for (int j = 0; j < w.n; j++) {
            /* each profile's median is service_median x its scale (docs/online.md) */
            int p = w.jobs[j].profile;
            below += w.jobs[j].work < g.service_median * ms_online_service_scale(m, p);
            count[w.jobs[j].profile]++;
        }
        if (service == MS_SERVICE_LONG)
            assert_int_equal(below, 0); /* Long: the upper half only */
        else
            assert_true(abs(below - w.n / 2) < w.n / 20);
        for (int i = 0; i < g.nmix; i++)
            assert_true(abs(count[g.mix_profile[i]] - w.n / 4) < w.n / 20);
        ms_online_workload_fini(&w);
    }
    ms_error err;
    assert_int_equal(ms_online_parse_mix(m, "1g.5gb:3,4g.20gb", &g, NULL), 0);
    assert_int_equal(g.nmix, 2);
    assert_float_equal(g.mix_weight[0], 3, 0);
    assert_int_equal(ms_online_parse_mix(m, "1g.5gb:-1", &g, &err), MS_EINVAL);
    assert_int_equal(ms_online_parse_mix(m, "9g.1gb", &g, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "9g.1gb"));
}

/* Service times by profile (docs/online.md): the scale is (2 for >= 3 slices) / sqrt(slices),
 * flat gives every profile the same median, and the offered load set on the generator is
 * what the drawn jobs demand (compute-slice seconds per second over the node's slices). */
static void test_service_by_profile_and_load(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    int p1 = ms_gpu_profile_by_name(m, "1g.5gb"), p2 = ms_gpu_profile_by_name(m, "2g.10gb");
    int p3 = ms_gpu_profile_by_name(m, "3g.20gb"), p7 = ms_gpu_profile_by_name(m, "7g.40gb");
    assert_float_equal(ms_online_service_scale(m, p1), 1.0, 1e-12);
    assert_float_equal(ms_online_service_scale(m, p2), 1 / sqrt(2.0), 1e-12);
    assert_float_equal(ms_online_service_scale(m, p3), 2 / sqrt(3.0), 1e-12);
    assert_float_equal(ms_online_service_scale(m, p7), 2 / sqrt(7.0), 1e-12);
    assert_float_equal(ms_online_tpot_alone(m, p3), 0.2 / sqrt(3.0), 1e-12);
    for (int service = 0; service < 2; service++)
        for (int flat = 0; flat < 2; flat++) {
            ms_online_gen g;
            ms_online_gen_defaults(m, &g);
            g.jobs = 40000;
            g.service = service;
            g.flat_service = flat;
            ms_online_gen_set_load(m, &g, 4, 0.8);
            assert_float_equal(ms_online_gen_load(m, &g, 4), 0.8, 1e-12);
            ms_rng rng;
            ms_rng_seed(&rng, 11);
            ms_online_workload w;
            assert_int_equal(ms_online_generate(m, &g, &rng, &w, NULL), 0);
            double demand = 0, span = w.jobs[w.n - 1].arrival;
            int below = 0, n3 = 0;
            for (int j = 0; j < w.n; j++) {
                demand += m->profiles[w.jobs[j].profile].slices * w.jobs[j].work;
                if (w.jobs[j].profile == p3) {
                    n3++;
                    below += w.jobs[j].work < g.service_median * (flat ? 1 : 2 / sqrt(3.0));
                }
            }
            double load = demand / span / (4.0 * m->slices);
            assert_true(fabs(load - 0.8) < 0.8 * 0.03);
            if (service == MS_SERVICE_LONG)
                assert_int_equal(below, 0);
            else
                assert_true(abs(below - n3 / 2) < n3 / 20);
            ms_online_workload_fini(&w);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_ok),
        cmocka_unit_test(test_empty_inputs),
        cmocka_unit_test(test_trace_errors_name_the_line),
        cmocka_unit_test(test_alibaba_errors),
        cmocka_unit_test(test_alibaba_mapping_and_skips),
        cmocka_unit_test(test_alibaba_real_trace),
        cmocka_unit_test(test_generator_statistics),
        cmocka_unit_test(test_service_by_profile_and_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
