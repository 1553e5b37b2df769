/* test_daemon_engine_exec.c: migschedd's engine on the nvml backend against the fake NVML
 * (its device state in a file, so several processes see one GPU), running real commands:
 * exit statuses and log files, no instance left after a clean stop, a foreign instance
 * never touched (online and batch), cancel of a process that ignores SIGTERM (SIGKILL after the
 * grace), and recovery after the engine's process is SIGKILLed with jobs running: the old processes
 * are stopped, their instances destroyed, every job completes exactly once; a crash at each
 * point of a destroy (journalled "destroying") recovered, a stranger's instance made at our
 * old id and slots after it left alone, and an instance that lost its compute instance
 * with no destroy of ours under way left alone too; an idle instance of ours that someone
 * else replaces while the engine runs is found out, never used, and theirs left alone; the
 * journal stays bounded over 30 SIGKILL/restart cycles, a recorded group whose leader is
 * gone or another process is never signalled, a torn last record is recovered from and an
 * unreadable journal stops the start. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine_support.h"
#include "migsched/io.h"
#include "migsched/schedule.h"

#define FAKE_LIB MIGSCHED_BINARY_DIR "/tests/fake_nvml/libnvidia-ml.so.1"

static int setup_nvml(void **state)
{
    setup(state);
    fixture *f = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/nvml-state", f->dir);
    setenv("FAKE_NVML_STATE", path, 1);
    setenv("FAKE_NVML_DELAY_SCALE", "0.02", 1);
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    setenv("FAKE_NVML_GPUS", "1", 1);
    setenv("MIGSCHED_NVML_LIBRARY", FAKE_LIB, 1);
    setenv("MIGSCHED_RUNTIME_DIR", f->dir, 1); /* device locks and the journal */
    unsetenv("FAKE_NVML_FAIL");
    return 0;
}

/* Unconfined jobs (the fake GPU has no device nodes): isolation has its own tests
 * (test_exec_isolate, tests/daemon/isolation.sh). */
static void configure_nvml(fixture *f, const char *grace)
{
    char logs[400];
    snprintf(logs, sizeof logs, "%s/logs", f->dir);
    /* The engine's submissions have no owner (uid 0): root's jobs must be allowed. */
    configure(f, "nvml", "devices", "0", "gpu", getenv("FAKE_NVML_GPU"), "log-dir", logs,
              "stop-grace", grace, "allow-root-jobs", "true", "isolation", "none", NULL);
}

/* The device's instances as a fresh process would see them. */
static int device_instances(ms_mig_instance list[MS_MAX_MIG])
{
    ms_backend *b;
    ms_error e = {0};
    int n;
    if (ms_backend_open("nvml", 0, NULL, NULL, &b, &e) || ms_backend_list(b, list, &n, &e))
        fail_msg("%s", e.msg);
    ms_backend_close(b);
    return n;
}

