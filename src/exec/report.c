/* report.c: the run report: JSON (tasks with planned and real times and exit status,
 * reconfigurations, outcome) and the deviation table of paper 000 Table 3. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "migsched/exec.h"
#include "migsched/io.h"

static const char *state_name(ms_run_state s)
{
    static const char *const names[] = {"not-run", "running", "ok", "failed", "skipped"};
    return names[s];
}

/* Times: NAN (never happened) -> null; +-INFINITY (before/after the plan) -> null too. */
static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Paper 000 Table 3: deviation of the real end from the planned one, % of the real. */
static double deviation(const ms_run_task *t)
{
    return t->state == MS_RUN_OK && t->end > 0 ? (t->end - t->planned_end) / t->end * 100.0 : NAN;
}

static json_t *tasks_json(const ms_run_report *r, const ms_workload *w)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->ntasks; i++) {
        const ms_run_task *t = &r->tasks[i];
        json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:s, s:o, s:o}", "name",
                              w->tasks[t->index].name, "index", t->index, "instance", t->instance,
                              "gpu", t->gpu, "planned_start", num(t->planned_start), "planned_end",
                              num(t->planned_end), "start", num(t->start), "end", num(t->end),
                              "state", state_name(t->state), "exit_status",
                              t->exit_status == -1000 ? json_null() : json_integer(t->exit_status),
                              "deviation_percent", num(deviation(t)));
        if (t->log[0])
            json_object_set_new(o, "log", json_string(t->log));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *ops_json(const ms_run_report *r)
{
    json_t *arr = json_array();
    for (int i = 0; i < r->nops; i++) {
        const ms_run_op *o = &r->ops[i];
        json_t *j = json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:s}", "op",
                              o->kind == MS_OP_CREATE ? "create" : "destroy", "instance",
                              o->instance, "gpu", o->gpu, "device", r->devices[o->gpu],
                              "planned_start", num(o->planned_start), "planned_end",
                              num(o->planned_end), "start", num(o->start), "end", num(o->end),
                              "state", state_name(o->state));
        if (o->state == MS_RUN_OK || o->state == MS_RUN_FAILED)
            json_object_set_new(j, "gpu_instance", json_integer(o->gi_id));
        if (o->uuid[0])
            json_object_set_new(j, "uuid", json_string(o->uuid));
        if (o->error[0])
            json_object_set_new(j, "error", json_string(o->error));
        json_array_append_new(arr, j);
    }
    return arr;
}

int ms_run_report_write_json(const ms_run_report *r, const ms_workload *w, FILE *f, ms_error *err)
{
    json_t *left = json_array();
    for (int i = 0; i < r->nleft; i++)
        json_array_append_new(left, json_string(r->left[i]));
    json_t *devices = json_array();
    for (int g = 0; g < r->ndevices; g++)
        json_array_append_new(devices, json_integer(r->devices[g]));
    json_t *root = json_pack(
        "{s:s, s:s, s:s, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "format", "migsched-run/1",
        "backend", r->backend, "gpu_model", r->gpu_model, "devices", devices, "ok", r->ok,
        "stopped", r->stopped[0] ? json_string(r->stopped) : json_null(), "makespan_planned",
        num(r->makespan_planned), "makespan", num(r->makespan), "tasks", tasks_json(r, w),
        "reconfigurations", ops_json(r), "left_behind", left);
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0 &&
                     fputc('\n', f) != EOF
                 ? MS_OK
                 : ms_error_set(err, MS_EIO, "cannot write the run report");
    json_decref(root);
    return rc;
}

static int cmp_planned_end(const void *a, const void *b)
{
    const ms_run_task *x = *(const ms_run_task *const *)a, *y = *(const ms_run_task *const *)b;
    if (x->planned_end != y->planned_end)
        return x->planned_end < y->planned_end ? -1 : 1;
    return x->index - y->index;
}

void ms_run_report_print(const ms_run_report *r, const ms_workload *w, FILE *f)
{
    const ms_run_task **order = malloc(((size_t)r->ntasks + 1) * sizeof *order);
    if (!order)
        return;
    for (int i = 0; i < r->ntasks; i++)
        order[i] = &r->tasks[i];
    qsort(order, (size_t)r->ntasks, sizeof *order, cmp_planned_end);
    fprintf(f, "%-20s %6s %12s %12s %10s  %s\n", "task", "index", "planned end", "real end",
            "dev. (%)", "outcome");
    double worst = 0;
    for (int i = 0; i < r->ntasks; i++) {
        const ms_run_task *t = order[i];
        double d = deviation(t);
        if (isfinite(d) && fabs(d) > fabs(worst))
            worst = d;
        char outcome[32];
        if (t->state == MS_RUN_FAILED && t->exit_status < 0)
            snprintf(outcome, sizeof outcome, "killed (signal %d)", -t->exit_status);
        else if (t->state == MS_RUN_FAILED)
            snprintf(outcome, sizeof outcome, "exit %d", t->exit_status);
        else
            snprintf(outcome, sizeof outcome, "%s",
                     t->state == MS_RUN_OK ? "ok"
                                           : (t->state == MS_RUN_SKIPPED ? "skipped" : "not run"));
        fprintf(f, "%-20.20s %6d %12.2f ", w->tasks[t->index].name, t->index, t->planned_end);
        if (isfinite(t->end))
            fprintf(f, "%12.2f ", t->end);
        else
            fprintf(f, "%12s ", "-");
        if (isfinite(d))
            fprintf(f, "%10s  %s\n", ms_fixed(d, 2).s, outcome);
        else
            fprintf(f, "%10s  %s\n", "-", outcome);
    }
    fprintf(f, "makespan: planned %.2f s, real %.2f s; largest deviation %s %%\n",
            r->makespan_planned, r->makespan, ms_fixed(worst, 2).s);
    if (r->stopped[0])
        fprintf(f, "stopped early: %s\n", r->stopped);
    for (int i = 0; i < r->nleft; i++)
        fprintf(f, "LEFT BEHIND: %s (run migsched run --cleanup)\n", r->left[i]);
    free(order);
}
