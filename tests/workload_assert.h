/* workload_assert.h: workload fixtures and comparisons shared by the workload tests. */
#ifndef MIGSCHED_TEST_WORKLOAD_ASSERT_H
#define MIGSCHED_TEST_WORKLOAD_ASSERT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/workload.h"
#include "support.h"

static inline void assert_same_string(const char *a, const char *b)
{
    if (a)
        assert_string_equal(a, b);
    else
        assert_null(b);
}

/* Same tasks, names, commands, cwds and bit-identical times on the GPU's sizes. */
static inline void assert_same_workload(const ms_workload *a, const ms_workload *b,
                                        const ms_gpu_model *gpu)
{
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        assert_string_equal(a->tasks[i].name, b->tasks[i].name);
        for (int k = 0; k < gpu->nsizes; k++) {
            int s = gpu->sizes[k];
            double x = a->tasks[i].time[s], y = b->tasks[i].time[s];
            if (!(x == y))
                fail_msg("task %d size %d: %.17g != %.17g", i, s, x, y);
        }
        assert_same_string(a->tasks[i].command, b->tasks[i].command);
        assert_same_string(a->tasks[i].cwd, b->tasks[i].cwd);
    }
}

/* Awkward names and commands, and times that need 17 digits or are infinite. */
static inline ms_workload *awkward_workload(void)
{
    ms_workload *w = ms_workload_new();
    const char *names[] = {"plain",   "with,comma",  "with \"quotes\"", " lead",
                           "trail\t", "multi\nline", "crlf\r\nx",       "name"};
    for (int i = 0; i < 8; i++) {
        double t[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            t[s] = INFINITY;
        t[1] = 0.1 + 0.2 + i;
        t[2] = i % 2 ? INFINITY : 1e-7 * (i + 1);
        t[4] = 12345.678 / (i + 1);
        t[7] = i == 3 ? INFINITY : 1.0 / 3.0;
        assert_int_equal(ms_workload_add(w, names[i], t, i % 3 ? "run \"$X\", now" : NULL,
                                         i % 2 ? "dir,x" : NULL, NULL),
                         MS_OK);
    }
    return w;
}

/* The writer's output in a malloc'd buffer. */
static inline char *write_to_string(const ms_workload *w, const ms_gpu_model *gpu, int json,
                                    size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ms_error err = {0};
    int rc = json ? ms_workload_write_json(w, gpu, f, &err)
                  : ms_workload_write_csv(w, gpu, f, &err);
    if (rc)
        fail_msg("writing the workload: %s", err.msg);
    fclose(f);
    return buf;
}

/* Writes w as CSV or JSON, reads it back (it must be the same workload) and writes the copy
 * again (it must give the same bytes). Returns the copy; *text gets the first writing. */
static inline ms_workload *round_trip(const ms_workload *w, const ms_gpu_model *gpu, int json,
                                      char **text)
{
    size_t len, len2;
    *text = write_to_string(w, gpu, json, &len);
    ms_workload *back = NULL;
    ms_error err = {0};
    int rc = json ? ms_workload_parse_json(*text, len, "rt.json", gpu, &back, &err)
                  : ms_workload_parse_csv(*text, len, "rt.csv", gpu, &back, &err);
    if (rc)
        fail_msg("%s\n%s", err.msg, *text);
    assert_same_workload(w, back, gpu);
    char *text2 = write_to_string(back, gpu, json, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(*text, text2, len);
    free(text2);
    return back;
}

#endif
