/* test_schedule_json.c: migsched-schedule/1 round trip, exact bytes, reader errors that
 * name the field, nothing half-loaded; metrics and the Gantt view of the same schedule. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "../src/schedule/schedule_internal.h"
#include "support.h"

static const ms_gpu_model *A100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_workload *workload2(void)
{
    ms_workload *w = ms_workload_new();
    double t[MS_MAX_SLICES + 1] = {INFINITY, 4, 2, 2, 1, INFINITY, INFINITY, 1, INFINITY};
    ms_workload_add(w, "a", t, NULL, NULL, NULL);
    ms_workload_add(w, "b \"quoted\"", t, NULL, NULL, NULL);
    return w;
}

/* An initial 2g@0 runs a, is destroyed, and a 4g@0 is created for b. */
static ms_schedule *sample(void)
{
    const ms_gpu_model *g = A100();
    ms_schedule *s = ms_schedule_new(g, 1, "far");
    ms_schedule_add_instance(s, 0, ms_gpu_profile_by_name(g, "2g.10gb"), 0, NAN, NAN, 2.0, 2.2);
    ms_schedule_add_instance(s, 0, ms_gpu_profile_by_name(g, "4g.20gb"), 0, 2.2, 2.2 + 0.21, NAN,
                             NAN);
    ms_schedule_add_task(s, 0, 0, 0, 2);
    ms_schedule_add_task(s, 1, 1, 2.41, 3.41);
    ms_schedule_set_stat(s, "compute_seconds", 0.00123);
    ms_schedule_set_stat(s, "moves", 3);
    return s;
}

/* The tasks read back are the ones written, named after the workload's tasks. */
static void assert_same_tasks(const ms_schedule *r, const ms_schedule *s, const ms_workload *w)
{
    assert_int_equal(r->ntasks, s->ntasks);
    for (int j = 0; j < s->ntasks; j++) {
        assert_int_equal(r->task[j].index, s->task[j].index);
        assert_int_equal(r->task[j].instance, s->task[j].instance);
        assert_memory_equal(&r->task[j].start, &s->task[j].start, 2 * sizeof(double));
        assert_string_equal(r->task[j].name, w->tasks[s->task[j].index].name);
    }
}

static char *to_json(const ms_schedule *s, const ms_workload *w)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ms_error err;
    assert_int_equal(ms_schedule_write_json(s, w, f, &err), 0);
    fclose(f);
    return buf;
}

/* The writer's blocks of task lines, formatted on one or two threads: the same bytes as
 * the default writer, names escaped by jansson or not, with and without the workload. */
static void test_write_blocks(void **state)
{
    enum { N = 5000 };
    const ms_gpu_model *g = A100();
    ms_workload *w = ms_workload_new();
    ms_schedule *s = ms_schedule_new(g, 1, "far");
    ms_schedule_add_instance(s, 0, ms_gpu_profile_by_name(g, "7g.40gb"), 0, 0, 0.2, NAN, NAN);
    double at = 0.2;
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, i % 97 ? "task%d" : "t\"%d\"\u00e9", i);
        double t[MS_MAX_SLICES + 1] = {INFINITY, 7, 5, 4, 3, INFINITY, INFINITY, 1.0 / (i + 3)};
        assert_int_equal(ms_workload_add(w, name, t, NULL, NULL, NULL), 0);
        ms_schedule_add_task(s, i, 0, at, at + t[7]);
        at += t[7];
    }
    const int block[] = {1, 2, 7, 1000, N - 1, N, 100000};
    for (int k = 0; k < 2; k++) {
        const ms_workload *wk = k ? w : NULL;
        char *ref = to_json(s, wk);
        for (size_t b = 0; b < sizeof block / sizeof *block; b++)
            for (int two = 0; two < 2; two++) {
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                ms_error err;
                assert_int_equal(schedule_write_json_blocks(s, wk, f, block[b], two, &err), 0);
                fclose(f);
                assert_int_equal(len, strlen(ref));
                assert_string_equal(buf, ref);
                free(buf);
            }
        free(ref);
    }
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* s written as JSON for w and parsed back with the schedule's own model. */
static ms_schedule *read_back(const ms_schedule *s, const ms_workload *w)
{
    char *text = to_json(s, w);
    ms_schedule *r;
    ms_error err;
    assert_int_equal(ms_schedule_parse_json(text, strlen(text), "mem", NULL, &r, &err), 0);
    free(text);
    return r;
}

