/* test_workload_json.c: the workload JSON reader's accepted forms, every rejection (code and
 * message naming file and field), and writer round trips (JSON and CSV <-> JSON). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/workload.h"
#include "support.h"
#include "workload_assert.h"

static const ms_gpu_model *a30(void) { return ms_gpu_builtin("A30-24GB"); }
static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_workload *parse_ok(const char *text, const ms_gpu_model *gpu)
{
    ms_workload *w = NULL;
    ms_error err = {0};
    int rc = ms_workload_parse_json(text, strlen(text), "t.json", gpu, &w, &err);
    if (rc)
        fail_msg("unexpected error %d: %s", rc, err.msg);
    return w;
}

typedef struct bad_case {
    const char *text;
    int gpu; /* 0 none, 1 A30, 2 A100 */
    const char *needle[3];
} bad_case;

static void expect_bad(const bad_case *c)
{
    ms_workload sentinel, *w = &sentinel;
    ms_error err = {0};
    const ms_gpu_model *gpu = c->gpu == 1 ? a30() : c->gpu == 2 ? a100() : NULL;
    int rc = ms_workload_parse_json(c->text, strlen(c->text), "t.json", gpu, &w, &err);
    if (rc != MS_EINVAL)
        fail_msg("input %s: expected MS_EINVAL, got %d (%s)", c->text, rc, err.msg);
    assert_int_equal(err.code, MS_EINVAL);
    assert_null(w); /* a failure leaves NULL */
    for (int i = 0; i < 3 && c->needle[i]; i++)
        if (!strstr(err.msg, c->needle[i]))
            fail_msg("message \"%s\" lacks \"%s\"", err.msg, c->needle[i]);
}

#define T(x) "{\"tasks\": [" x "]}"
#define OK   "{\"name\": \"ok\", \"times\": {\"1\": 1}}"

