/* test_exec_run.c: `migsched run`'s engine against the fake NVML: ~20 short sleep tasks on
 * A100 and A30 plans run in dependency order; failures injected at every NVML entry point,
 * a killed task, SIGINT in the middle and a crash each leave no instance behind; the sim
 * backend in virtual time reproduces the plan; --dry-run touches nothing. */
#include <dirent.h>
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

static char dir[64];
static char state[128], journal[128], logs[128];

static const plan_inst a100_phases[] = {{"7g.40gb", 0, 2},
                                        {NULL},
                                        {"4g.20gb", 0, 2},
                                        {"3g.20gb", 4, 2},
                                        {NULL},
                                        {"2g.10gb", 0, 1},
                                        {"2g.10gb", 2, 1},
                                        {"2g.10gb", 4, 1},
                                        {"1g.5gb", 6, 1},
                                        {NULL},
                                        {"1g.5gb", 0, 1},
                                        {"1g.5gb", 1, 1},
                                        {"1g.5gb", 2, 1},
                                        {"1g.5gb", 3, 1},
                                        {"1g.5gb", 4, 1},
                                        {"1g.5gb", 5, 1},
                                        {"1g.5gb", 6, 1},
                                        {NULL},
                                        {"3g.20gb", 0, 2},
                                        {"3g.20gb", 4, 2},
                                        {NULL},
                                        {NULL}};

static const plan_inst a30_phases[] = {{"4g.24gb", 0, 2},
                                       {NULL},
                                       {"2g.12gb", 0, 2},
                                       {"2g.12gb", 2, 2},
                                       {NULL},
                                       {"1g.6gb", 0, 2},
                                       {"1g.6gb", 1, 2},
                                       {"1g.6gb", 2, 2},
                                       {"1g.6gb", 3, 2},
                                       {NULL},
                                       {"2g.12gb", 0, 2},
                                       {"1g.6gb", 2, 2},
                                       {"1g.6gb", 3, 2},
                                       {NULL},
                                       {NULL}};

/* A short plan for the many fault-injection runs. */
static const plan_inst a30_small[] = {
    {"2g.12gb", 0, 1}, {"2g.12gb", 2, 1}, {NULL}, {"4g.24gb", 0, 1}, {NULL}, {NULL}};

static const plan_inst *child_plan = a30_phases;

static int setup(void **unused)
{
    test_temp_dir("exec", dir, sizeof dir);
    snprintf(state, sizeof state, "%s/state", dir);
    snprintf(journal, sizeof journal, "%s/journal", dir);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    setenv("FAKE_NVML_STATE", state, 1);
    setenv("FAKE_NVML_DELAY_SCALE", "0.02", 1);
    setenv("FAKE_NVML_GPU", "A100-40GB", 1);
    setenv("FAKE_NVML_GPUS", "2", 1);
    setenv("MIGSCHED_RUNTIME_DIR", dir, 1); /* device locks */
    unsetenv("FAKE_NVML_FAIL");
    return 0;
}

static int teardown(void **unused)
{
    test_remove_dir(dir);
    return 0;
}

static ms_run_options options(const char *backend, int ndevices)
{
    ms_run_options o = {.backend = backend,
                        .ndevices = ndevices,
                        .logs_dir = logs,
                        .journal = journal,
                        .on_failure = MS_ON_FAILURE_CONTINUE};
    o.backend_opt.nvml_library = FAKE_LIB;
    for (int g = 0; g < ndevices; g++)
        o.devices[g] = g;
    return o;
}

/* GPU instances on the emulated device (a fresh process view, no faults). */
static int instances_left(int device)
{
    char *fail = getenv("FAKE_NVML_FAIL") ? strdup(getenv("FAKE_NVML_FAIL")) : NULL;
    unsetenv("FAKE_NVML_FAIL");
    ms_backend_options bo = {.nvml_library = FAKE_LIB};
    ms_backend *b;
    ms_error err;
    if (ms_backend_open("nvml", device, NULL, &bo, &b, &err))
        fail_msg("%s", err.msg);
    ms_mig_instance list[MS_MAX_MIG];
    int n = -1;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    ms_backend_close(b);
    if (fail)
        setenv("FAKE_NVML_FAIL", fail, 1);
    free(fail);
    return n;
}

