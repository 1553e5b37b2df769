/* workload.c: the task list type and per-task helpers, which the readers build on. */
#include "migsched/workload.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "workload_internal.h"

ms_workload *ms_workload_new(void) { return calloc(1, sizeof(ms_workload)); }

void wl_tasks_free(ms_task *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].name);
        free(t[i].command);
        free(t[i].cwd);
    }
}

void ms_workload_free(ms_workload *w)
{
    if (!w)
        return;
    wl_tasks_free(w->tasks, (size_t)w->n);
    free(w->tasks);
    free(w);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

int wl_task_init(ms_task *t, const char *name, const double *time, const char *command,
                 const char *cwd)
{
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->command = dup_or_null(command);
    t->cwd = dup_or_null(cwd);
    if (!t->name || (command && !t->command) || (cwd && !t->cwd)) {
        wl_tasks_free(t, 1);
        return -1;
    }
    t->time[0] = INFINITY;
    for (int s = 1; s <= MS_MAX_SLICES; s++)
        t->time[s] = time[s];
    return 0;
}

int wl_reserve(ms_workload *w, size_t n)
{
    if (n <= (size_t)w->cap)
        return 0;
    if (n > INT_MAX)
        return -1;
    ms_task *t = realloc(w->tasks, n * sizeof *t);
    if (!t)
        return -1;
    w->tasks = t;
    w->cap = (int)n;
    return 0;
}

int ms_workload_add(ms_workload *w, const char *name, const double *time, const char *command,
                    const char *cwd, ms_error *err)
{
    if (w->n == w->cap && wl_reserve(w, w->cap ? (size_t)w->cap * 2 : 16))
        return ms_error_set(err, MS_ENOMEM, "out of memory adding task %d", w->n);
    if (wl_task_init(&w->tasks[w->n], name, time, command, cwd))
        return ms_error_set(err, MS_ENOMEM, "out of memory adding task %d", w->n);
    w->n++;
    return MS_OK;
}

ms_workload *ms_workload_slice(const ms_workload *w, int from, int count)
{
    ms_workload *out = ms_workload_new();
    if (!out)
        return NULL;
    memcpy(out->gpu, w->gpu, sizeof out->gpu);
    for (int i = from; i < from + count && i < w->n; i++) {
        const ms_task *t = &w->tasks[i];
        if (ms_workload_add(out, t->name, t->time, t->command, t->cwd, NULL)) {
            ms_workload_free(out);
            return NULL;
        }
    }
    return out;
}

double ms_task_min_area(const ms_task *t, const ms_gpu_model *gpu, int *best_size)
{
    double best = INFINITY;
    int arg = 0;
    for (int k = 0; k < gpu->nsizes; k++) {
        int s = gpu->sizes[k];
        double a = s * t->time[s];
        if (a < best) { /* strict: ties keep the smaller size */
            best = a;
            arg = s;
        }
    }
    if (best_size)
        *best_size = arg;
    return best;
}

int ms_workload_check_gpu(const ms_workload *w, const ms_gpu_model *gpu, ms_error *err)
{
    for (int i = 0; i < w->n; i++)
        if (!wl_task_fits(w->tasks[i].time, gpu)) {
            char sizes[64], shown[48];
            return ms_error_set(err, MS_EINVAL,
                                "task %d ('%s') has no finite time on any compute size of %s (%s)",
                                i, wl_quote(w->tasks[i].name, shown, sizeof shown), gpu->name,
                                wl_sizes_text(gpu, sizes, sizeof sizes));
        }
    return MS_OK;
}
