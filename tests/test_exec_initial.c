/* test_exec_initial.c: `migsched run` on a plan that starts from what the GPUs hold
 * (--initial): the initial instances are never created, the plan's time 0 is the run's
 * start, a layout the device does not hold is refused before anything changes, a busy
 * initial instance is not destroyed, and initial instances alive at the end (or at a crash)
 * are left as they were. Against the fake NVML (A30) and the sim backend. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_plans.h"
#include "support.h"

#define FAKE_LIB MIGSCHED_BINARY_DIR "/tests/fake_nvml/libnvidia-ml.so.1"
#define TASK_S   0.05

static char dir[64];
static char state[128], journal[128], logs[128];

static int setup(void **unused)
{
    test_temp_dir("exec-initial", dir, sizeof dir);
    snprintf(state, sizeof state, "%s/state", dir);
    snprintf(journal, sizeof journal, "%s/journal", dir);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    setenv("FAKE_NVML_STATE", state, 1);
    setenv("FAKE_NVML_DELAY_SCALE", "0.02", 1);
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    setenv("FAKE_NVML_GPUS", "1", 1);
    setenv("MIGSCHED_RUNTIME_DIR", dir, 1);
    unsetenv("FAKE_NVML_FAIL");
    return 0;
}

static int teardown(void **unused)
{
    test_remove_dir(dir);
    return 0;
}

static const ms_gpu_model *a30(void) { return ms_gpu_builtin("A30-24GB"); }
static int profile(const char *name) { return ms_gpu_profile_by_name(a30(), name); }

/* The A30 plan from layout 2-2: instance 0 (2g at slot 0) runs t0, t1 and is destroyed;
 * instance 1 (2g at slot 2) runs t2 and is kept to the end; instance 2 (1g at slot 0) is
 * created where instance 0 was and runs t3. Every task echoes its MIG device; t3 sleeps
 * `t3_sleep` seconds first. */
static ms_schedule *initial_plan(ms_workload **w_out, const char *t3_sleep)
{
    const ms_gpu_model *m = a30();
    ms_schedule *s = ms_schedule_new(m, 1, "test");
    ms_workload *w = ms_workload_new();
    double d2 = ms_gpu_destroy_time(m, 2), c1 = ms_gpu_create_time(m, 1);
    int i0 = ms_schedule_add_instance(s, 0, profile("2g.12gb"), 0, NAN, NAN, 2 * TASK_S,
                                      2 * TASK_S + d2);
    int i1 = ms_schedule_add_instance(s, 0, profile("2g.12gb"), 2, NAN, NAN, NAN, NAN);
    double made = 2 * TASK_S + d2 + c1;
    int i2 = ms_schedule_add_instance(s, 0, profile("1g.6gb"), 0, 2 * TASK_S + d2, made, NAN, NAN);
    const struct {
        int inst;
        double start;
    } tasks[] = {{i0, 0}, {i0, TASK_S}, {i1, 0}, {i2, made}};
    for (int i = 0; i < 4; i++) {
        double time[MS_MAX_SLICES + 1];
        for (int k = 0; k <= MS_MAX_SLICES; k++)
            time[k] = TASK_S;
        char name[8], cmd[96];
        snprintf(name, sizeof name, "t%d", i);
        snprintf(cmd, sizeof cmd, "sleep %s; echo $CUDA_VISIBLE_DEVICES",
                 i == 3 ? t3_sleep : "0.01");
        assert_int_equal(ms_workload_add(w, name, time, cmd, NULL, NULL), MS_OK);
        assert_int_equal(
            ms_schedule_add_task(s, i, tasks[i].inst, tasks[i].start, tasks[i].start + TASK_S),
            MS_OK);
    }
    ms_initial l;
    ms_error err;
    assert_int_equal(ms_initial_parse("2-2", m, 1, &l, &err), MS_OK);
    assert_int_equal(ms_schedule_validate_initial(s, w, &l, NULL), 0);
    ms_initial_fini(&l);
    *w_out = w;
    return s;
}

static ms_run_options options(const char *backend, const char *initial)
{
    ms_run_options o = {.backend = backend,
                        .ndevices = 1,
                        .logs_dir = logs,
                        .journal = journal,
                        .initial = initial};
    o.backend_opt.nvml_library = FAKE_LIB;
    return o;
}