static void run_plan_to_completion(const char *model, const plan_inst *phases, int gpus)
{
    setenv("FAKE_NVML_GPU", model, 1);
    ms_workload *w;
    /* Real durations differ from the planned 0.03 s: the executor follows dependencies. */
    ms_schedule *s = plan_phases(ms_gpu_builtin(model), gpus, phases, 0.03,
                                 "sleep 0.0$((%d %% 4 + 1)); echo $CUDA_VISIBLE_DEVICES", &w);
    assert_true(s->ntasks >= 20);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0); /* the hand-built plan is valid */
    ms_run_options o = options("nvml", gpus);
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    assert_true(r->ok);
    assert_string_equal(r->stopped, "");
    assert_int_equal(r->nleft, 0);
    for (int i = 0; i < r->ntasks; i++) {
        assert_int_equal(r->tasks[i].state, MS_RUN_OK);
        assert_int_equal(r->tasks[i].exit_status, 0);
        /* The task saw its own instance's MIG device. */
        char *out = test_read_small_file(r->tasks[i].log);
        assert_non_null(out);
        const ms_run_op *create = NULL;
        for (int k = 0; k < r->nops; k++)
            if (r->ops[k].instance == r->tasks[i].instance && r->ops[k].kind == MS_OP_CREATE)
                create = &r->ops[k];
        assert_true(!strncmp(out, "MIG-", 4));
        assert_true(!strncmp(out, create->uuid, strlen(create->uuid)));
        free(out);
    }
    check_run_order(s, r);
    for (int g = 0; g < gpus; g++)
        assert_int_equal(instances_left(g), 0);
    /* The deviation table and the JSON report. */
    char table[128];
    snprintf(table, sizeof table, "%s/table", dir);
    FILE *f = fopen(table, "w");
    ms_run_report_print(r, w, f);
    assert_int_equal(ms_run_report_write_json(r, w, f, &err), MS_OK);
    fclose(f);
    char *text = test_read_small_file(table);
    assert_non_null(strstr(text, "planned end"));
    assert_non_null(strstr(text, "\"planned_start\""));
    assert_non_null(strstr(text, "\"exit_status\": 0"));
    free(text);
    ms_run_report_free(r);
    ms_workload_free(w);
    plan_free(s);
}

static void test_a100_two_gpus(void **unused)
{
    run_plan_to_completion("A100-40GB", a100_phases, 2);
}
static void test_a30(void **unused) { run_plan_to_completion("A30-24GB", a30_phases, 1); }

/* The sim backend in virtual time carries the plan out exactly as planned. */
static void test_sim_virtual_matches_plan(void **unused)
{
    ms_workload *w;
    ms_schedule *s = plan_phases(ms_gpu_builtin("A100-40GB"), 1, a100_phases, 2.5, "true", &w);
    ms_run_options o = options("sim", 1);
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    assert_true(r->ok);
    for (int i = 0; i < r->ntasks; i++) {
        assert_true(fabs(r->tasks[i].start - r->tasks[i].planned_start) < 1e-9);
        assert_true(fabs(r->tasks[i].end - r->tasks[i].planned_end) < 1e-9);
    }
    assert_true(fabs(r->makespan - r->makespan_planned) < 1e-9);
    ms_run_report_free(r);
    ms_workload_free(w);
    plan_free(s);
}

/* Scaled time: reconfigurations and tasks really sleep their scaled times, so nothing can
 * end before its planned time (a lower bound, not a speed check). */