static const char expected[] =
    "{\n"
    "  \"format\": \"migsched-schedule/1\",\n"
    "  \"gpu_model\": \"A100-40GB\", \"gpus\": 1, \"algorithm\": \"far\",\n"
    "  \"makespan\": 3.4100000000000001, \"baseline\": 1.1428571428571428, "
    "\"l_bound\": 1.1657142857142857, \"l_bound_paper\": 1.1942857142857142,\n"
    "  \"stats\": {\"compute_seconds\": 0.00123, \"moves\": 3.0},\n"
    "  \"initial\": [0],\n"
    "  \"instances\": [\n"
    "    {\"id\": 0, \"gpu\": 0, \"profile\": \"2g.10gb\", \"start_slot\": 0, \"size_slots\": 2, "
    "\"slices\": 2, \"create_start\": null, \"create_end\": null, \"destroy_start\": 2.0, "
    "\"destroy_end\": 2.2},\n"
    "    {\"id\": 1, \"gpu\": 0, \"profile\": \"4g.20gb\", \"start_slot\": 0, \"size_slots\": 4, "
    "\"slices\": 4, \"create_start\": 2.2, \"create_end\": 2.41, \"destroy_start\": null, "
    "\"destroy_end\": null}\n"
    "  ],\n"
    "  \"tasks\": [\n"
    "    {\"name\": \"a\", \"index\": 0, \"instance\": 0, \"start\": 0.0, \"end\": 2.0},\n"
    "    {\"name\": \"b \\\"quoted\\\"\", \"index\": 1, \"instance\": 1, \"start\": 2.41, "
    "\"end\": 3.41}\n"
    "  ]\n"
    "}\n";

/* The exact bytes. Bounds by hand: both tasks have least area 4 (1 slice, 4 s), so
 * baseline = 8 / 7; S = {1} (Idle 0 via 1-1-1-1-1-1-1) gives l_bound = (8 + 0.16) / 7 and
 * l_bound_paper = (8 + 0.16 + 0.20) / 7; every other S costs more (S = {2}: Idle 1). */
static void test_golden_bytes(void **st)
{
    (void)st;
    ms_schedule *s = sample();
    ms_workload *w = workload2();
    char *text = to_json(s, w);
    assert_string_equal(text, expected);
    assert_float_equal(ms_bound_baseline(w, A100(), 1), 8.0 / 7, 1e-12);
    assert_float_equal(ms_bound_lbound(w, A100(), 1), 8.16 / 7, 1e-12);
    assert_float_equal(ms_bound_lbound_paper(w, A100(), 1), 8.36 / 7, 1e-12);
    free(text);
    ms_schedule_free(s);
    ms_workload_free(w);
}