/* What the emulated device 0 holds (a fresh process view). */
static int device_holds(ms_mig_instance list[MS_MAX_MIG])
{
    ms_backend_options bo = {.nvml_library = FAKE_LIB};
    ms_backend *b;
    ms_error err;
    if (ms_backend_open("nvml", 0, NULL, &bo, &b, &err))
        fail_msg("%s", err.msg);
    int n = -1;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    ms_backend_close(b);
    return n;
}

/* Makes the device hold these instances (as someone before the run did); returns them. */
static void hold(const char *const *profiles, const int *starts, int n, ms_mig_instance *out)
{
    ms_backend_options bo = {.nvml_library = FAKE_LIB};
    ms_backend *b;
    ms_error err;
    if (ms_backend_open("nvml", 0, NULL, &bo, &b, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < n; i++)
        if (ms_backend_create(b, (ms_placement){profile(profiles[i]), starts[i]}, &out[i], &err))
            fail_msg("%s", err.msg);
    ms_backend_close(b);
}

static void hold_2_2(ms_mig_instance out[2])
{
    hold((const char *[]){"2g.12gb", "2g.12gb"}, (const int[]){0, 2}, 2, out);
}

static bool holds_instance(const ms_mig_instance *was)
{
    ms_mig_instance list[MS_MAX_MIG];
    int n = device_holds(list);
    for (int i = 0; i < n; i++)
        if (ms_mig_same_instance(was, &list[i]))
            return true;
    return false;
}

static const ms_run_op *op_of(const ms_run_report *r, int inst, ms_op_kind kind)
{
    for (int i = 0; i < r->nops; i++)
        if (r->ops[i].instance == inst && r->ops[i].kind == kind)
            return &r->ops[i];
    return NULL;
}

static const ms_run_task *task_of(const ms_run_report *r, int index)
{
    for (int i = 0; i < r->ntasks; i++)
        if (r->tasks[i].index == index)
            return &r->tasks[i];
    return NULL;
}

/* The task's log starts with this MIG device UUID. */
static void saw_device(const ms_run_task *t, const char *uuid)
{
    char *out = test_read_small_file(t->log);
    assert_non_null(out);
    if (strncmp(out, uuid, strlen(uuid)))
        fail_msg("task %d saw '%s', expected %s", t->index, out, uuid);
    free(out);
}

/* The device holds 2-2: nothing of it is created, instance 0 is destroyed at its point,
 * tasks run on the instances as they were (their MIG devices), and instance 1 is still the
 * very instance it was after the run, with or without --keep-final. */
static void run_from_held(bool keep_final, const char *initial)
{
    ms_mig_instance held[2];
    hold_2_2(held);
    ms_workload *w;
    ms_schedule *s = initial_plan(&w, "0.01");
    ms_run_options o = options("nvml", initial);
    o.keep_final = keep_final;
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    assert_true(r->ok);
    assert_int_equal(r->nleft, 0);
    assert_null(op_of(r, 0, MS_OP_CREATE));
    assert_null(op_of(r, 1, MS_OP_CREATE));
    assert_null(op_of(r, 1, MS_OP_DESTROY));
    assert_int_equal(op_of(r, 0, MS_OP_DESTROY)->state, MS_RUN_OK);
    assert_int_equal(op_of(r, 0, MS_OP_DESTROY)->gi_id, held[0].gi_id);
    assert_int_equal(op_of(r, 2, MS_OP_CREATE)->state, MS_RUN_OK);
    assert_true(isfinite(op_of(r, 2, MS_OP_CREATE)->planned_start));
    saw_device(task_of(r, 0), held[0].uuid);
    saw_device(task_of(r, 1), held[0].uuid);
    saw_device(task_of(r, 2), held[1].uuid);
    saw_device(task_of(r, 3), op_of(r, 2, MS_OP_CREATE)->uuid);
    check_run_order(s, r);
    assert_false(holds_instance(&held[0]));
    assert_true(holds_instance(&held[1]));
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_holds(list), keep_final ? 2 : 1);
    ms_run_report_free(r);
    ms_workload_free(w);
    ms_schedule_free(s);
}

