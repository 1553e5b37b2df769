/* support.c: helpers shared by the tests. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/exec/proc.h"
#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

const char *test_source_path(const char *relative)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", MIGSCHED_SOURCE_DIR, relative);
    return buf;
}

char *test_write_temp(const char *text)
{
    char *path = strdup("/tmp/migsched-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    size_t len = strlen(text);
    if (write(fd, text, len) != (ssize_t)len) {
        close(fd);
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

void test_temp_dir(const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/migsched-%s-XXXXXX", what);
    if (!mkdtemp(buf))
        fail_msg("cannot create %s", buf);
}

void test_remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", dir);
}

void test_perturb_workload(ms_workload *w, const ms_gpu_model *gpu, ms_rng *rng)
{
    for (int i = 0; i < w->n; i++) {
        double *t = w->tasks[i].time;
        if (ms_rng_uniform(rng) < 0.3) {
            int keep = gpu->sizes[ms_rng_below(rng, (uint64_t)gpu->nsizes)];
            for (int k = 0; k < gpu->nsizes; k++)
                if (gpu->sizes[k] != keep && ms_rng_uniform(rng) < 0.4)
                    t[gpu->sizes[k]] = INFINITY;
        }
        if (ms_rng_uniform(rng) < 0.3)
            for (int k = 0; k < gpu->nsizes; k++)
                if (isfinite(t[gpu->sizes[k]]))
                    t[gpu->sizes[k]] = ceil(t[gpu->sizes[k]] / 5) * 5;
    }
}

void test_add_only_task(ms_workload *w, const char *name, int size, double t)
{
    double time[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = INFINITY;
    time[size] = t;
    assert_int_equal(ms_workload_add(w, name, time, NULL, NULL, NULL), MS_OK);
}

char *test_schedule_json_text(const ms_schedule *s, const ms_workload *w, size_t *len)
{
    char *buf = NULL;
    ms_error err;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    if (ms_schedule_write_json(s, w, f, &err))
        fail_msg("writing the schedule JSON: %s", err.msg);
    fclose(f);
    return buf;
}

ms_workload *test_random_preset_workload(const ms_gpu_model *gpu, int n, ms_rng *rng)
{
    static const char *const scalings[] = {"POORSCALING", "MIXEDSCALING", "MIXSCALINGUNIFORM",
                                           "GOODSCALING", "MIXSCALINGEXTREME"};
    static const char *const ranges[] = {"WIDETIMES", "NARROWTIMES"};
    char presets[64];
    snprintf(presets, sizeof presets, "%s,%s", scalings[ms_rng_below(rng, 5)],
             ranges[ms_rng_below(rng, 2)]);
    ms_gen_params params;
    ms_workload *w = NULL;
    ms_error err;
    if (ms_gen_preset(gpu, presets, &params, &err) || ms_generate(gpu, &params, n, rng, &w, &err))
        fail_msg("%s: %s", presets, err.msg);
    return w;
}

void test_check_gradient(float *params, const float *grad, size_t n, float h, double abs_tol,
                         double (*loss)(void *ctx), void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        float keep = params[i];
        params[i] = keep + h;
        double up = loss(ctx);
        params[i] = keep - h;
        double down = loss(ctx);
        params[i] = keep;
        double fd = (up - down) / (2 * h);
        if (fabs(fd - grad[i]) > abs_tol + 1e-2 * fabs(fd))
            fail_msg("parameter %zu: backprop %g, finite difference %g", i, grad[i], fd);
    }
}

/* prod_{k=a}^{b-1} (k + r) / (k + 1): t(b)/t(a) when every step in between uses r. */
double test_ratio_bound(int a, int b, double r)
{
    double x = 1;
    for (int k = a; k < b; k++)
        x *= (k + r) / (k + 1);
    return x;
}

int test_task_class(const ms_task *t, const ms_gpu_model *gpu)
{
    int good = gpu->sizes[0];
    for (int k = 1; k < gpu->nsizes; k++) {
        int a = gpu->sizes[k - 1], b = gpu->sizes[k];
        double ratio = t->time[b] / t->time[a];
        if (ratio <= test_ratio_bound(a, b, 0.2) * (1 + 1e-12)) {
            if (good != a)
                fail_msg("task %s scales well from %d to %d after a sub-linear step", t->name, a,
                         b);
            good = b;
        } else if (!(ratio >= test_ratio_bound(a, b, 0.5) * (1 - 1e-12))) {
            fail_msg("task %s: t(%d)/t(%d) = %g is neither near/super- nor sub-linear", t->name, b,
                     a, ratio);
        }
    }
    return good;
}

bool test_process_running(int pid)
{
    unsigned long long start;
    return ms_proc_start_time(pid, &start) && proc_alive(pid, start);
}