static int exit_status(fixture *f, int64_t id)
{
    json_t *job;
    ms_error e = {0};
    assert_int_equal(md_engine_job(f->e, id, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    int s = (int)json_integer_value(json_object_get(job, "exit_status"));
    json_decref(job);
    return s;
}

static void test_runs_commands(void **state)
{
    fixture *f = *state;
    configure_nvml(f, "5");
    setenv("MIGSCHED_CANARY", "the daemon's", 1); /* never seen by a job */
    open_engine(f);
    int64_t ok[3];
    for (int i = 0; i < 3; i++)
        ok[i] = submit_cmd_ok(f, "[\"sleep\", \"0.2\"]",
                              "\"profile\": \"2g.12gb\", "
                              "\"seconds\": 1",
                              NULL);
    int64_t bad = submit_cmd_ok(f,
                                "[\"sh\", \"-c\", \"echo out $GREETING; echo "
                                "$CUDA_VISIBLE_DEVICES >&2; echo ${MIGSCHED_CANARY-none} "
                                "$PATH >&2; exit 3\"]",
                                "\"profile\": \"1g.6gb\", \"seconds\": 1",
                                "\"env\": {\"GREETING\": \"it's me\"}");
    int64_t missing = submit_cmd_ok(f, "[\"/nonexistent/command\"]",
                                    "\"profile\": \"1g.6gb\", \"seconds\": 1", NULL);
    for (int i = 0; i < 3; i++)
        wait_state(f, ok[i], "done");
    wait_state(f, bad, "failed");
    wait_state(f, missing, "failed");
    assert_int_equal(exit_status(f, ok[0]), 0);
    assert_int_equal(exit_status(f, bad), 3);
    assert_int_equal(exit_status(f, missing), 127);
    char path[MD_PATH_LEN + 128], *text;
    size_t len;
    ms_error e = {0};
    md_job j = {.id = bad, .owner = ROOT_ACTOR.who}; /* the fixture submits as root */
    assert_int_equal(md_job_log_path(f->c.log_dir, &j, 1, "out", path, sizeof path, &e), MS_OK);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    assert_string_equal(text, "out it's me\n");
    free(text);
    assert_int_equal(md_job_log_path(f->c.log_dir, &j, 1, "err", path, sizeof path, &e), MS_OK);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    assert_true(!strncmp(text, "MIG-", 4)); /* the job saw its instance */
    assert_non_null(strstr(text, "\nnone /usr/local/bin:/usr/bin:/bin\n")); /* a clean env */
    free(text);
    unsetenv("MIGSCHED_CANARY");
    stop_engine(f);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 0);
    check_no_instance_left(f);
}

/* A 2g.12gb instance someone else made on slots 2-3 of the emulated A30. */
static ms_mig_instance make_foreign(void)
{
    ms_backend *b;
    ms_error e = {0};
    ms_mig_instance foreign;
    const ms_gpu_model *a30 = ms_gpu_builtin("A30-24GB");
    assert_int_equal(ms_backend_open("nvml", 0, a30, NULL, &b, &e), MS_OK);
    assert_int_equal(ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(a30, "2g.12gb"), 2},
                                       &foreign, &e),
                     MS_OK);
    ms_backend_close(b);
    return foreign;
}

/* Two 2g jobs beside the foreign instance (the engine stopped): both done, both on slots
 * 0-1, and the foreign instance still there with its very identity. */
static void two_jobs_beside(fixture *f, const ms_mig_instance *foreign, const int64_t id[2])
{
    ms_error e = {0};
    check_all_done(f, 2);
    for (int i = 0; i < 2; i++) {
        md_job j;
        assert_int_equal(md_store_get_job(f->st, id[i], &j, &e), MS_OK);
        assert_int_equal(j.placement.start, 0);
        md_job_free(&j);
    }
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 1);
    assert_true(ms_mig_same_instance(foreign, &list[0]));
}

static int64_t submit_2g(fixture *f)
{
    return submit_cmd_ok(f, "[\"sleep\", \"0.1\"]", "\"profile\": \"2g.12gb\", \"seconds\": 1",
                         NULL);
}

/* An instance someone else made stays, with its very identity, and its slots are never
 * used: two 2g jobs take turns on the other half. */
static void test_foreign_untouched(void **state)
{
    fixture *f = *state;
    ms_mig_instance foreign = make_foreign();
    configure_nvml(f, "5");
    open_engine(f);
    int64_t id[2] = {submit_2g(f), submit_2g(f)};
    for (int i = 0; i < 2; i++)
        wait_state(f, id[i], "done");
    stop_engine(f);
    two_jobs_beside(f, &foreign, id);
}

/* Batch mode alike: the batch is planned with the foreign instance's slots kept out (two 2g
 * jobs that would run side by side on an empty A30 take turns on the other half), and the
 * foreign instance is never destroyed. */
static void test_batch_foreign_untouched(void **state)
{
    fixture *f = *state;
    ms_error e = {0};
    const ms_gpu_model *a30 = ms_gpu_builtin("A30-24GB");
    ms_mig_instance foreign = make_foreign();
    configure_nvml(f, "5");
    set(&f->c, "mode", "batch");
    set(&f->c, "batch-size", "2");
    set(&f->c, "batch-period", "1000");
    assert_int_equal(md_config_check(&f->c, &e), MS_OK);
    open_engine(f);
    int64_t id[2] = {submit_2g(f), submit_2g(f)};
    for (int i = 0; i < 2; i++)
        wait_state(f, id[i], "done");
    char *text;
    assert_int_equal(md_engine_plan(f->e, &text, &e), MD_ENGINE_OK);
    stop_engine(f);
    ms_schedule *plan;
    if (ms_schedule_parse_json(text, strlen(text), "plan", a30, &plan, &e))
        fail_msg("%s", e.msg);
    free(text);
    for (int i = 0; i < plan->ninst; i++) /* nothing of the plan on the foreign slots */
        assert_int_equal(
            ms_gpu_slot_mask(a30, (ms_placement){plan->inst[i].profile, plan->inst[i].start_slot}) &
                0xc,
            0);
    ms_schedule_free(plan);
    two_jobs_beside(f, &foreign, id);
}