static void test_sim_scaled_never_early(void **unused)
{
    ms_workload *w;
    ms_schedule *s = plan_phases(ms_gpu_builtin("A30-24GB"), 1, a30_phases, 0.5, "true", &w);
    ms_run_options o = options("sim", 1);
    o.time_scale = 0.01;
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    assert_true(r->ok);
    for (int i = 0; i < r->ntasks; i++)
        assert_true(r->tasks[i].end >= r->tasks[i].planned_end - 1e-9);
    for (int i = 0; i < r->nops; i++)
        assert_true(r->ops[i].end - r->ops[i].start >=
                    r->ops[i].planned_end - r->ops[i].planned_start - 1e-9);
    check_run_order(s, r);
    ms_run_report_free(r);
    ms_workload_free(w);
    plan_free(s);
}

static void test_dry_run_touches_nothing(void **unused)
{
    ms_workload *w;
    ms_schedule *s = plan_phases(ms_gpu_builtin("A100-40GB"), 1, a100_phases, 0.03, "./bench %d",
                                 &w);
    ms_run_options o = options("nvml", 1);
    o.dry_run = true;
    char path[128];
    snprintf(path, sizeof path, "%s/dry", dir);
    o.dry_out = fopen(path, "w");
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s", err.msg);
    fclose(o.dry_out);
    char *text = test_read_small_file(path);
    assert_non_null(strstr(text, "nvmlDeviceCreateGpuInstanceWithPlacement(7g.40gb"));
    assert_non_null(strstr(text, "CUDA_VISIBLE_DEVICES=MIG-<instance 0> ./bench 0"));
    assert_true(strstr(text, "destroy instance 0") < strstr(text, "create instance 1"));
    free(text);
    assert_int_equal(access(state, F_OK), -1); /* the fake was never loaded */
    ms_run_report_free(r);
    ms_workload_free(w);
    plan_free(s);
}

/* Whether a task has started: its log file exists. */
static bool task_started(void)
{
    DIR *d = opendir(logs);
    bool any = false;
    for (struct dirent *e; d && !any && (e = readdir(d));)
        any = e->d_name[0] != '.';
    if (d)
        closedir(d);
    return any;
}

/* Runs the A30 plan in a child process (so fault counters and signals start afresh), with
 * SIGINT once a task runs if asked; returns the child's exit status: 0 = report ok,
 * 1 = report not ok, 2 = ms_run error. */