static void test_structure_errors(void **state)
{
    static const bad_case cases[] = {
        {"", 0, {"t.json:", "invalid JSON"}},
        {"{\"tasks\": [\n{\"name\": \"a\",, }]}", 0, {"t.json:2:", "invalid JSON"}},
        {"[1, 2]", 0, {"t.json: the top level must be an object"}},
        {T("{\"name\": \"a\", \"times\": {\"1\": 1e300}}"),
         0,
         {"t.json: tasks[0].times[\"1\"]: time is over the ceiling of 1e9 s"}},
        {"{\"tasks\": [" OK "], \"task\": 1}", 0, {"t.json: top level: unknown key \"task\""}},
        {"{\"gpu\": \"A30\"}", 0, {"t.json: tasks: missing"}},
        {T(""), 0, {"t.json: tasks: must be a non-empty array"}},
        {"{\"tasks\": {}}", 0, {"t.json: tasks: must be a non-empty array"}},
        {"{\"gpu\": 7, \"tasks\": [" OK "]}", 0, {"t.json: gpu: must be a model name"}},
        {"{\"gpu\": \"0123456789012345678901234567890123\", \"tasks\": [" OK "]}",
         0,
         {"t.json: gpu: ", "at most 31"}},
        {T(OK ", 3"), 0, {"t.json: tasks[1]: must be an object"}},
        {T(OK ", {\"times\": {\"1\": 2}}"), 0, {"t.json: tasks[1].name: missing"}},
        {T("{\"name\": \"\", \"times\": {\"1\": 2}}"),
         0,
         {"t.json: tasks[0].name: must be a non-empty string"}},
        {T("{\"name\": 5, \"times\": {\"1\": 2}}"),
         0,
         {"t.json: tasks[0].name: must be a non-empty string"}},
        {T("{\"name\": \"a\"}"), 0, {"t.json: tasks[0].times: missing"}},
        {T("{\"name\": \"a\", \"times\": [1, 2]}"),
         0,
         {"t.json: tasks[0].times: must be an object"}},
        {T(OK "," OK "," OK),
         0,
         {"t.json: tasks[1].name: duplicate task name \"ok\"", "first at tasks[0]"}},
        {T("{\"name\": \"a\", \"time\": {\"1\": 2}}"),
         0,
         {"t.json: tasks[0]: unknown key \"time\""}},
        {T("{\"name\": \"a\", \"times\": {\"1\": 2}, \"command\": 3}"),
         0,
         {"t.json: tasks[0].command: must be a string or null"}},
        {T("{\"name\": \"a\", \"times\": {\"1\": 2}, \"cwd\": []}"),
         0,
         {"t.json: tasks[0].cwd: must be a string"}},
        {T("{\"name\": \"a\", \"name\": \"b\", \"times\": {\"1\": 2}}"),
         0,
         {"t.json:1:", "duplicate object key"}},
        {T("{\"name\": \"a\\u0000b\", \"times\": {\"1\": 2}}"), 0, {"t.json:1:", "invalid JSON"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(&cases[i]);
}

static void test_time_errors(void **state)
{
    static const bad_case cases[] = {
        {T(OK ", {\"name\": \"b\", \"times\": {\"x\": 2}}"),
         0,
         {"t.json: tasks[1].times[\"x\"]: key is not a compute size"}},
        {T("{\"name\": \"b\", \"times\": {\"0\": 2}}"),
         0,
         {"tasks[0].times[\"0\"]: key is not a compute size"}},
        {T("{\"name\": \"b\", \"times\": {\"9\": 2}}"),
         0,
         {"tasks[0].times[\"9\"]: key is not a compute size"}},
        {T("{\"name\": \"b\", \"times\": {\"01\": 2}}"),
         0,
         {"tasks[0].times[\"01\"]: key is not a compute size"}},
        {T("{\"name\": \"b\", \"times\": {\"1\": 2, \"3\": 1}}"),
         1,
         {"t.json: tasks[0].times[\"3\"]: 3 is not a compute size of A30-24GB (1,2,4)"}},
        {T("{\"name\": \"b\", \"times\": {\"5\": 2}}"),
         2,
         {"tasks[0].times[\"5\"]: 5 is not a compute size of A100-40GB (1,2,3,4,7)"}},
        {T(OK ", {\"name\": \"b\", \"times\": {\"1\": 4, \"2\": -1}}"),
         0,
         {"t.json: tasks[1].times[\"2\"]: time is negative"}},
        {T("{\"name\": \"b\", \"times\": {\"2\": 0}}"), 0, {"tasks[0].times[\"2\"]: time is zero"}},
        {T("{\"name\": \"b\", \"times\": {\"2\": -0.0}}"),
         0,
         {"tasks[0].times[\"2\"]: time is negative"}},
        {T("{\"name\": \"b\", \"times\": {\"2\": \"3\"}}"),
         0,
         {"tasks[0].times[\"2\"]: time must be a positive number"}},
        {T("{\"name\": \"b\", \"times\": {\"2\": \"nan\"}}"),
         0,
         {"tasks[0].times[\"2\"]: time must be a positive number"}},
        {T("{\"name\": \"b\", \"times\": {\"2\": true}}"),
         0,
         {"tasks[0].times[\"2\"]: time must be a positive number"}},
        {T("{\"name\": \"b\", \"times\": {\"2\": 1e999}}"), 0, {"t.json:1:", "overflow"}},
        {T("{\"name\": \"b\", \"times\": {\"1\": null, \"2\": \"inf\"}}"),
         0,
         {"t.json: tasks[0] (\"b\"): no finite time", "cannot run"}},
        {T("{\"name\": \"b\", \"times\": {}}"), 0, {"tasks[0] (\"b\"): no finite time"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(&cases[i]);
    /* Control: size 3 is fine without a GPU. */
    ms_workload *w = parse_ok(T("{\"name\": \"b\", \"times\": {\"3\": 5}}"), NULL);
    assert_true(w->tasks[0].time[3] == 5);
    ms_workload_free(w);
}

static void test_accepted(void **state)
{
    const char *text =
        "\xEF\xBB\xBF{\"gpu\": \"A100-40GB\", \"tasks\": [\n"
        " {\"name\": \"gaussian\", \"times\": {\"1\": 22.3, \"2\": 11.5, \"3\": 11.5,"
        " \"4\": 6.39, \"7\": 6.39}, \"command\": \"./run\", \"cwd\": \"rodinia/gaussian\"},\n"
        " {\"name\": \"big\", \"times\": {\"1\": null, \"2\": \"inf\", \"3\": \"Infinity\","
        " \"7\": 4}, \"command\": null},\n"
        " {\"name\": \"int\", \"times\": {\"4\": 3}}]}";
    ms_workload *w = parse_ok(text, a100());
    assert_string_equal(w->gpu, "A100-40GB");
    assert_int_equal(w->n, 3);
    assert_true(w->tasks[0].time[1] == 22.3 && w->tasks[0].time[7] == 6.39);
    assert_string_equal(w->tasks[0].command, "./run");
    assert_string_equal(w->tasks[0].cwd, "rodinia/gaussian");
    for (int s = 1; s <= 4; s++)
        assert_true(isinf(w->tasks[1].time[s]));
    assert_true(w->tasks[1].time[7] == 4);
    assert_null(w->tasks[1].command);
    assert_true(w->tasks[2].time[4] == 3);
    assert_true(isinf(w->tasks[2].time[1]));
    ms_workload_free(w);
}

static void test_round_trip(void **state)
{
    ms_workload *w = awkward_workload();
    char *text, *csv;
    ms_workload *back = round_trip(w, a100(), 1, &text);
    assert_string_equal(back->gpu, "A100-40GB");
    /* JSON -> CSV -> JSON keeps everything too. */
    ms_workload *fromcsv = round_trip(back, a100(), 0, &csv);
    assert_same_workload(w, fromcsv, a100());
    free(text);
    free(csv);
    ms_workload_free(fromcsv);
    ms_workload_free(back);
    ms_workload_free(w);
}

/* Times that 15 digits reproduce are written short; "cannot run" is null. */
static void test_writer_format(void **state)
{
    ms_workload *w = parse_ok(T("{\"name\": \"g\", \"times\": {\"1\": 22.3, \"4\": 6.39}}"), a30());
    size_t len;
    char *text = write_to_string(w, a30(), 1, &len);
    assert_non_null(strstr(text, "\"gpu\": \"A30-24GB\""));
    assert_non_null(strstr(text, "\"1\": 22.3,"));
    assert_non_null(strstr(text, "\"2\": null,"));
    assert_non_null(strstr(text, "\"4\": 6.39"));
    assert_int_equal(text[len - 1], '\n');
    free(text);
    ms_workload_free(w);
}

/* A full disk and a name jansson refuses come back through err, each named. */
static void test_writer_errors(void **state)
{
    ms_workload *w = parse_ok(T("{\"name\": \"g\", \"times\": {\"1\": 22.3}}"), a30());
    FILE *full = fopen("/dev/full", "w");
    assert_non_null(full);
    setvbuf(full, NULL, _IONBF, 0); /* each write fails at once, not at fclose */
    ms_error err = {0};
    assert_int_equal(ms_workload_write_json(w, a30(), full, &err), MS_EIO);
    assert_string_equal(err.msg, "cannot write the workload");
    fclose(full);
    ms_workload_free(w);

    w = ms_workload_new();
    double time[MS_MAX_SLICES + 1] = {INFINITY, 1,        INFINITY, INFINITY, INFINITY,
                                      INFINITY, INFINITY, INFINITY, INFINITY};
    assert_int_equal(ms_workload_add(w, "ok", time, NULL, NULL, NULL), MS_OK);
    assert_int_equal(ms_workload_add(w, "bad\xff", time, NULL, NULL, NULL), MS_OK);
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(ms_workload_write_json(w, a30(), f, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "task 1"));
    assert_non_null(strstr(err.msg, "not valid UTF-8"));
    fclose(f);
    free(buf);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure_errors), cmocka_unit_test(test_time_errors),
        cmocka_unit_test(test_accepted),         cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_format),    cmocka_unit_test(test_writer_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