static void test_round_trip(void **st)
{
    (void)st;
    ms_schedule *s = sample();
    ms_workload *w = workload2();
    char *text = to_json(s, w);
    ms_schedule *r;
    ms_error err;
    assert_int_equal(ms_schedule_parse_json(text, strlen(text), "mem", NULL, &r, &err), 0);
    assert_string_equal(r->gpu.name, "A100-40GB");
    assert_string_equal(r->algorithm, "far");
    assert_int_equal(r->gpus, 1);
    assert_int_equal(r->ninst, 2);
    assert_int_equal(r->ntasks, 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(r->inst[k].profile, s->inst[k].profile);
        assert_int_equal(r->inst[k].start_slot, s->inst[k].start_slot);
        assert_memory_equal(&r->inst[k].create_start, &s->inst[k].create_start, 4 * sizeof(double));
    }
    assert_true(isnan(r->inst[0].create_start) && isnan(r->inst[1].destroy_end));
    assert_same_tasks(r, s, w);
    assert_float_equal(ms_schedule_stat(r, "compute_seconds"), 0.00123, 0);
    assert_float_equal(ms_schedule_stat(r, "moves"), 3, 0);
    assert_true(isnan(ms_schedule_stat(r, "swaps")));
    assert_int_equal(ms_schedule_validate(r, w, NULL), 0);
    char *again = to_json(r, w);
    assert_string_equal(again, text);
    /* the caller's model: same name accepted, another refused */
    ms_schedule *r2;
    assert_int_equal(ms_schedule_parse_json(text, strlen(text), "mem", A100(), &r2, &err), 0);
    ms_schedule_free(r2);
    assert_int_equal(
        ms_schedule_parse_json(text, strlen(text), "mem", ms_gpu_builtin("H100"), &r2, &err),
        MS_EINVAL);
    assert_null(r2);
    assert_non_null(strstr(err.msg, "gpu_model: the schedule is for 'A100-40GB'"));
    free(again);
    free(text);
    ms_schedule_free(r);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Times that need all 17 digits survive a write and read exactly. */
static void test_exact_reals(void **st)
{
    (void)st;
    const ms_gpu_model *g = A100();
    ms_workload *w = workload2();
    ms_schedule *s = ms_schedule_new(g, 1, "x");
    double c = 0.1 + 0.2; /* 0.30000000000000004 */
    ms_schedule_add_instance(s, 0, ms_gpu_profile_by_name(g, "7g.40gb"), 0, c, c + 0.24, NAN, NAN);
    ms_schedule_add_task(s, 0, 0, c + 0.24, c + 1.24);
    ms_schedule_add_task(s, 1, 0, c + 1.24, c + 2.24);
    ms_schedule *r = read_back(s, w);
    assert_same_tasks(r, s, w);
    assert_true(r->inst[0].create_start == c);
    ms_schedule_free(r);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* The writer's shortest-round-trip digits before they were made fast: every p from 1. */
static int oracle_digits(double x)
{
    char buf[40];
    for (int p = 1; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            return p;
    }
    return 17;
}

/* Test doubles by kind (i % 5): random bit patterns (normal and subnormal, both signs),
 * short decimals (k / 10^j), big ones (k * 10^j), full-precision ones from 1e-6 to 1e12,
 * sums of short decimals (schedule times); NaN for a non-finite pattern. */
static double test_double(ms_rng *rng, int i)
{
    double x;
    switch (i % 5) {
    case 0: { /* any bit pattern */
        uint64_t b = ms_rng_next(rng);
        memcpy(&x, &b, sizeof x);
        return isfinite(x) ? x : NAN;
    }
    case 1: /* a short decimal */
        return (double)ms_rng_below(rng, 100000) / pow(10, (double)ms_rng_below(rng, 12));
    case 2: /* a big one */
        return (double)ms_rng_below(rng, 1000) * pow(10, (double)ms_rng_below(rng, 25));
    case 3: /* every bit of the mantissa used */
        return ms_rng_uniform(rng) * pow(10, (double)ms_rng_below(rng, 19) - 6);
    default: /* a schedule time: a sum of short decimals */
        x = 0;
        for (int k = (int)ms_rng_below(rng, 40); k >= 0; k--)
            x += (double)ms_rng_below(rng, 100000) / 1000;
        return x;
    }
}

static const double edge_doubles[] = {0.0,
                                      -0.0,
                                      1.0,
                                      0.1,
                                      0.3,
                                      1e-300,
                                      1e300,
                                      DBL_MAX,
                                      DBL_MIN,
                                      DBL_TRUE_MIN,
                                      5e-324,
                                      2.2250738585072009e-308,
                                      9007199254740993.0,
                                      123456789012345678.0,
                                      0.1 + 0.2,
                                      0.5,
                                      2.5,
                                      0.125,
                                      1e-5,
                                      9.9999999999999995e-5,
                                      1e15,
                                      1e16,
                                      1e17,
                                      123456.5,
                                      -7.25e-7};

/* real_digits against the oracle on 300,000 doubles and the edge values. */
static void test_real_digits_oracle(void **st)
{
    (void)st;
    ms_rng rng;
    ms_rng_seed(&rng, 4242);
    for (size_t i = 0; i < sizeof edge_doubles / sizeof edge_doubles[0]; i++)
        assert_int_equal(real_digits(edge_doubles[i]), oracle_digits(edge_doubles[i]));
    for (int i = 0; i < 300000; i++) {
        double x = test_double(&rng, i);
        if (isfinite(x) && real_digits(x) != oracle_digits(x))
            fail_msg("%.17g: %d digits, oracle %d", x, real_digits(x), oracle_digits(x));
    }
}

/* real_text against jansson itself (the writer's text before it wrote reals itself) at
 * every precision 1..17, on 100,000 doubles, their sign flips and the edge values. */
static void test_real_text_oracle(void **st)
{
    (void)st;
    ms_rng rng;
    ms_rng_seed(&rng, 77);
    int n = (int)(sizeof edge_doubles / sizeof edge_doubles[0]);
    for (int i = 0; i < n + 100000; i++) {
        double x = i < n ? edge_doubles[i] : test_double(&rng, i);
        if (!isfinite(x))
            continue;
        for (int p = 1; p <= 17; p++) {
            double y = i % 2 ? -x : x;
            json_t *j = json_real(y);
            char *want = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(p)), got[32];
            json_decref(j);
            assert_non_null(want);
            real_text(y, p, got);
            if (strcmp(got, want))
                fail_msg("%.17g at %d digits: '%s', jansson '%s'", y, p, got, want);
            free(want);
        }
    }
}

static void test_empty(void **st)
{
    (void)st;
    ms_schedule *s = ms_schedule_new(A100(), 2, "none");
    ms_workload *w = ms_workload_new();
    char *text = to_json(s, w);
    assert_non_null(strstr(text, "\"instances\": [],\n  \"tasks\": []\n}\n"));
    ms_schedule *r;
    ms_error err;
    assert_int_equal(ms_schedule_parse_json(text, strlen(text), "mem", NULL, &r, &err), 0);
    assert_int_equal(r->gpus, 2);
    assert_int_equal(ms_schedule_validate(r, w, NULL), 0);
    free(text);
    ms_schedule_free(r);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Each bad input: the message names the source and the field. */
static void test_reader_errors(void **st)
{
    (void)st;
#define HEAD "{\"format\": \"migsched-schedule/1\", \"gpu_model\": \"A100-40GB\", "
#define I0                                                                                       \
    "{\"id\": 0, \"gpu\": 0, \"profile\": \"7g.40gb\", \"start_slot\": 0, \"create_start\": 0, " \
    "\"create_end\": 0.24, \"destroy_start\": null, \"destroy_end\": null}"
#define T0 "{\"index\": 0, \"instance\": 0, \"start\": 0.24, \"end\": 1.24}"
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"", "s.json:1:0:"},
        {"[1, 2]", "s.json: expected a JSON object"},
        {"{\"format\": \"other/2\", \"gpu_model\": \"A100\"}", "format: 'other/2', expected"},
        {"{\"format\": \"migsched-schedule/1\"}", "s.json: gpu_model: missing"},
        {"{\"format\": \"migsched-schedule/1\", \"gpu_model\": \"Z80\"}",
         "gpu_model: 'Z80' is not a built-in GPU model"},
        {HEAD "\"gpus\": 0, \"instances\": [], \"tasks\": []}", "gpus: 0, expected 1..4096"},
        {HEAD "\"gpus\": 1.5, \"instances\": [], \"tasks\": []}", "gpus: expected an integer"},
        {HEAD "\"tasks\": []}", "s.json: instances: missing"},
        {HEAD "\"instances\": {}, \"tasks\": []}", "instances: expected an array"},
        {HEAD "\"instances\": [" I0 ", " I0 "], \"tasks\": []}", "instances[1].id: 0, expected 1"},
        {HEAD "\"instances\": [" I0 ", {\"id\": 1, \"gpu\": 0, \"profile\": \"1g.5gb\", "
              "\"start_slot\": 0}, {\"id\": 2, \"gpu\": 0, \"profile\": \"9g.1gb\", "
              "\"start_slot\": 0}], \"tasks\": []}",
         "s.json: instances[2].profile: unknown profile '9g.1gb' for A100-40GB"},
        {HEAD
         "\"instances\": [{\"id\": 0, \"gpu\": 0, \"profile\": \"7g.40gb\", \"start_slot\": 0, "
         "\"slices\": 3}], \"tasks\": []}",
         "instances[0].slices: 3, but 7g.40gb has 7"},
        {HEAD "\"instances\": [{\"id\": 0, \"profile\": \"7g.40gb\", \"start_slot\": 0}], "
              "\"tasks\": []}",
         "instances[0].gpu: missing"},
        {HEAD
         "\"instances\": [{\"id\": 0, \"gpu\": 0, \"profile\": \"7g.40gb\", \"start_slot\": 0, "
         "\"create_start\": \"soon\"}], \"tasks\": []}",
         "instances[0].create_start: expected a number or null"},
        {HEAD "\"instances\": [" I0 "], \"tasks\": [" T0 ", {\"index\": 1, \"instance\": 5, "
              "\"start\": 1, \"end\": 2}]}",
         "tasks[1].instance: no instance 5 (the schedule has 1)"},
        {HEAD "\"instances\": [" I0
              "], \"tasks\": [{\"index\": 0, \"instance\": 0, \"start\": null, "
              "\"end\": 1}]}",
         "tasks[0].start: expected a number"},
        {HEAD "\"instances\": [" I0 "], \"tasks\": [{\"instance\": 0, \"start\": 0, \"end\": 1}]}",
         "tasks[0].index: missing"},
        {HEAD "\"instances\": [" I0 "], \"tasks\": [" T0 "], \"initial\": [0]}",
         "initial[0]: instance 0 has creation times"},
        {HEAD
         "\"instances\": [{\"id\": 0, \"gpu\": 0, \"profile\": \"7g.40gb\", \"start_slot\": 0, "
         "\"create_start\": null, \"create_end\": null}], \"tasks\": []}",
         "instances[0].create_start: null, but instance 0 is not in \"initial\""},
        {HEAD "\"instances\": [" I0 "], \"tasks\": [], \"stats\": {\"moves\": \"many\"}}",
         "stats.moves: expected a number"},
        {HEAD "\"gpus\": 1, \"gpus\": 2, \"instances\": [], \"tasks\": []}", "s.json:1:"},
        {HEAD "\"algorithm\": 7, \"instances\": [], \"tasks\": []}",
         "algorithm: expected a string"},
        {HEAD "\"instances\": [" I0 "], \"tasks\": [{\"index\": 0, \"instance\": 0, \"start\": 0, "
              "\"end\": 1e300}]}",
         "tasks[0].end: 1e+300 is over the ceiling of 1e9 s"},
        {HEAD
         "\"instances\": [{\"id\": 0, \"gpu\": 0, \"profile\": \"7g.40gb\", \"start_slot\": 0, "
         "\"create_start\": -1e300}], \"tasks\": []}",
         "instances[0].create_start: -1e+300 is over the ceiling"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_schedule *s = (ms_schedule *)1;
        ms_error err = {0};
        int rc = ms_schedule_parse_json(cases[i].text, strlen(cases[i].text), "s.json", NULL, &s,
                                        &err);
        if (rc != MS_EINVAL || !strstr(err.msg, cases[i].msg))
            print_message("case %zu: rc %d, message '%s', want '%s'\n", i, rc, err.msg,
                          cases[i].msg);
        assert_int_equal(rc, MS_EINVAL);
        assert_null(s); /* never half-loaded */
        assert_non_null(strstr(err.msg, cases[i].msg));
    }
}

static void test_read_file(void **st)
{
    (void)st;
    ms_schedule *s = sample();
    ms_workload *w = workload2();
    char *text = to_json(s, w);
    char *path = test_write_temp(text);
    ms_schedule *r;
    ms_error err;
    assert_int_equal(ms_schedule_read_json(path, NULL, &r, &err), 0);
    assert_int_equal(r->ntasks, 2);
    ms_schedule_free(r);
    unlink(path);
    assert_int_equal(ms_schedule_read_json(path, NULL, &r, &err), MS_EIO);
    assert_non_null(strstr(err.msg, path));
    free(path);
    free(text);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* normalize: tasks by (start, index); instances and their ids untouched. */
static void test_normalize(void **st)
{
    (void)st;
    const ms_gpu_model *g = A100();
    ms_schedule *s = ms_schedule_new(g, 1, "x");
    int p1 = ms_gpu_profile_by_name(g, "1g.5gb");
    ms_schedule_add_instance(s, 0, p1, 1, 0.16, 0.32, NAN, NAN);
    ms_schedule_add_instance(s, 0, p1, 0, 0, 0.16, NAN, NAN);
    ms_schedule_add_task(s, 2, 0, 4.32, 8.32);
    ms_schedule_add_task(s, 1, 0, 0.32, 4.32);
    ms_schedule_add_task(s, 0, 1, 0.16, 4.16);
    ms_schedule_add_task(s, 3, 1, 0.32, 4.32); /* overlaps: normalize does not judge */
    ms_schedule_normalize(s);
    static const int order[4] = {0, 1, 3, 2};
    for (int i = 0; i < 4; i++)
        assert_int_equal(s->task[i].index, order[i]);
    assert_int_equal(s->task[0].instance, 1);
    assert_int_equal(s->inst[0].start_slot, 1);
    assert_int_equal(s->inst[1].id, 1);
    s->task[1].name = strdup("named");
    ms_schedule *c = ms_schedule_clone(s);
    assert_memory_equal(c->inst, s->inst, 2 * sizeof *c->inst);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c->task[i].index, s->task[i].index);
        assert_int_equal(c->task[i].instance, s->task[i].instance);
        assert_memory_equal(&c->task[i].start, &s->task[i].start, 2 * sizeof(double));
    }
    /* the clone owns a copy of the name */
    assert_true(c->task[1].name && c->task[1].name != s->task[1].name);
    assert_string_equal(c->task[1].name, "named");
    assert_null(c->task[0].name);
    ms_schedule_free(c);
    ms_schedule_free(s);
}