static void test_layout_held(void **unused) { run_from_held(false, "2-2"); }
static void test_layout_held_keep_final(void **unused) { run_from_held(true, "2-2"); }
static void test_device_layout(void **unused) { run_from_held(false, "device"); }

/* A refusal names `want` and leaves the device exactly as it was. */
static void refused(const char *initial, const char *want)
{
    ms_mig_instance before[MS_MAX_MIG], after[MS_MAX_MIG];
    int n = device_holds(before);
    ms_workload *w;
    ms_schedule *s = initial_plan(&w, "0.01");
    ms_run_options o = options("nvml", initial);
    ms_run_report *r = NULL;
    ms_error err = {0};
    assert_int_equal(ms_run(s, w, &o, &r, &err), MS_EINVAL);
    assert_null(r);
    if (!strstr(err.msg, want))
        fail_msg("--initial %s: '%s' does not say '%s'", initial ? initial : "(none)", err.msg,
                 want);
    assert_int_equal(device_holds(after), n);
    for (int i = 0; i < n; i++)
        assert_true(ms_mig_same_instance(&before[i], &after[i]));
    ms_workload_free(w);
    ms_schedule_free(s);
}

static void test_device_lacks_one(void **unused)
{
    ms_mig_instance held;
    hold((const char *[]){"2g.12gb"}, (const int[]){0}, 1, &held);
    refused("2-2", "GPU 0: 2g.12gb at slot 2 is in the plan's layout, not on the device");
    refused("device", "GPU 0: 2g.12gb at slot 2 is in the plan's layout, not on the device");
}

static void test_wrong_profile(void **unused)
{
    ms_mig_instance held[3];
    hold((const char *[]){"2g.12gb", "1g.6gb", "1g.6gb"}, (const int[]){0, 2, 3}, 3, held);
    refused("2-2", "GPU 0: 2g.12gb at slot 2 is in the plan's layout, not on the device");
    refused("2-2", "GPU 0: 1g.6gb at slot 3 is on the device, not in the plan's layout");
    refused("device", "GPU 0: 1g.6gb at slot 2 is on the device, not in the plan's layout");
}

/* The plan's layout and --initial disagree, or the device holds more than the plan lists. */
static void test_layout_not_the_plans(void **unused)
{
    ms_mig_instance held[2];
    hold_2_2(held);
    refused("2-1-1", "--initial 2-1-1: the plan does not start from that layout: instance 1 "
                     "(gpu 0, 2g.12gb@2) has no creation");
    refused("empty", "has no creation");
    refused(NULL, "has no creation");
}

static void test_extra_on_device(void **unused)
{
    /* A plan starting from 2g at slot 0 alone, on a device that also holds 2g at slot 2. */
    ms_mig_instance held[2];
    hold_2_2(held);
    ms_workload *w;
    ms_schedule *s = initial_plan(&w, "0.01");
    s->inst[1].create_start = 0;
    s->inst[1].create_end = ms_gpu_create_time(a30(), 2);
    s->task[2].start = s->inst[1].create_end;
    s->task[2].end = s->task[2].start + TASK_S;
    ms_run_options o = options("nvml", "device");
    ms_run_report *r = NULL;
    ms_error err = {0};
    assert_int_equal(ms_run(s, w, &o, &r, &err), MS_EINVAL);
    assert_non_null(
        strstr(err.msg, "GPU 0: 2g.12gb at slot 2 is on the device, not in the plan's layout"));
    assert_true(holds_instance(&held[0]) && holds_instance(&held[1]));
    ms_workload_free(w);
    ms_schedule_free(s);
}

/* Someone's process runs on instance 0: its destroy is refused and nothing of it is
 * touched; what needed its slots (instance 2, task t3) does not run; instance 1 stays. */