/* A job that ignores SIGTERM is killed after the grace period; its instance is freed. */
static void test_cancel_kills(void **state)
{
    fixture *f = *state;
    configure_nvml(f, "0.3");
    open_engine(f);
    int64_t id = submit_cmd_ok(f,
                               "[\"sh\", \"-c\", \"trap '' TERM; sleep 60 & wait; "
                               "sleep 60\"]",
                               "\"profile\": \"4g.24gb\", \"seconds\": 60", NULL);
    wait_state(f, id, "running");
    json_t *job;
    ms_error e = {0};
    assert_int_equal(md_engine_cancel(f->e, id, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    assert_string_equal(json_string_value(json_object_get(job, "state")), "cancelled");
    json_decref(job);
    int64_t next = submit_cmd_ok(f, "[\"true\"]", "\"profile\": \"4g.24gb\", \"seconds\": 1", NULL);
    wait_state(f, next, "done");
    stop_engine(f);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 0);
}

/* A command that runs long on its first attempt (writing its pid) and at once on a retry. */
static void crash_command(const fixture *f, int k, char *buf, size_t len)
{
    snprintf(buf, len,
             "[\"sh\", \"-c\", \"if [ -e %s/pid%d ]; then exit 0; fi; "
             "echo $$ > %s/pid%d.tmp; mv %s/pid%d.tmp %s/pid%d; exec sleep 60\"]",
             f->dir, k, f->dir, k, f->dir, k, f->dir, k);
}

static void crash_child(fixture *f)
{
    ms_error e = {0};
    if (md_store_open(f->db, &f->c.model, &f->st, &e) || md_engine_open(&f->c, f->st, &f->e, &e))
        _exit(1);
    for (int k = 0; k < 2; k++) {
        char cmd[1600], text[1900];
        crash_command(f, k, cmd, sizeof cmd);
        snprintf(text, sizeof text,
                 "{\"name\": \"c\", \"command\": %s, \"profile\": "
                 "\"2g.12gb\", \"seconds\": 60}",
                 cmd);
        child_submit(f, text);
    }
    for (int i = 0; i < 12000; i++) { /* both commands run: die */
        char p0[400], p1[400];
        snprintf(p0, sizeof p0, "%s/pid0", f->dir);
        snprintf(p1, sizeof p1, "%s/pid1", f->dir);
        if (!access(p0, F_OK) && !access(p1, F_OK))
            raise(SIGKILL);
        pause_ms(5);
    }
    _exit(1);
}

static pid_t read_pid(const fixture *f, int k)
{
    char path[400], *text;
    size_t len;
    ms_error e = {0};
    snprintf(path, sizeof path, "%s/pid%d", f->dir, k);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    pid_t pid = (pid_t)atoi(text);
    free(text);
    return pid;
}

/* An engine process that starts two jobs and is SIGKILLed while they run. */
static void crash(fixture *f)
{
    configure_nvml(f, "5");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        crash_child(f);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* After a crash and a new open: the crashed run's two processes are gone (stopped by the
 * recovery, reaped by init), its two jobs run again to done; then the engine is stopped. */
static void recovered_two(fixture *f, const pid_t old[2])
{
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2000 && kill(old[k], 0) == 0; i++)
            pause_ms(5);
    assert_int_equal(kill(old[0], 0), -1);
    assert_int_equal(kill(old[1], 0), -1);
    wait_count(f->e, MD_JOB_DONE, 2);
    stop_engine(f);
    check_all_done(f, 2);
}

static void test_crash_recovery(void **state)
{
    fixture *f = *state;
    crash(f);
    pid_t old[2] = {read_pid(f, 0), read_pid(f, 1)};
    assert_int_equal(kill(old[0], 0), 0); /* the crash left them running */
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 2);
    open_engine(f);
    recovered_two(f, old);
    md_job *jobs;
    size_t n;
    ms_error e = {0};
    assert_int_equal(md_store_list_jobs(f->st, -1, &jobs, &n, &e), MS_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(jobs[i].attempts, 2);
    md_store_free_jobs(jobs, n);
    assert_int_equal(device_instances(list), 0);
    check_no_instance_left(f);
}

/* Removes GPU instance gi's compute instance from the fake's state file, as a destroy of
 * it would (or a tool removing it). */