static int run_in_child(const char *command, ms_on_failure on_failure, bool interrupt)
{
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        ms_workload *w;
        ms_schedule *s = plan_phases(ms_gpu_builtin("A30-24GB"), 1, child_plan, 0.02, command, &w);
        ms_run_options o = options("nvml", 1);
        o.on_failure = on_failure;
        if (getenv("EXEC_TEST_PROGRESS"))
            o.progress = stderr;
        ms_run_report *r;
        ms_error err;
        if (ms_run(s, w, &o, &r, &err)) {
            fprintf(stderr, "ms_run: %s\n", err.msg);
            _exit(2);
        }
        char path[128];
        snprintf(path, sizeof path, "%s/report.json", dir);
        FILE *f = fopen(path, "w");
        ms_run_report_write_json(r, w, f, &err);
        fclose(f);
        _exit(r->ok ? 0 : r->signal ? 3 : 1);
    }
    if (interrupt) { /* however slow the build (sanitizers), a task is running then */
        for (int waited = 0; !task_started() && waited < 30000; waited += 10)
            usleep(10 * 1000);
        kill(pid, SIGINT);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *report_text(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/report.json", dir);
    return test_read_small_file(path);
}

/* Every NVML entry point the run uses, failed at its first and at a later call. */
static void test_injected_failures_leave_nothing(void **unused)
{
    static const char *const entries[] = {"nvmlInit_v2",
                                          "nvmlDeviceGetCount_v2",
                                          "nvmlDeviceGetHandleByIndex_v2",
                                          "nvmlDeviceGetName",
                                          "nvmlDeviceGetMigMode",
                                          "nvmlDeviceGetGpuInstanceProfileInfo",
                                          "nvmlDeviceGetGpuInstances",
                                          "nvmlDeviceCreateGpuInstanceWithPlacement",
                                          "nvmlDeviceGetGpuInstanceById",
                                          "nvmlGpuInstanceGetInfo",
                                          "nvmlGpuInstanceDestroy",
                                          "nvmlGpuInstanceGetComputeInstanceProfileInfo",
                                          "nvmlGpuInstanceCreateComputeInstance",
                                          "nvmlGpuInstanceGetComputeInstances",
                                          "nvmlComputeInstanceGetInfo_v2",
                                          "nvmlComputeInstanceDestroy",
                                          "nvmlDeviceGetMaxMigDeviceCount",
                                          "nvmlDeviceGetMigDeviceHandleByIndex",
                                          "nvmlDeviceGetGpuInstanceId",
                                          "nvmlDeviceGetComputeInstanceId",
                                          "nvmlDeviceGetUUID"};
    static const int nth[] = {1, 4};
    child_plan = a30_small;
    for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++)
        for (size_t k = 0; k < 2; k++) {
            int abort_mode = (int)((e + k) % 2); /* both modes, both positions */
            char spec[128];
            snprintf(spec, sizeof spec, "%s:%d", entries[e], nth[k]);
            setenv("FAKE_NVML_FAIL", spec, 1);
            int rc = run_in_child("true", abort_mode ? MS_ON_FAILURE_ABORT : MS_ON_FAILURE_CONTINUE,
                                  false);
            unsetenv("FAKE_NVML_FAIL");
            if (rc > 2 || instances_left(0) != 0)
                fail_msg("FAKE_NVML_FAIL=%s (%s): rc %d, %d instances left", spec,
                         abort_mode ? "abort" : "continue", rc, instances_left(0));
            if (rc == 1) { /* the run took place: its report names the failing call */
                char *text = report_text();
                if (!strstr(text, entries[e]) || !strstr(text, "\"ok\": false"))
                    fail_msg("FAKE_NVML_FAIL=%s: report does not say so:\n%s", spec, text);
                free(text);
            }
        }
    child_plan = a30_phases;
}

static void test_killed_task(void **unused)
{
    /* Task 3 kills itself: reported as signal 9, the rest still runs (continue). */
    int rc = run_in_child("sleep 0.01; [ %d -ne 3 ] || kill -9 $$", MS_ON_FAILURE_CONTINUE, false);
    assert_int_equal(rc, 1);
    assert_int_equal(instances_left(0), 0);
    char *text = report_text();
    assert_non_null(strstr(text, "\"exit_status\": -9"));
    assert_null(strstr(text, "\"not-run\""));
    free(text);
    /* With abort: the run stops, later tasks never start, nothing is left. */
    rc = run_in_child("sleep 0.01; [ %d -ne 3 ] || exit 7", MS_ON_FAILURE_ABORT, false);
    assert_int_equal(rc, 1);
    assert_int_equal(instances_left(0), 0);
    text = report_text();
    assert_non_null(strstr(text, "\"exit_status\": 7"));
    assert_non_null(strstr(text, "task t3 (#3) failed"));
    assert_non_null(strstr(text, "\"skipped\""));
    free(text);
}

static void test_sigint_cleans_up(void **unused)
{
    int rc = run_in_child("sleep 5", MS_ON_FAILURE_CONTINUE, true);
    assert_int_equal(rc, 3);
    assert_int_equal(instances_left(0), 0);
    char *text = report_text();
    assert_non_null(strstr(text, "interrupted (SIGINT)"));
    assert_non_null(strstr(text, "\"exit_status\": -15")); /* killed with SIGTERM */
    free(text);
}

/* A crash in the middle of creating an instance, then --cleanup from the journal: killed
 * after the GPU instance was journalled ("gi"), before its compute instance, the instance
 * is the run's and destroyed; killed before that record, it is unproven. A foreign
 * instance is left alone. */