/* A plan read back agrees with its own workload, and with no other: rows swapped, a task
 * renamed, a task index past the end; a plan without names is checked by index only. */
static void test_match_workload(void **st)
{
    (void)st;
    ms_schedule *s = sample();
    ms_workload *w = workload2();
    ms_schedule *r = read_back(s, w);
    ms_error err;
    assert_int_equal(ms_schedule_match_workload(r, w, &err), 0);

    double t[MS_MAX_SLICES + 1] = {INFINITY, 4, 2, 2, 1, INFINITY, INFINITY, 1, INFINITY};
    ms_workload *swapped = ms_workload_new();
    ms_workload_add(swapped, "b \"quoted\"", t, NULL, NULL, NULL);
    ms_workload_add(swapped, "a", t, NULL, NULL, NULL);
    assert_int_equal(ms_schedule_match_workload(r, swapped, &err), MS_EINVAL);
    assert_string_equal(err.msg, "tasks[0]: the plan's task 0 is 'a' but the workload's is "
                                 "'b \"quoted\"' (rows reordered or renamed since the plan "
                                 "was made?)");

    ms_workload *renamed = ms_workload_new();
    ms_workload_add(renamed, "a", t, NULL, NULL, NULL);
    ms_workload_add(renamed, "c", t, NULL, NULL, NULL);
    assert_int_equal(ms_schedule_match_workload(r, renamed, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "tasks[1]: the plan's task 1 is 'b \"quoted\"' but the "
                                    "workload's is 'c'"));

    ms_workload *shorter = ms_workload_new();
    ms_workload_add(shorter, "a", t, NULL, NULL, NULL);
    assert_int_equal(ms_schedule_match_workload(r, shorter, &err), MS_EINVAL);
    assert_string_equal(err.msg, "tasks[1].index: 1, but the workload has 1 task (a plan made "
                                 "for another workload?)");

    /* the sample as built (no names): only indices are checked */
    assert_int_equal(ms_schedule_match_workload(s, renamed, &err), 0);
    ms_workload_free(shorter);
    ms_workload_free(renamed);
    ms_workload_free(swapped);
    ms_schedule_free(r);
    ms_workload_free(w);
    ms_schedule_free(s);
}