static void drop_compute_instance(const fixture *f, unsigned gi)
{
    char path[400], *text;
    size_t len;
    ms_error e = {0};
    snprintf(path, sizeof path, "%s/nvml-state", f->dir);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    char line[32];
    snprintf(line, sizeof line, "\nci 0 %u ", gi);
    char *ci = strstr(text, line), *end = ci ? strchr(ci + 1, '\n') : NULL;
    assert_non_null(end);
    memmove(ci, end, strlen(end) + 1);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
    free(text);
}

/* The journal's records still open after replay, of one kind (*start: the last one's start
 * slot, when not NULL). */
static int open_records_at(const fixture *f, ms_journal_kind kind, int *start)
{
    char path[512], *text;
    size_t len;
    ms_error e = {0};
    assert_int_equal(ms_default_run_path((const int[]){0}, 1, ".journal", path, sizeof path, &e),
                     MS_OK);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    ms_journal_state *st = malloc(sizeof *st);
    assert_non_null(st);
    assert_int_equal(ms_journal_parse(text, len, path, st, &e), MS_OK);
    int n = 0;
    for (int i = 0; i < st->n; i++)
        if (st->rec[i].kind == kind) {
            n++;
            if (start)
                *start = st->rec[i].start;
        }
    free(st);
    free(text);
    return n;
}

static int open_records(const fixture *f, ms_journal_kind kind)
{
    return open_records_at(f, kind, NULL);
}

/* An engine whose 2g.12gb job ran and left its instance idle; then someone else destroys
 * that instance and makes one of `profile` of their own at its place (a new MIG UUID). */
static void replace_idle_instance(fixture *f, const char *profile, ms_mig_instance *ours,
                                  ms_mig_instance *theirs)
{
    configure_nvml(f, "5");
    open_engine(f);
    wait_state(f, submit_cmd_ok(f, "[\"true\"]", "\"profile\": \"2g.12gb\", \"seconds\": 1", NULL),
               "done");
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 1); /* ours, idle */
    *ours = list[0];
    ms_backend *b;
    ms_error e = {0};
    assert_int_equal(ms_backend_open("nvml", 0, NULL, NULL, &b, &e), MS_OK);
    assert_int_equal(ms_backend_destroy(b, ours->gi_id, &e), MS_OK);
    ms_placement at = {ms_gpu_profile_by_name(ms_backend_model(b), profile), ours->start_slot};
    assert_int_equal(ms_backend_create(b, at, theirs, &e), MS_OK);
    ms_backend_close(b);
    assert_string_not_equal(theirs->uuid, ours->uuid);
    assert_int_equal(open_records(f, MS_JOURNAL_FOREIGN), 0);
}

/* A 2g.12gb job runs, and not at the replaced instance's place, which is recorded foreign. */
static void check_runs_beside(fixture *f, const ms_mig_instance *ours)
{
    int64_t half = submit_cmd_ok(f, "[\"true\"]", "\"profile\": \"2g.12gb\", \"seconds\": 1", NULL);
    wait_state(f, half, "done");
    md_job j;
    ms_error e = {0};
    assert_int_equal(md_store_get_job(f->st, half, &j, &e), MS_OK);
    assert_int_not_equal(j.placement.start, ours->start_slot);
    md_job_free(&j);
    assert_int_equal(open_records(f, MS_JOURNAL_FOREIGN), 1);
}

/* After the stop theirs is the only instance, untouched, and none of ours is left. */
static void check_theirs_alone(fixture *f, const ms_mig_instance *theirs)
{
    stop_engine(f);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 1);
    assert_true(ms_mig_same_instance(theirs, &list[0]));
    check_no_instance_left(f);
}

/* Someone else replaces our idle instance by a 1g.6gb of theirs while the engine runs. The
 * engine finds out when the instance is in a 4g job's way: the destroy is refused (not
 * ours any more), our records of it end, theirs is recorded foreign and never touched, the
 * 4g job waits, and a 2g job runs on the other half. */