static void test_busy_initial_not_destroyed(void **unused)
{
    ms_mig_instance held[2];
    hold_2_2(held);
    FILE *f = fopen(state, "a");
    assert_non_null(f);
    fprintf(f, "proc 0 %u 4242\n", held[0].gi_id);
    fclose(f);
    ms_workload *w;
    ms_schedule *s = initial_plan(&w, "0.01");
    ms_run_options o = options("nvml", "2-2");
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    assert_false(r->ok);
    const ms_run_op *d = op_of(r, 0, MS_OP_DESTROY);
    assert_int_equal(d->state, MS_RUN_FAILED);
    assert_non_null(strstr(d->error, "4242"));
    assert_true(task_of(r, 3)->state == MS_RUN_SKIPPED || task_of(r, 3)->state == MS_RUN_FAILED);
    assert_int_equal(task_of(r, 2)->state, MS_RUN_OK);
    assert_true(holds_instance(&held[0]));
    assert_true(holds_instance(&held[1]));
    assert_int_equal(r->nleft, 0);
    ms_run_report_free(r);
    ms_workload_free(w);
    ms_schedule_free(s);
}

/* A crash while t3 runs on instance 2: --cleanup stops t3 and destroys instance 2, and
 * leaves instance 1, which the plan kept and migsched did not create. */
static void test_crash_keeps_initial(void **unused)
{
    ms_mig_instance held[2];
    hold_2_2(held);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        ms_workload *w;
        ms_schedule *s = initial_plan(&w, "30");
        ms_run_options o = options("nvml", "2-2");
        ms_run_report *r;
        ms_error err;
        _exit(ms_run(s, w, &o, &r, &err) ? 2 : 0);
    }
    char t3_log[192];
    snprintf(t3_log, sizeof t3_log, "%s/3-t3.out", logs);
    for (int waited = 0; access(t3_log, F_OK) != 0 && waited < 30000; waited += 10)
        usleep(10 * 1000);
    usleep(100 * 1000); /* its journal record is written before the command runs */
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_holds(list), 2); /* instance 1 and instance 2 */
    /* The journal claims neither initial instance; the destroy of instance 0 is in it. */
    char *text = test_read_small_file(journal), rec[160];
    assert_non_null(text);
    snprintf(rec, sizeof rec, "foreign 0 %u 2 2 %s\n", held[1].gi_id, held[1].uuid);
    assert_non_null(strstr(text, rec));
    snprintf(rec, sizeof rec, "destroying 0 %u 0 2 2g.12gb", held[0].gi_id);
    assert_non_null(strstr(text, rec));
    snprintf(rec, sizeof rec, "destroyed 0 %u\n", held[0].gi_id);
    assert_non_null(strstr(text, rec));
    snprintf(rec, sizeof rec, "created 0 %u ", held[1].gi_id);
    assert_null(strstr(text, rec));
    free(text);
    ms_cleanup_options co = {.journal = journal, .backend_opt = {.nvml_library = FAKE_LIB}};
    ms_cleanup_report rep;
    ms_error err;
    if (ms_run_cleanup(&co, &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.nleft, 0);
    assert_int_equal(rep.destroyed, 1);
    assert_int_equal(rep.killed, 1);
    assert_int_equal(device_holds(list), 1);
    assert_true(holds_instance(&held[1]));
}

/* The sim backend's GPUs hold the --initial layout: nothing of it is created and the run
 * reproduces the plan from time 0, the report's makespan being the plan's. */
static void test_sim_from_time_zero(void **unused)
{
    ms_workload *w;
    ms_schedule *s = initial_plan(&w, "0.01");
    ms_run_options o = options("sim", "2-2");
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    assert_true(r->ok);
    assert_null(op_of(r, 0, MS_OP_CREATE));
    assert_null(op_of(r, 1, MS_OP_CREATE));
    for (int i = 0; i < r->nops; i++)
        assert_true(r->ops[i].start >= 0);
    assert_true(task_of(r, 0)->start == 0);
    for (int i = 0; i < r->ntasks; i++) {
        assert_near(r->tasks[i].start, r->tasks[i].planned_start, 1e-9);
        assert_near(r->tasks[i].end, r->tasks[i].planned_end, 1e-9);
    }
    assert_near(r->makespan, ms_schedule_makespan(s), 1e-9);
    assert_near(r->makespan, r->makespan_planned, 1e-9);
    ms_run_report_free(r);
    /* Empty: the plan's initial instances are not there. */
    o.initial = "empty";
    assert_int_equal(ms_run(s, w, &o, &r, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "has no creation"));
    ms_workload_free(w);
    ms_schedule_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layout_held, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layout_held_keep_final, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_lacks_one, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layout_not_the_plans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extra_on_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_initial_not_destroyed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_keeps_initial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_from_time_zero, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
