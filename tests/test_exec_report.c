/* test_exec_report.c: the run report: JSON fields of the required format, and the deviation
 * convention of paper 000 Table 3 checked against the paper's own nine Rodinia rows. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/exec.h"
#include "support.h"

/* Paper 000 Table 3: kernel, simulated end, real end, deviation (%). */
static const struct {
    const char *name;
    double planned, real, deviation;
} table3[] = {
    {"PathFinder", 21.09, 20.64, -2.18}, {"LavaMD", 21.72, 21.62, -0.46},
    {"HotSpot", 22.31, 22.25, -0.26},    {"Gaussian", 22.45, 22.92, 2.05},
    {"NW", 22.79, 23.26, 2.02},          {"Huffman", 23.01, 23.54, 2.25},
    {"HeartWall", 23.05, 22.98, -0.30},  {"ParticleFilter", 23.23, 23.38, 0.64},
    {"LU", 28.86, 28.24, -2.20},
};
#define N (int)(sizeof table3 / sizeof table3[0])

static void build(ms_run_report *r, ms_workload *w)
{
    memset(r, 0, sizeof *r);
    snprintf(r->backend, sizeof r->backend, "nvml");
    snprintf(r->gpu_model, sizeof r->gpu_model, "A30-24GB");
    r->ndevices = 1;
    r->tasks = calloc(N + 1, sizeof *r->tasks);
    r->ops = calloc(1, sizeof *r->ops);
    double t[MS_MAX_SLICES + 1] = {0};
    for (int i = 0; i < N; i++) {
        assert_int_equal(ms_workload_add(w, table3[i].name, t, "true", NULL, NULL), MS_OK);
        r->tasks[r->ntasks++] = (ms_run_task){.index = i,
                                              .planned_start = 0,
                                              .planned_end = table3[i].planned,
                                              .start = 0,
                                              .end = table3[i].real,
                                              .state = MS_RUN_OK};
    }
    /* One that never ran, for the null fields. */
    assert_int_equal(ms_workload_add(w, "skipped", t, "true", NULL, NULL), MS_OK);
    r->tasks[r->ntasks++] = (ms_run_task){.index = N,
                                          .planned_start = 1,
                                          .planned_end = 2,
                                          .start = NAN,
                                          .end = NAN,
                                          .state = MS_RUN_SKIPPED,
                                          .exit_status = -1000};
    r->ok = false;
}

static void test_json_fields_and_table3(void **unused)
{
    ms_run_report r;
    ms_workload *w = ms_workload_new();
    build(&r, w);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ms_error err;
    assert_int_equal(ms_run_report_write_json(&r, w, f, &err), MS_OK);
    fclose(f);
    json_error_t jerr;
    json_t *root = json_loads(buf, 0, &jerr);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "migsched-run/1");
    assert_true(json_is_false(json_object_get(root, "ok")));
    json_t *tasks = json_object_get(root, "tasks");
    assert_int_equal(json_array_size(tasks), N + 1);
    static const char *const fields[] = {"name",  "index", "planned_start", "planned_end",
                                         "start", "end",   "exit_status"};
    for (int i = 0; i < N; i++) {
        json_t *t = json_array_get(tasks, (size_t)i);
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            assert_non_null(json_object_get(t, fields[k]));
        assert_string_equal(json_string_value(json_object_get(t, "name")), table3[i].name);
        double d = json_real_value(json_object_get(t, "deviation_percent"));
        /* The paper rounded from unrounded times: its HotSpot row is 0.01 off. */
        if (fabs(d - table3[i].deviation) > 0.011)
            fail_msg("%s: deviation %.4f, paper %.2f", table3[i].name, d, table3[i].deviation);
    }
    json_t *skipped = json_array_get(tasks, N);
    assert_true(json_is_null(json_object_get(skipped, "start")));
    assert_true(json_is_null(json_object_get(skipped, "exit_status")));
    assert_string_equal(json_string_value(json_object_get(skipped, "state")), "skipped");
    json_decref(root);
    free(buf);

    /* The table: sorted by planned end, the paper's extreme row, the skipped task. */
    f = open_memstream(&buf, &len);
    ms_run_report_print(&r, w, f);
    fclose(f);
    assert_true(strstr(buf, "PathFinder") < strstr(buf, "LavaMD"));
    assert_non_null(strstr(buf, "28.86        28.24      -2.20  ok"));
    assert_non_null(strstr(buf, "skipped"));
    assert_non_null(strstr(buf, "largest deviation 2.25 %"));
    free(buf);
    free(r.tasks);
    free(r.ops);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_json_fields_and_table3)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