static void test_instance_replaced_while_running(void **state)
{
    fixture *f = *state;
    ms_mig_instance ours, theirs;
    replace_idle_instance(f, "1g.6gb", &ours, &theirs);
    int64_t whole = submit_cmd_ok(f, "[\"true\"]", "\"profile\": \"4g.24gb\", \"seconds\": 1",
                                  NULL);
    for (int i = 0; i < 6000 && open_records(f, MS_JOURNAL_FOREIGN) == 0; i++)
        pause_ms(10);
    assert_int_equal(open_records(f, MS_JOURNAL_FOREIGN), 1);
    check_no_instance_left(f); /* the lost one's row ended */
    check_runs_beside(f, &ours);
    assert_string_equal(state_of(f, whole), "queued");
    json_t *job;
    ms_error e = {0};
    assert_int_equal(md_engine_cancel(f->e, whole, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    json_decref(job);
    check_theirs_alone(f, &theirs);
}

/* Someone else replaces our idle 2g.12gb instance by a look-alike (same profile and place,
 * another MIG UUID). The next 2g job would reuse ours there: the engine sees the instance
 * is not ours any more, records theirs foreign and runs the job on the other half. */
static void test_idle_instance_replaced_alike(void **state)
{
    fixture *f = *state;
    ms_mig_instance ours, theirs;
    replace_idle_instance(f, "2g.12gb", &ours, &theirs);
    check_runs_beside(f, &ours);
    check_theirs_alone(f, &theirs);
}

/* An engine process that ran one job on a 2g.12gb instance, left idle, and is SIGKILLed
 * at the stop's destroy of it by the fake NVML's `fault` (FAKE_NVML_FAIL). */
static void crash_in_destroy(fixture *f, const char *fault, const char *profile)
{
    configure_nvml(f, "5");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        setenv("FAKE_NVML_FAIL", fault, 1);
        open_engine(f);
        char sizing[64];
        snprintf(sizing, sizeof sizing, "\"profile\": \"%s\", \"seconds\": 1", profile);
        wait_state(f, submit_ok(f, sizing, NULL), "done");
        ms_error e = {0};
        md_engine_stop(f->e, &e);
        _exit(2); /* the fault never came */
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* The recovering engine: a job of `profile` runs, then a clean stop; `done` jobs done in
 * all (each once). */
static void recover_and_run(fixture *f, const char *profile, size_t done)
{
    char sizing[64];
    snprintf(sizing, sizeof sizing, "\"profile\": \"%s\", \"seconds\": 1", profile);
    open_engine(f);
    wait_state(f, submit_ok(f, sizing, NULL), "done");
    stop_engine(f);
    check_all_done(f, done);
}

/* Crashed at `fault`, inside the destroy of our instance, leaving `left` GPU instances
 * (`with_ci` of them still with their compute instance): the recovery finishes our
 * destroy, so a job that needs the whole GPU runs, and nothing of ours is left or open in
 * the journal after the stop. */
static void recover_from(void **state, const char *fault, int left, bool with_ci)
{
    fixture *f = *state;
    crash_in_destroy(f, fault, "2g.12gb");
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), left);
    if (left)
        assert_int_equal(list[0].uuid[0] != '\0', with_ci);
    assert_int_equal(open_records(f, MS_JOURNAL_DESTROYING), 1);
    recover_and_run(f, "4g.24gb", 2);
    assert_int_equal(device_instances(list), 0);
    check_no_instance_left(f);
    assert_int_equal(open_records(f, MS_JOURNAL_DESTROYING), 0);
    assert_int_equal(open_records(f, MS_JOURNAL_CREATED), 0);
}

/* The "destroying" record is written; the compute instance is still there. */
static void test_crash_before_ci_destroy(void **state)
{
    recover_from(state, "nvmlComputeInstanceDestroy:1:kill", 1, true);
}

/* The compute instance is gone, the GPU instance not: the two points between the steps. */
static void test_crash_after_ci_destroy(void **state)
{
    recover_from(state, "nvmlComputeInstanceDestroy:1:killafter", 1, false);
}

static void test_crash_before_gi_destroy(void **state)
{
    recover_from(state, "nvmlGpuInstanceDestroy:1:kill", 1, false);
}

/* Both gone, "destroyed" not written: the record is settled, nothing destroyed. */
static void test_crash_after_gi_destroy(void **state)
{
    recover_from(state, "nvmlGpuInstanceDestroy:1:killafter", 0, false);
}

/* After a crash at `fault`, someone else removes what is at our instance's place and makes
 * their own there, as any tool does (a GPU instance with its compute instance: a new MIG
 * UUID), which gets our old id: the recovery leaves it alone and records it foreign; a job
 * runs beside it; it is the only instance left after the stop. */
static void stranger_after(void **state, const char *fault)
{
    fixture *f = *state;
    crash_in_destroy(f, fault, "2g.12gb");
    int ours = -1;
    assert_int_equal(open_records_at(f, MS_JOURNAL_DESTROYING, &ours), 1);
    ms_mig_instance list[MS_MAX_MIG], theirs;
    ms_backend *b;
    ms_error e = {0};
    assert_int_equal(ms_backend_open("nvml", 0, NULL, NULL, &b, &e), MS_OK);
    int n;
    assert_int_equal(ms_backend_list(b, list, &n, &e), MS_OK);
    for (int i = 0; i < n; i++)
        assert_int_equal(ms_backend_destroy(b, list[i].gi_id, &e), MS_OK);
    ms_placement at = {ms_gpu_profile_by_name(ms_backend_model(b), "2g.12gb"), ours};
    assert_int_equal(ms_backend_create(b, at, &theirs, &e), MS_OK);
    ms_backend_close(b);
    assert_int_equal(theirs.gi_id, 1); /* the id the driver gave ours (the first) */
    assert_int_equal(theirs.start_slot, ours);
    recover_and_run(f, "2g.12gb", 2);
    assert_int_equal(device_instances(list), 1);
    assert_true(ms_mig_same_instance(&theirs, &list[0]));
    assert_int_equal(open_records(f, MS_JOURNAL_DESTROYING), 0);
    assert_int_equal(open_records(f, MS_JOURNAL_CREATED), 0);
}

static void test_stranger_after_crash_between_destroys(void **state)
{
    stranger_after(state, "nvmlGpuInstanceDestroy:1:kill");
}

static void test_stranger_after_crash_after_destroys(void **state)
{
    stranger_after(state, "nvmlGpuInstanceDestroy:1:killafter");
}

/* After a crash between the destroys of our 1g.10gb instance (A100-40GB), someone else
 * makes a 2g.10gb GPU instance at our id and slots, with no compute instance yet: only the
 * "destroying" record's profile tells it from our remains. Left alone; a job runs beside. */
static void test_stranger_of_another_profile(void **state)
{
    fixture *f = *state;
    setenv("FAKE_NVML_GPU", "A100-40GB", 1);
    ms_backend *b;
    ms_error e = {0};
    ms_mig_instance other, theirs, list[MS_MAX_MIG];
    assert_int_equal(ms_backend_open("nvml", 0, NULL, NULL, &b, &e), MS_OK);
    const ms_gpu_model *m = ms_backend_model(b);
    /* Someone's instance on slots 6-7 steers ours to where a 2g.10gb fits too. */
    assert_int_equal(
        ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(m, "1g.10gb"), 6}, &other, &e),
        MS_OK);
    crash_in_destroy(f, "nvmlGpuInstanceDestroy:1:kill", "1g.10gb");
    assert_int_equal(device_instances(list), 2);
    const ms_mig_instance ours = list[0];
    assert_false(ours.uuid[0]);
    assert_true(ours.start_slot < 6);
    assert_int_equal(ms_backend_destroy(b, ours.gi_id, &e), MS_OK);
    ms_placement at = {ms_gpu_profile_by_name(m, "2g.10gb"), ours.start_slot};
    assert_int_equal(ms_backend_create(b, at, &theirs, &e), MS_OK);
    ms_backend_close(b);
    assert_int_equal(theirs.gi_id, ours.gi_id);
    drop_compute_instance(f, theirs.gi_id);
    assert_int_equal(device_instances(list), 2);
    assert_false(list[0].uuid[0]);
    theirs = list[0];
    recover_and_run(f, "1g.10gb", 2);
    assert_int_equal(device_instances(list), 2);
    assert_true(ms_mig_same_instance(&theirs, &list[0]));
    assert_true(ms_mig_same_instance(&other, &list[1]));
}

