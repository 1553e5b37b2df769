/* exec_plans.c: hand-built plans and dependency checks for the executor tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_plans.h"
#include "support.h"

static int add_inst(ms_schedule *s, int gpu, int profile, int start)
{
    ms_sched_instance *in = &s->inst[s->ninst];
    *in = (ms_sched_instance){.id = s->ninst, .gpu = gpu, .profile = profile, .start_slot = start};
    return s->ninst++;
}

static void add_task(ms_schedule *s, ms_workload *w, int inst, double start, double len,
                     const char *command)
{
    char name[32], cmd[256];
    snprintf(name, sizeof name, "t%d", w->n);
    snprintf(cmd, sizeof cmd, command, w->n);
    double time[MS_MAX_SLICES + 1];
    for (int k = 0; k <= MS_MAX_SLICES; k++)
        time[k] = len;
    assert_int_equal(ms_workload_add(w, name, time, cmd, NULL, NULL), MS_OK);
    s->task[s->ntasks++] = (ms_sched_task){
        .index = w->n - 1, .instance = inst, .start = start, .end = start + len};
}

ms_schedule *plan_phases(const ms_gpu_model *m, int gpus, const plan_inst *phases, double task_time,
                         const char *command, ms_workload **w_out)
{
    ms_schedule *s = calloc(1, sizeof *s);
    s->gpu = *m;
    s->gpus = gpus;
    snprintf(s->algorithm, sizeof s->algorithm, "test");
    s->inst = calloc(256, sizeof *s->inst);
    s->task = calloc(1024, sizeof *s->task);
    ms_workload *w = ms_workload_new();
    for (int g = 0; g < gpus; g++) {
        double t = 0;
        for (const plan_inst *p = phases; p->profile; p++) {
            int first = s->ninst;
            for (; p->profile; p++) {
                int k = add_inst(s, g, ms_gpu_profile_by_name(m, p->profile), p->start);
                assert_true(s->inst[k].profile >= 0);
                s->inst[k].create_start = t;
                t += ms_gpu_create_time(m, m->profiles[s->inst[k].profile].slices);
                s->inst[k].create_end = t;
            }
            /* Tasks back to back; destroy in order of last task end, one at a time. */
            double *last = calloc((size_t)(s->ninst - first), sizeof *last);
            int n = 0;
            for (const plan_inst *q = p - (s->ninst - first); q < p; q++, n++) {
                double at = s->inst[first + n].create_end;
                for (int i = 0; i < q->ntasks; i++, at += task_time)
                    add_task(s, w, first + n, at, task_time, command);
                last[n] = at;
            }
            for (int done = 0; done < n; done++) {
                int best = -1;
                for (int i = 0; i < n; i++)
                    if (last[i] >= 0 && (best < 0 || last[i] < last[best]))
                        best = i;
                ms_sched_instance *in = &s->inst[first + best];
                in->destroy_start = fmax(t, last[best]);
                t = in->destroy_end = in->destroy_start +
                                      ms_gpu_destroy_time(m, m->profiles[in->profile].slices);
                last[best] = -1;
            }
            free(last);
        }
    }
    *w_out = w;
    return s;
}

void plan_free(ms_schedule *s)
{
    free(s->inst);
    free(s->task);
    free(s);
}

static const ms_run_op *find_op(const ms_run_report *r, int inst, ms_op_kind kind)
{
    for (int i = 0; i < r->nops; i++)
        if (r->ops[i].instance == inst && r->ops[i].kind == kind)
            return &r->ops[i];
    return NULL;
}

void check_run_order(const ms_schedule *s, const ms_run_report *r)
{
    /* Ops per GPU: plan order (the report lists them so), never overlapping. */
    for (int i = 1; i < r->nops; i++) {
        const ms_run_op *a = &r->ops[i - 1], *b = &r->ops[i];
        if (a->gpu != b->gpu || b->state == MS_RUN_SKIPPED || a->state == MS_RUN_SKIPPED)
            continue;
        assert_true(a->planned_start <= b->planned_start);
        assert_true(a->end <= b->start);
    }
    for (int i = 0; i < r->ntasks; i++) {
        const ms_run_task *t = &r->tasks[i];
        if (t->state != MS_RUN_OK)
            continue;
        const ms_run_op *c = find_op(r, t->instance, MS_OP_CREATE);
        const ms_run_op *d = find_op(r, t->instance, MS_OP_DESTROY);
        assert_true(c ? c->end <= t->start : t->start >= 0); /* none: initial, there at 0 */
        if (d && d->state == MS_RUN_OK)
            assert_true(t->end <= d->start);
        for (int j = 0; j < i; j++) /* earlier in plan order on the same instance */
            if (r->tasks[j].instance == t->instance && r->tasks[j].state == MS_RUN_OK)
                assert_true(r->tasks[j].end <= t->start);
    }
    for (int a = 0; a < s->ninst; a++)
        for (int b = 0; b < s->ninst; b++) {
            const ms_sched_instance *x = &s->inst[a], *y = &s->inst[b];
            double made = isnan(x->create_start) ? -INFINITY : x->create_start; /* initial */
            if (a == b || x->gpu != y->gpu || !(made < y->create_start))
                continue;
            uint32_t mx = ms_gpu_slot_mask(&s->gpu, (ms_placement){x->profile, x->start_slot});
            uint32_t my = ms_gpu_slot_mask(&s->gpu, (ms_placement){y->profile, y->start_slot});
            const ms_run_op *dx = find_op(r, a, MS_OP_DESTROY), *cy = find_op(r, b, MS_OP_CREATE);
            if ((mx & my) && dx->state == MS_RUN_OK && cy->state == MS_RUN_OK)
                assert_true(dx->end <= cy->start);
        }
}

char *fake_nvml_begin(const char *gpu, int gpus)
{
    char n[16];
    snprintf(n, sizeof n, "%d", gpus);
    char *state_path = test_write_temp("");
    setenv("FAKE_NVML_STATE", state_path, 1);
    setenv("FAKE_NVML_DELAY_SCALE", "0", 1);
    setenv("FAKE_NVML_GPU", gpu, 1);
    setenv("FAKE_NVML_GPUS", n, 1);
    unsetenv("FAKE_NVML_FAIL");
    unsetenv("FAKE_NVML_MIG");
    unsetenv("FAKE_NVML_MINOR_BASE");
    return state_path;
}

void fake_nvml_end(char *state_path)
{
    char lock[600];
    snprintf(lock, sizeof lock, "%s.lock", state_path);
    unlink(lock);
    unlink(state_path);
    free(state_path);
}

ms_backend *fake_nvml_open(const char *lib, const ms_gpu_model *model)
{
    ms_backend_options opt = {.nvml_library = lib};
    ms_backend *b = NULL;
    ms_error err = {0};
    if (ms_backend_open("nvml", 0, model, &opt, &b, &err))
        fail_msg("open: %s", err.msg);
    return b;
}

char *test_read_small_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 4096);
    size_t n = buf ? fread(buf, 1, 4095, f) : 0;
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}