static void test_crash_then_cleanup(void **unused)
{
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    ms_backend_options bo = {.nvml_library = FAKE_LIB};
    ms_backend *b;
    ms_error err;
    ms_mig_instance foreign;
    assert_int_equal(ms_backend_open("nvml", 1, NULL, &bo, &b, &err), MS_OK);
    assert_int_equal(ms_backend_create(b, (ms_placement){0, 3}, &foreign, &err), MS_OK);
    ms_backend_close(b);
    setenv("FAKE_NVML_FAIL", "nvmlGpuInstanceCreateComputeInstance:4:kill", 1);
    int rc = run_in_child("sleep 0.01", MS_ON_FAILURE_CONTINUE, false);
    unsetenv("FAKE_NVML_FAIL");
    assert_int_equal(rc, 128 + SIGKILL);
    assert_true(instances_left(0) >= 1);
    ms_cleanup_options co = {.journal = journal, .backend_opt = bo};
    ms_cleanup_report rep;
    assert_int_equal(ms_run_cleanup(&co, &rep, &err), MS_OK);
    assert_int_equal(rep.nleft, 0);
    assert_int_equal(instances_left(0), 0);
    setenv("FAKE_NVML_FAIL", "nvmlDeviceCreateGpuInstanceWithPlacement:4:killafter", 1);
    rc = run_in_child("sleep 0.01", MS_ON_FAILURE_CONTINUE, false);
    unsetenv("FAKE_NVML_FAIL");
    assert_int_equal(rc, 128 + SIGKILL);
    assert_true(instances_left(0) >= 1);
    /* The instance whose creation was in flight has no recorded identity: reported with
     * the command that removes it, destroyed only when forced. */
    assert_int_equal(ms_run_cleanup(&co, &rep, &err), MS_OK);
    assert_int_equal(rep.nleft, 1);
    assert_non_null(strstr(rep.left[0], "--force"));
    assert_non_null(strstr(rep.left[0], "nvidia-smi mig -i 0 -gi"));
    assert_int_equal(instances_left(0), 1);
    co.force = true;
    assert_int_equal(ms_run_cleanup(&co, &rep, &err), MS_OK);
    assert_int_equal(rep.destroyed, 1);
    assert_int_equal(rep.nleft, 0);
    assert_int_equal(instances_left(0), 0);
    assert_int_equal(instances_left(1), 1); /* not ours: untouched */
    /* A second cleanup finds nothing to do. */
    assert_int_equal(ms_run_cleanup(&co, &rep, &err), MS_OK);
    assert_int_equal(rep.destroyed, 0);
}

/* A foreign instance on slots the plan needs: refuse, naming it, and create nothing. */
static void test_foreign_instance_refused(void **unused)
{
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    ms_backend_options bo = {.nvml_library = FAKE_LIB};
    ms_backend *b;
    ms_error err;
    ms_mig_instance foreign;
    assert_int_equal(ms_backend_open("nvml", 0, NULL, &bo, &b, &err), MS_OK);
    assert_int_equal(ms_backend_create(b, (ms_placement){0, 2}, &foreign, &err), MS_OK);
    ms_backend_close(b);
    assert_int_equal(run_in_child("true", MS_ON_FAILURE_CONTINUE, false), 2);
    assert_int_equal(instances_left(0), 1);
    ms_workload *w;
    ms_schedule *s = plan_phases(ms_gpu_builtin("A30-24GB"), 1, a30_phases, 0.02, "true", &w);
    ms_run_options o = options("nvml", 1);
    ms_run_report *r;
    assert_int_equal(ms_run(s, w, &o, &r, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "GPU instance"));
    assert_non_null(strstr(err.msg, "1g.6gb, slots 2-2"));
    ms_workload_free(w);
    plan_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a100_two_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a30, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_virtual_matches_plan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_scaled_never_early, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_touches_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_injected_failures_leave_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_task, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigint_cleans_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_then_cleanup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_instance_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