/* A GPU instance at a recorded id and slots that lost its compute instance with no destroy
 * of ours under way (here removed by hand after a crash with jobs running) cannot be told
 * from someone else's new one: it is left alone, the other instance is destroyed, every
 * job completes. */
static void test_lost_compute_instance_left_alone(void **state)
{
    fixture *f = *state;
    crash(f);
    drop_compute_instance(f, 1);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 2);
    ms_mig_instance lone = list[0].uuid[0] ? list[1] : list[0];
    assert_false(lone.uuid[0]);
    open_engine(f);
    wait_count(f->e, MD_JOB_DONE, 2);
    stop_engine(f);
    check_all_done(f, 2);
    assert_int_equal(device_instances(list), 1);
    assert_true(ms_mig_same_instance(&lone, &list[0]));
}

/* The journal's path (the engine's default for device 0). */
static void journal_path(char *path, size_t len)
{
    ms_error e = {0};
    assert_int_equal(ms_default_run_path((const int[]){0}, 1, ".journal", path, len, &e), MS_OK);
}

static void journal_append(const char *text, size_t len)
{
    char path[512];
    journal_path(path, sizeof path);
    FILE *out = fopen(path, "a");
    assert_non_null(out);
    assert_int_equal(fwrite(text, 1, len, out), len);
    fclose(out);
}