/* Metrics of the sample, by hand: busy = 2 s * 2 slices + 1 s * 4 slices = 8 slice-s
 * over 7 * 3.41; one destruction at 2.0, before the makespan: one repartition. */
static void test_metrics(void **st)
{
    (void)st;
    ms_schedule *s = sample();
    ms_workload *w = workload2();
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    assert_float_equal(m.makespan, 3.41, 1e-12);
    assert_float_equal(m.baseline, 8.0 / 7, 1e-12);
    assert_float_equal(m.rho, 3.41 / (8.0 / 7), 1e-12);
    assert_float_equal(m.p_opt, (3.41 / m.l_bound_paper - 1) * 100, 1e-9);
    assert_int_equal(m.creations, 1);
    assert_int_equal(m.destructions, 1);
    assert_int_equal(m.reconfigurations, 1);
    assert_float_equal(m.utilization, 8.0 / (7 * 3.41), 1e-12);
    /* present 2g: no creation charged for size 2, so l_bound <= the plain one */
    assert_true(m.l_bound <= ms_bound_lbound(w, A100(), 1) + 1e-12);
    ms_schedule_free(s);
    /* two GPUs, a 7g on each running one task: everything divides by 7 * 2 */
    const ms_gpu_model *g = A100();
    s = ms_schedule_new(g, 2, "two");
    int p7 = ms_gpu_profile_by_name(g, "7g.40gb");
    ms_schedule_add_instance(s, 0, p7, 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_instance(s, 1, p7, 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_task(s, 0, 0, 0.24, 1.24);
    ms_schedule_add_task(s, 1, 1, 0.24, 1.24);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
    ms_schedule_metrics(s, w, &m);
    assert_float_equal(m.baseline, 8.0 / 14, 1e-12);
    assert_float_equal(m.utilization, 14.0 / (14 * 1.24), 1e-12);
    assert_int_equal(m.creations, 2);
    assert_int_equal(m.destructions, 0);
    assert_int_equal(m.reconfigurations, 0);
    ms_schedule_free(s);
    ms_workload_free(w);
}

static void test_gantt(void **st)
{
    (void)st;
    ms_schedule *s = sample();
    ms_workload *w = workload2();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ms_schedule_gantt(s, w, f, 80);
    fclose(f);
    print_message("%s", buf);
    assert_non_null(strstr(buf, "makespan 3.41 s"));
    assert_non_null(strstr(buf, "g0 2g.10gb@0   |[a===="));
    assert_non_null(strstr(buf, "====]xxxxx\n"));       /* destruction after a */
    assert_non_null(strstr(buf, "+++++[b \"quoted\"")); /* creation, then b */
    for (char *line = buf; *line;) {                    /* fits a 100-column terminal */
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        assert_true(nl - line <= 100);
        line = nl + 1;
    }
    free(buf);
    ms_schedule_free(s);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_bytes),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_exact_reals),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_gantt),
        cmocka_unit_test(test_match_workload),
        cmocka_unit_test(test_real_digits_oracle),
        cmocka_unit_test(test_real_text_oracle),
        cmocka_unit_test(test_write_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