/* Size and records (lines) of the journal. */
static void journal_size(long *bytes, int *records)
{
    char path[512], *text;
    size_t len;
    ms_error e = {0};
    journal_path(path, sizeof path);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    *bytes = (long)len;
    *records = 0;
    for (size_t i = 0; i < len; i++)
        *records += text[i] == '\n';
    free(text);
}

/* One cycle's engine process: recovers what the last one left, starts two jobs (failed,
 * not retried, when interrupted: each cycle has its own) and is SIGKILLed once both run. */
static void cycle_child(fixture *f, int cycle)
{
    ms_error e = {0};
    if (md_store_open(f->db, &f->c.model, &f->st, &e) || md_engine_open(&f->c, f->st, &f->e, &e)) {
        fprintf(stderr, "cycle %d: %s\n", cycle, e.msg);
        _exit(1);
    }
    char up[2][400];
    for (int k = 0; k < 2; k++) {
        snprintf(up[k], sizeof up[k], "%s/up%d.%d", f->dir, cycle, k);
        char text[1200];
        snprintf(text, sizeof text,
                 "{\"name\": \"c\", \"command\": [\"sh\", \"-c\", \"echo > "
                 "%s; exec sleep 60\"], \"profile\": \"2g.12gb\", \"seconds\": 60, "
                 "\"on_interrupt\": \"fail\"}",
                 up[k]);
        child_submit(f, text);
    }
    for (int i = 0; i < 12000; i++) {
        if (!access(up[0], F_OK) && !access(up[1], F_OK))
            raise(SIGKILL);
        pause_ms(5);
    }
    _exit(1);
}

/* 30 SIGKILL/restart cycles with jobs running: every start succeeds, and the journal's
 * size and records stay bounded whatever the number of cycles (the crashed run's tasks
 * and instances are closed, the start compacts). `migsched run --cleanup` then still
 * starts, and a clean stop leaves nothing open. */
static void test_restart_loop_bounded(void **state)
{
    fixture *f = *state;
    configure_nvml(f, "1");
    for (int cycle = 0; cycle < 30; cycle++) {
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
            cycle_child(f, cycle);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
            fail_msg("cycle %d: the engine did not start (status %d)", cycle, status);
        long bytes;
        int records;
        journal_size(&bytes, &records);
        if (bytes > 2048 || records > 40 || open_records(f, MS_JOURNAL_TASK) > 2 ||
            open_records(f, MS_JOURNAL_CREATED) > 2)
            fail_msg("cycle %d: the journal grew: %ld bytes, %d records, %d open tasks", cycle,
                     bytes, records, open_records(f, MS_JOURNAL_TASK));
    }
    char path[512];
    journal_path(path, sizeof path);
    ms_cleanup_options o = {.journal = path, .kill_grace_s = 1};
    ms_cleanup_report rep;
    ms_error e = {0};
    if (ms_run_cleanup(&o, &rep, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(rep.killed, 2);
    assert_int_equal(rep.destroyed, 2);
    open_engine(f);
    assert_int_equal(count_state(f->e, MD_JOB_FAILED), 60); /* interrupted, not retried */
    stop_engine(f);
    long bytes;
    int records;
    journal_size(&bytes, &records);
    assert_true(records <= 4); /* run, finished, device */
    assert_int_equal(open_records(f, MS_JOURNAL_TASK), 0);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 0);
}

static unsigned long long start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    fclose(in);
    buf[n] = '\0';
    unsigned long long st = 0;
    const char *p = strrchr(buf, ')');
    assert_non_null(p);
    assert_int_equal(sscanf(p + 1,
                            " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                            "%*d %*d %*d %*d %llu",
                            &st),
                     1);
    return st;
}

/* A journal whose task records name process groups that are not the recorded ones: one
 * whose leader is another process (a later start time), one whose leader is gone (so
 * its id could have been reused by anyone's group). Neither is signalled; both records
 * are closed. */
static void test_reused_pgid_left_alone(void **state)
{
    fixture *f = *state;
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t lone_leader = fork(); /* a group whose leader exits, leaving a member */
    assert_true(lone_leader >= 0);
    if (lone_leader == 0) {
        setpgid(0, 0);
        pid_t member = fork();
        if (member == 0) {
            execlp("sleep", "sleep", "60", (char *)NULL);
            _exit(127);
        }
        if (write(pipefd[1], &member, sizeof member) != sizeof member)
            _exit(1);
        _exit(0);
    }
    pid_t member;
    assert_int_equal(read(pipefd[0], &member, sizeof member), sizeof member);
    close(pipefd[0]);
    close(pipefd[1]);
    assert_int_equal(waitpid(lone_leader, NULL, 0), lone_leader);
    pid_t other = fork(); /* a group whose leader lives, started after the record's */
    assert_true(other >= 0);
    if (other == 0) {
        setpgid(0, 0);
        execlp("sleep", "sleep", "60", (char *)NULL);
        _exit(127);
    }
    setpgid(other, other);
    for (int i = 0; i < 2000 && getpgid(other) != other; i++)
        pause_ms(1);
    unsigned long long other_start = start_time(other);
    char text[400];
    int n = snprintf(text, sizeof text,
                     "run nvml A30-24GB 1 1\ntask 0 %d %llu 7\n"
                     "task 0 %d %llu 8\n",
                     (int)lone_leader, other_start, (int)other, other_start - 1);
    journal_append(text, (size_t)n);
    configure_nvml(f, "1");
    open_engine(f);
    int still_open = open_records(f, MS_JOURNAL_TASK);
    pause_ms(200);
    bool member_alive = test_process_running(member);
    int st = 0;
    pid_t reaped = waitpid(other, &st, WNOHANG);
    kill(-lone_leader, SIGKILL);
    kill(-other, SIGKILL);
    if (!reaped)
        waitpid(other, NULL, 0);
    stop_engine(f);
    assert_true(member_alive);
    assert_int_equal(reaped, 0);
    assert_int_equal(still_open, 0);
}

/* A crash mid-write left the journal's last record cut short: the start drops it and
 * recovers from the rest (the old processes stopped, both jobs done once more). */
static void test_torn_journal_recovered(void **state)
{
    fixture *f = *state;
    crash(f);
    pid_t old[2] = {read_pid(f, 0), read_pid(f, 1)};
    journal_append("ended 1", 7);
    open_engine(f);
    recovered_two(f, old);
    assert_int_equal(open_records(f, MS_JOURNAL_TASK), 0);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(device_instances(list), 0);
}

/* A journal with a NUL byte is unreadable: the start stops with the reader's error
 * naming the file and line, and touches nothing (the crashed run's jobs keep running). */
static void test_unreadable_journal_stops_start(void **state)
{
    fixture *f = *state;
    crash(f);
    pid_t old[2] = {read_pid(f, 0), read_pid(f, 1)};
    long bytes;
    int records;
    journal_size(&bytes, &records);
    journal_append("ended\0 1\n", 9);
    ms_error e = {0};
    assert_int_equal(md_store_open(f->db, &f->c.model, &f->st, &e), MS_OK);
    assert_int_not_equal(md_engine_open(&f->c, f->st, &f->e, &e), MS_OK);
    char path[512], want[600];
    journal_path(path, sizeof path);
    snprintf(want, sizeof want, "%s:%d: NUL byte", path, records + 1);
    if (!strstr(e.msg, want))
        fail_msg("'%s' (wanted %s)", e.msg, want);
    bool running = kill(old[0], 0) == 0 && kill(old[1], 0) == 0;
    kill(old[0], SIGKILL);
    kill(old[1], SIGKILL);
    assert_true(running);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_runs_commands, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_untouched, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_batch_foreign_untouched, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_instance_replaced_while_running, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_idle_instance_replaced_alike, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_kills, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_crash_recovery, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_crash_before_ci_destroy, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_crash_after_ci_destroy, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_crash_before_gi_destroy, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_crash_after_gi_destroy, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_stranger_after_crash_between_destroys, setup_nvml,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stranger_after_crash_after_destroys, setup_nvml,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stranger_of_another_profile, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_lost_compute_instance_left_alone, setup_nvml,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restart_loop_bounded, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_reused_pgid_left_alone, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_torn_journal_recovered, setup_nvml, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_journal_stops_start, setup_nvml, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
