/* test_daemon_engine.c: migschedd's engine on the sim backend in online mode: every job
 * runs exactly once with a legal history and never two at once on overlapping slots;
 * jobs with per-size times; cancel (queued, running, ended, unknown); the queue limit;
 * stop under wait and requeue; recovery after the process is SIGKILLed mid-run; group-
 * committed submissions from concurrent threads; the GPU view and metrics; a Slurm
 * allocation's instance through restarts; owners (who sees a spec, who cancels, root's jobs)
 * and the per-user queue limits. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "engine_support.h"
#include "migsched/schedule.h"

static const char *const SIZES[] = {
    "\"profile\": \"1g.10gb\", \"seconds\": 20",
    "\"profile\": \"2g.20gb\", \"seconds\": 15",
    "\"profile\": \"3g.40gb\", \"seconds\": 12",
    "\"profile\": \"4g.40gb\", \"seconds\": 9",
    "\"slices\": 7, \"seconds\": 5",
    "\"times\": {\"1\": 40, \"2\": 18, \"7\": 4}",
};

static void test_online_all_once(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "H100-80GB", "gpus", "2", NULL);
    open_engine(f);
    size_t n = 60;
    for (size_t i = 0; i < n; i++)
        submit_ok(f, SIZES[(i * 7) % 6], NULL);
    wait_count(f->e, MD_JOB_DONE, n);
    md_engine_metrics m;
    ms_error e = {0};
    /* The last end is counted once it is durable: the store may show it a moment before
     * the scheduling thread has recorded it. */
    for (int tries = 0; tries < 500; tries++) {
        assert_int_equal(md_engine_metrics_snapshot(f->e, &m, &e), MD_ENGINE_OK);
        if (m.turnaround_seconds.total == n)
            break;
        pause_ms(10);
    }
    assert_int_equal(m.jobs[MD_JOB_DONE], n);
    assert_int_equal(m.submitted_total, n);
    assert_int_equal(m.wait_seconds.total, n);
    assert_int_equal(m.turnaround_seconds.total, n);
    assert_true(m.creations_total > 0);
    assert_int_equal(m.reconfigurations_total, m.creations_total + m.destructions_total);
    assert_int_equal(m.ngpus, 2);
    assert_int_equal(m.gpu[0].busy_slices, 0);
    stop_engine(f);
    check_all_done(f, n);
    check_no_instance_left(f);
}

/* A job with per-size times runs at the size of least slice-seconds (2 x 18 < 1 x 40). */
static void test_times_job_size(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "H100-80GB", "gpus", "1", NULL);
    open_engine(f);
    int64_t id = submit_ok(f, "\"times\": {\"1\": 40, \"2\": 18, \"7\": 6}", NULL);
    wait_state(f, id, "done");
    json_t *job;
    ms_error e = {0};
    assert_int_equal(md_engine_job(f->e, id, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    assert_string_equal(json_string_value(json_object_get(job, "profile")), "2g.20gb");
    json_decref(job);
}

/* One whole-GPU job runs, the next waits; the GPU view and the plan show the running one. */
static void test_cancel(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "1", NULL);
    open_engine(f);
    int64_t a = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600", NULL);
    int64_t b = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600", NULL);
    wait_state(f, a, "running");
    assert_string_equal(state_of(f, b), "queued");

    json_t *gpus;
    ms_error e = {0};
    assert_int_equal(md_engine_gpus(f->e, &gpus, &e), MD_ENGINE_OK);
    json_t *g0 = json_array_get(json_object_get(gpus, "gpus"), 0);
    json_t *i0 = json_array_get(json_object_get(g0, "instances"), 0);
    assert_string_equal(json_string_value(json_object_get(i0, "state")), "busy");
    assert_int_equal(json_integer_value(json_object_get(i0, "job")), a);
    assert_int_equal(json_integer_value(json_object_get(g0, "busy_slices")), 4);
    json_decref(gpus);
    char *plan;
    assert_int_equal(md_engine_plan(f->e, &plan, &e), MD_ENGINE_OK);
    assert_non_null(strstr(plan, "\"migsched-schedule/1\""));
    assert_non_null(strstr(plan, "\"4g.24gb\""));
    free(plan);

    json_t *job;
    assert_int_equal(md_engine_cancel(f->e, b, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    assert_string_equal(json_string_value(json_object_get(job, "state")), "cancelled");
    json_decref(job);
    assert_int_equal(md_engine_cancel(f->e, a, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    assert_string_equal(json_string_value(json_object_get(job, "state")), "cancelled");
    json_decref(job);
    assert_int_equal(md_engine_cancel(f->e, a, &ROOT_ACTOR, &job, &e), MD_ENGINE_CONFLICT);
    assert_null(job);
    assert_non_null(strstr(e.msg, "is cancelled"));
    assert_int_equal(md_engine_cancel(f->e, 999, &ROOT_ACTOR, &job, &e), MD_ENGINE_NOT_FOUND);
    assert_int_equal(md_engine_job(f->e, 999, &ROOT_ACTOR, &job, &e), MD_ENGINE_NOT_FOUND);
    /* The cancelled job's instance is free again: a new job runs at once. */
    int64_t c = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600", NULL);
    wait_state(f, c, "running");
}

static void test_queue_full(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "1", "queue-limit", "3",
              NULL);
    open_engine(f);
    int64_t id = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600", NULL);
    wait_state(f, id, "running");
    for (int i = 0; i < 3; i++)
        submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600", NULL);
    assert_int_equal(submit_json(f, "\"profile\": \"1g.6gb\", \"seconds\": 1", NULL, &id),
                     MD_ENGINE_QUEUE_FULL);
    assert_int_equal(count_state(f->e, MD_JOB_QUEUED), 3);
}

static const md_job_owner ALICE = {.uid = 4242, .gid = 4242, .name = "alice"},
                          BOB = {.uid = 4343, .gid = 4343, .name = "bob"};

/* Submits a job of about kb KB (its env) as owner; the outcome, and the message in msg. */
static md_engine_outcome submit_big(fixture *f, const md_job_owner *owner, int kb, char *msg)
{
    size_t len = (size_t)kb * 1024 + 512;
    char *text = malloc(len), *p = text;
    p += sprintf(p, "{\"name\": \"big\", \"command\": [\"true\"], \"profile\": \"1g.6gb\","
                    " \"seconds\": 600, \"env\": {");
    for (int i = 0; i < kb; i++)
        p += sprintf(p, "%s\"V%d\": \"%01000d\"", i ? ", " : "", i, 0);
    sprintf(p, "}}");
    md_job_spec s;
    ms_error e = {0};
    if (md_job_spec_parse(text, strlen(text), &f->c.model, &s, &e))
        fail_msg("%s", e.msg);
    free(text);
    json_t *job = NULL;
    md_engine_outcome o = md_engine_submit(f->e, &s, owner, &job, &e);
    json_decref(job);
    snprintf(msg, MS_ERR_LEN, "%s", o == MD_ENGINE_OK ? "" : e.msg);
    return o;
}

/* A job belongs to its owner: others see its public fields (not its spec: the secret in its
 * env), and cannot cancel it; the owner and admins can. A job of uid 0 is refused unless
 * allow-root-jobs; an allocation runs no command and is exempt. A busy instance's metrics
 * name its job's owner. */
static void test_owners(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "1", "allow-root-jobs",
              "false", NULL);
    open_engine(f);
    ms_error e = {0};
    char msg[MS_ERR_LEN];
    assert_int_equal(submit_big(f, &ROOT_ACTOR.who, 1, msg), MD_ENGINE_FORBIDDEN);
    assert_non_null(strstr(msg, "it would run as root (uid 0)"));
    assert_non_null(strstr(msg, "allow-root-jobs true"));
    f->owner = ALICE;
    int64_t id = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600",
                           "\"env\": {\"AWS_SECRET\": \"s3cr3t\"}");
    wait_state(f, id, "running");
    md_engine_actor bob = {.who = BOB}, alice = {.who = ALICE}, admin = {.who = BOB, .admin = true};
    json_t *job;
    assert_int_equal(md_engine_job(f->e, id, &bob, &job, &e), MD_ENGINE_OK);
    assert_string_equal(json_string_value(json_object_get(job, "user")), "alice");
    char *text = json_dumps(job, JSON_COMPACT);
    assert_null(strstr(text, "s3cr3t"));
    assert_null(json_object_get(job, "spec"));
    assert_null(json_object_get(job, "logs"));
    free(text);
    json_decref(job);
    const md_engine_actor *may[] = {&alice, &admin};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(md_engine_job(f->e, id, may[k], &job, &e), MD_ENGINE_OK);
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(json_object_get(job, "spec"), "env"),
                                              "AWS_SECRET")),
            "s3cr3t");
        assert_true(json_is_null(json_object_get(job, "logs"))); /* sim: no files */
        json_decref(job);
    }
    md_store_job_query q = {.limit = 10};
    int64_t next;
    assert_int_equal(md_engine_jobs(f->e, &q, &bob, &job, &next, &e), MD_ENGINE_OK);
    text = json_dumps(job, JSON_COMPACT);
    assert_non_null(strstr(text, "\"user\":\"alice\""));
    assert_null(strstr(text, "s3cr3t"));
    free(text);
    json_decref(job);
    md_engine_metrics *m = malloc(sizeof *m);
    assert_int_equal(md_engine_metrics_snapshot(f->e, m, &e), MD_ENGINE_OK);
    assert_int_equal(m->gpu[0].ninstances, 1);
    assert_string_equal(m->gpu[0].instance[0].user, "alice");
    free(m);

    assert_int_equal(md_engine_cancel(f->e, id, &bob, &job, &e), MD_ENGINE_FORBIDDEN);
    assert_null(job);
    assert_string_equal(e.msg, "job 1 belongs to alice: only its owner or an admin may cancel it");
    assert_string_equal(state_of(f, id), "running");
    assert_int_equal(md_engine_cancel(f->e, id, &alice, &job, &e), MD_ENGINE_OK);
    json_decref(job);
    int64_t other = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 600", NULL);
    assert_int_equal(md_engine_cancel(f->e, other, &admin, &job, &e), MD_ENGINE_OK);
    json_decref(job);

    /* Root's allocation: nothing runs as root, it is made. */
    const char *alloc = "{\"name\": \"a\", \"slurm_job_id\": 9, \"profile\": \"1g.6gb\"}";
    md_job_spec s;
    assert_int_equal(md_job_spec_parse(alloc, strlen(alloc), &f->c.model, &s, &e), MS_OK);
    assert_int_equal(md_engine_alloc_step(f->e, &s, &ROOT_ACTOR.who, 0, &job, &e), MD_ENGINE_OK);
    assert_string_equal(json_string_value(json_object_get(job, "user")), "root");
    json_decref(job);
}

/* Queued jobs per user: user-queue-limit in count, user-queue-bytes in their specs' bytes,
 * each refusal naming the limit and the user; another user is not held back; a job leaving
 * the queue makes room; a restart counts the queued jobs again; a SIGHUP's new limits
 * apply at once. */
static void test_user_limits(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "1", "user-queue-limit", "2",
              "user-queue-bytes", "65536", NULL);
    open_engine(f);
    /* A Slurm allocation holds the GPU (through the restart below): the jobs stay queued. */
    const char *alloc = "{\"name\": \"a\", \"slurm_job_id\": 9, \"profile\": \"4g.24gb\"}";
    md_job_spec s;
    json_t *job;
    ms_error e = {0};
    assert_int_equal(md_job_spec_parse(alloc, strlen(alloc), &f->c.model, &s, &e), MS_OK);
    assert_int_equal(md_engine_alloc_step(f->e, &s, &ROOT_ACTOR.who, 0, &job, &e), MD_ENGINE_OK);
    json_decref(job);
    wait_count(f->e, MD_JOB_RUNNING, 1);
    f->owner = ALICE;
    int64_t q1 = submit_ok(f, "\"profile\": \"1g.6gb\", \"seconds\": 1", NULL);
    submit_ok(f, "\"profile\": \"1g.6gb\", \"seconds\": 1", NULL);
    char msg[MS_ERR_LEN];
    assert_int_equal(submit_big(f, &ALICE, 1, msg), MD_ENGINE_QUEUE_FULL);
    assert_string_equal(msg, "user alice has 2 jobs queued already (user-queue-limit 2)");
    assert_int_equal(submit_big(f, &BOB, 1, msg), MD_ENGINE_OK);
    assert_int_equal(md_engine_cancel(f->e, q1, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    json_decref(job);
    assert_int_equal(submit_big(f, &ALICE, 1, msg), MD_ENGINE_OK);
    assert_int_equal(submit_big(f, &ALICE, 1, msg), MD_ENGINE_QUEUE_FULL);

    /* Bytes: a first 40 KB fits, a second does not. */
    const md_job_owner carol = {.uid = 4444, .gid = 4444, .name = "carol"};
    assert_int_equal(submit_big(f, &carol, 40, msg), MD_ENGINE_OK);
    assert_int_equal(submit_big(f, &carol, 40, msg), MD_ENGINE_QUEUE_FULL);
    assert_non_null(strstr(msg, "user carol's queued jobs hold "));
    assert_non_null(strstr(msg, "would pass user-queue-bytes (65536)"));

    stop_engine(f);
    open_engine(f);
    assert_int_equal(submit_big(f, &ALICE, 1, msg), MD_ENGINE_QUEUE_FULL);
    assert_int_equal(submit_big(f, &carol, 40, msg), MD_ENGINE_QUEUE_FULL);
    md_config *next = malloc(sizeof *next);
    *next = f->c;
    next->user_queue_limit = 3;
    next->user_queue_bytes = 1 << 20;
    assert_int_equal(md_engine_reload(f->e, next, &e), MS_OK);
    free(next);
    assert_int_equal(submit_big(f, &ALICE, 1, msg), MD_ENGINE_OK);
    assert_int_equal(submit_big(f, &carol, 40, msg), MD_ENGINE_OK);
    assert_int_equal(submit_big(f, &ALICE, 1, msg), MD_ENGINE_QUEUE_FULL);
}

/* on-stop wait: the running job finishes, the queued one stays queued, nothing is left. */
static void test_stop_wait(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "20", NULL);
    open_engine(f);
    int64_t a = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 4", NULL);
    int64_t b = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 4", NULL);
    wait_state(f, a, "running");
    stop_engine(f);
    md_job j;
    ms_error e = {0};
    assert_int_equal(md_store_get_job(f->st, a, &j, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_DONE);
    md_job_free(&j);
    assert_int_equal(md_store_get_job(f->st, b, &j, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_QUEUED);
    md_job_free(&j);
    check_no_instance_left(f);
    /* The next start runs what stayed queued. */
    open_engine(f);
    wait_state(f, b, "done");
}

/* on-stop requeue: running jobs are interrupted (retry: queued again; fail: failed);
 * submissions during and after the stop are refused. */
static void test_stop_requeue(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "1", "on-stop", "requeue",
              NULL);
    open_engine(f);
    int64_t a = submit_ok(f, "\"profile\": \"2g.12gb\", \"seconds\": 600", NULL);
    int64_t b = submit_ok(f, "\"profile\": \"2g.12gb\", \"seconds\": 600",
                          "\"on_interrupt\": \"fail\"");
    wait_state(f, a, "running");
    wait_state(f, b, "running");
    ms_error e = {0};
    assert_int_equal(md_engine_stop(f->e, &e), MS_OK);
    int64_t id;
    assert_int_equal(submit_json(f, "\"profile\": \"1g.6gb\", \"seconds\": 1", NULL, &id),
                     MD_ENGINE_STOPPING);
    assert_string_equal(state_of(f, a), "queued");
    assert_string_equal(state_of(f, b), "failed");
    md_engine_close(f->e);
    f->e = NULL;
    check_no_instance_left(f);
}

/* SQLite's own system calls (its unix VFS's table), made to fail with ENOSPC on demand: the
 * engine's store then fails on every write as on a full disk, reads still working. */
static volatile int disk_full;
static sqlite3_syscall_ptr real_write, real_pwrite, real_pwrite64;

static ssize_t full_write(int fd, const void *b, size_t n)
{
    if (disk_full)
        return errno = ENOSPC, -1;
    return ((ssize_t(*)(int, const void *, size_t))real_write)(fd, b, n);
}

static ssize_t full_pwrite(int fd, const void *b, size_t n, off_t at)
{
    if (disk_full)
        return errno = ENOSPC, -1;
    return ((ssize_t(*)(int, const void *, size_t, off_t))real_pwrite)(fd, b, n, at);
}

static ssize_t full_pwrite64(int fd, const void *b, size_t n, off_t at)
{
    if (disk_full)
        return errno = ENOSPC, -1;
    return ((ssize_t(*)(int, const void *, size_t, off_t))real_pwrite64)(fd, b, n, at);
}

static void hook_writes(bool on)
{
    sqlite3_vfs *v = sqlite3_vfs_find(NULL);
    if (on) {
        real_write = v->xGetSystemCall(v, "write");
        real_pwrite = v->xGetSystemCall(v, "pwrite");
        real_pwrite64 = v->xGetSystemCall(v, "pwrite64");
    }
    v->xSetSystemCall(v, "write", on ? (sqlite3_syscall_ptr)full_write : real_write);
    v->xSetSystemCall(v, "pwrite", on ? (sqlite3_syscall_ptr)full_pwrite : real_pwrite);
    v->xSetSystemCall(v, "pwrite64", on ? (sqlite3_syscall_ptr)full_pwrite64 : real_pwrite64);
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t count_lines(const char *path, const char *needle)
{
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char line[4096];
    size_t n = 0;
    while (fgets(line, sizeof line, in))
        n += strstr(line, needle) != NULL;
    fclose(in);
    return n;
}

typedef struct stopper {
    md_engine *e;
    ms_error err;
    int rc;
    volatile bool done;
} stopper;

static void *stop_thread(void *arg)
{
    stopper *s = arg;
    s->rc = md_engine_stop(s->e, &s->err);
    s->done = true;
    return NULL;
}

typedef struct canceller {
    md_engine *e;
    int64_t id;
    volatile bool done;
} canceller;

static void *cancel_thread(void *arg)
{
    canceller *c = arg;
    json_t *job = NULL;
    ms_error err = {0};
    md_engine_cancel(c->e, c->id, &ROOT_ACTOR, &job, &err);
    json_decref(job);
    c->done = true;
    return NULL;
}

/* stderr (the engine's log) into path; returns the saved stderr for unredirect. */
static int redirect_log(const char *path)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, STDERR_FILENO);
    close(fd);
    return saved;
}

static void unredirect_log(int saved)
{
    dup2(saved, STDERR_FILENO);
    close(saved);
}

/* The disk fills while a job runs: its end cannot be committed. The engine retries with
 * backoff (a few log lines and little CPU over seconds, not a spin) and, once the disk has
 * room again, ends the job and logs how often the error repeated. Full again: a stop still
 * returns soon after stop-grace, leaving the job to the next start's recovery. */
static void test_store_full_backoff(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "1", "stop-grace", "1", NULL);
    open_engine(f);
    int64_t a = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 0.3", NULL);
    wait_state(f, a, "running");
    char log[400];
    snprintf(log, sizeof log, "%s/engine.log", f->dir);
    int saved = redirect_log(log);
    hook_writes(true);
    disk_full = 1;
    double cpu0 = cpu_seconds();
    pause_ms(3000);
    double cpu = cpu_seconds() - cpu0;
    disk_full = 0;
    wait_state(f, a, "done");
    /* The summary follows the commit: logged once the engine acts on the end. */
    for (int i = 0; i < 6000 && count_lines(log, "summary=recovered") == 0; i++)
        pause_ms(10);
    unredirect_log(saved);
    size_t failed = count_lines(log, "event=job.end_failed error=");
    fprintf(stderr, "job.end_failed lines: %zu, cpu %.3f s in 3 s\n", failed, cpu);
    assert_true(failed >= 1 && failed <= 20);
    assert_true(cpu < 1.5);
    assert_int_equal(count_lines(log, "summary=recovered"), 1);
    assert_int_equal(count_lines(log, "repeated=0 "), 0); /* it was tried again meanwhile */

    int64_t b = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 0.3", NULL);
    wait_state(f, b, "running");
    saved = redirect_log(log);
    disk_full = 1;
    /* A cancel waiting for b's end, which never comes, returns with the stop. */
    canceller c = {.e = f->e, .id = b};
    stopper s = {.e = f->e};
    pthread_t ct, t;
    assert_int_equal(pthread_create(&ct, NULL, cancel_thread, &c), 0);
    pause_ms(500);
    assert_false(c.done);
    assert_int_equal(pthread_create(&t, NULL, stop_thread, &s), 0);
    for (int i = 0; i < 1000 && !(s.done && c.done); i++) /* a hang guard: stop-grace is 1 s */
        pause_ms(10);
    bool stopped = s.done && c.done;
    if (stopped) {
        pthread_join(t, NULL);
        pthread_join(ct, NULL);
    }
    disk_full = 0;
    hook_writes(false);
    unredirect_log(saved);
    assert_true(stopped);
    assert_int_equal(s.rc, MS_EIO);
    assert_non_null(strstr(s.err.msg, "left running"));
    assert_int_equal(count_lines(log, "event=engine.stop_abandoned jobs=1"), 1);
    md_engine_close(f->e);
    f->e = NULL;
    /* The store says it still runs: the next start interrupts it and runs it again. */
    open_engine(f);
    wait_state(f, b, "done");
}

/* The crash test's child: no cmocka here (a failure must not run the parent's tests in
 * the child); exits 1 on any error, else is SIGKILLed mid-run. */
static void crash_child(fixture *f, size_t n)
{
    ms_error e = {0};
    if (md_store_open(f->db, &f->c.model, &f->st, &e) || md_engine_open(&f->c, f->st, &f->e, &e))
        _exit(1);
    for (size_t i = 0; i < n; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"name\": \"c\", \"command\": [\"true\"], %s}", SIZES[i % 6]);
        child_submit(f, text);
    }
    for (int i = 0; i < 12000; i++) { /* mid-run: some done, some still running */
        md_engine_metrics m;
        if (md_engine_metrics_snapshot(f->e, &m, &e) != MD_ENGINE_OK)
            _exit(1);
        if (m.jobs[MD_JOB_DONE] >= 2 && m.jobs[MD_JOB_RUNNING] >= 1)
            raise(SIGKILL);
        pause_ms(2);
    }
    _exit(1);
}

/* A child process runs the engine and is SIGKILLed mid-run; the parent reopens the same
 * database: every job completes exactly once, with its full history. */
static void test_crash_recovery(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "H100-80GB", "gpus", "1", "time-scale", "50", NULL);
    size_t n = 12;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        crash_child(f, n);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    open_engine(f);
    wait_count(f->e, MD_JOB_DONE, n);
    stop_engine(f);
    check_all_done(f, n);
    check_no_instance_left(f);
    /* The crash interrupted at least one run: some job started twice. */
    md_job *jobs;
    size_t got;
    ms_error e = {0};
    assert_int_equal(md_store_list_jobs(f->st, -1, &jobs, &got, &e), MS_OK);
    int retried = 0;
    for (size_t i = 0; i < got; i++)
        retried += jobs[i].attempts > 1;
    md_store_free_jobs(jobs, got);
    assert_true(retried > 0);
}

static const char *alloc_text(md_engine *e, int64_t slurm_id, const char *field, char *buf,
                              size_t len)
{
    json_t *a;
    ms_error err = {0};
    assert_int_equal(md_engine_alloc_get(e, slurm_id, &a, &err), MD_ENGINE_OK);
    snprintf(buf, len, "%s", json_string_value(json_object_get(a, field)));
    json_decref(a);
    return buf;
}

static void allocate(fixture *f, int64_t slurm_id, const char *profile)
{
    char text[128];
    snprintf(text, sizeof text, "{\"name\": \"a\", \"slurm_job_id\": %lld, \"profile\": \"%s\"}",
             (long long)slurm_id, profile);
    md_job_spec s;
    json_t *a;
    ms_error e = {0};
    assert_int_equal(md_job_spec_parse(text, strlen(text), &f->c.model, &s, &e), MS_OK);
    assert_int_equal(md_engine_alloc_step(f->e, &s, &f->owner, 0, &a, &e), MD_ENGINE_OK);
    json_decref(a);
}

/* A Slurm allocation held through two restarts of a sim engine: nothing survives a sim
 * process, so its instance is made again, and the sim numbers its MIG UUIDs afresh in each
 * process: here the allocation's was the second instance made, its remake the first, so
 * the UUID differs from the one the job keeps (the one it was told). The engine owns the
 * instance by what the backend made (the GPU view shows it), not by the job's UUID: once
 * released, the stop destroys it and the store has no instance left live. */
static void test_sim_allocation_restart(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A100-40GB", "gpus", "1", NULL);
    open_engine(f);
    wait_state(f, submit_ok(f, "\"profile\": \"1g.10gb\", \"seconds\": 1", NULL), "done");
    allocate(f, 77, "3g.20gb");
    wait_count(f->e, MD_JOB_RUNNING, 1);
    char told[96], now[96];
    alloc_text(f->e, 77, "mig_uuid", told, sizeof told);
    for (int r = 0; r < 2; r++) {
        stop_engine(f);
        open_engine(f);
    }
    assert_string_equal(alloc_text(f->e, 77, "state", now, sizeof now), "running");
    assert_string_equal(alloc_text(f->e, 77, "mig_uuid", now, sizeof now), told);
    ms_error e = {0};
    json_t *gpus, *a;
    assert_int_equal(md_engine_gpus(f->e, &gpus, &e), MD_ENGINE_OK);
    json_t *insts = json_object_get(json_array_get(json_object_get(gpus, "gpus"), 0), "instances");
    assert_int_equal(json_array_size(insts), 1);
    const char *held = json_string_value(json_object_get(json_array_get(insts, 0), "mig_uuid"));
    assert_non_null(held);
    assert_string_not_equal(held, told);
    json_decref(gpus);
    assert_int_equal(md_engine_alloc_release(f->e, 77, -1, &a, &e), MD_ENGINE_OK);
    json_decref(a);
    md_engine_metrics m;
    assert_int_equal(md_engine_metrics_snapshot(f->e, &m, &e), MD_ENGINE_OK);
    uint64_t destroyed = m.destructions_total;
    assert_int_equal(md_engine_stop(f->e, &e), MS_OK);
    assert_int_equal(md_engine_metrics_snapshot(f->e, &m, &e), MD_ENGINE_OK);
    assert_int_equal(m.destructions_total, destroyed + 1);
    stop_engine(f);
    check_no_instance_left(f);
}

static int hook_calls;
static void count_hook(void *ctx)
{
    (void)ctx;
    hook_calls++;
}

static bool comment_pending(md_engine *e, int64_t slurm_id)
{
    json_t *a;
    ms_error err = {0};
    assert_int_equal(md_engine_alloc_get(e, slurm_id, &a, &err), MD_ENGINE_OK);
    json_t *v = json_object_get(a, "comment_pending");
    assert_true(json_is_boolean(v));
    bool pending = json_is_true(v);
    json_decref(a);
    return pending;
}

/* With AdminComments on, a placed allocation (or one running when they are turned on) is
 * taken once for its comment and shown not yet ready (its tasks wait) until the comment
 * was tried, or for MD_ENGINE_COMMENT_WAIT at most; with them off it is ready at once and
 * nothing is kept for Slurm. */
static void test_allocation_waits_for_comment(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A100-40GB", "gpus", "2", NULL);
    open_engine(f);
    /* Running before comments are on (recovered at open): taken when they are. */
    allocate(f, 80, "1g.5gb");
    wait_count(f->e, MD_JOB_RUNNING, 1);
    assert_false(comment_pending(f->e, 80));
    hook_calls = 0;
    md_engine_slurm_hook(f->e, count_hook, NULL, true);
    assert_int_equal(hook_calls, 1);
    assert_true(comment_pending(f->e, 80));
    md_engine_slurm_view v;
    ms_error e = {0};
    assert_int_equal(md_engine_slurm_take(f->e, &v, &e), MS_OK);
    assert_int_equal(v.nplaced, 1);
    assert_int_equal(v.placed[0].slurm_job_id, 80);
    free(v.placed);
    assert_true(md_engine_slurm_commented(f->e, 80));

    allocate(f, 81, "3g.20gb");
    wait_count(f->e, MD_JOB_RUNNING, 2);
    assert_true(hook_calls > 1);
    assert_true(comment_pending(f->e, 81));
    assert_int_equal(md_engine_slurm_take(f->e, &v, &e), MS_OK);
    assert_int_equal(v.nplaced, 1);
    assert_int_equal(v.placed[0].slurm_job_id, 81);
    assert_string_equal(v.placed[0].profile, "3g.20gb");
    char uuid[96];
    assert_string_equal(v.placed[0].mig_uuid, alloc_text(f->e, 81, "mig_uuid", uuid, sizeof uuid));
    free(v.placed);
    assert_int_equal(md_engine_slurm_take(f->e, &v, &e), MS_OK);
    assert_int_equal(v.nplaced, 0); /* told once */
    free(v.placed);
    assert_true(comment_pending(f->e, 81));
    assert_true(md_engine_slurm_commented(f->e, 81));
    assert_false(comment_pending(f->e, 81));
    assert_false(md_engine_slurm_commented(f->e, 82)); /* none runs */

    /* Never told (the agent stuck on Slurm): ready once the wait is over. */
    allocate(f, 82, "3g.20gb");
    wait_count(f->e, MD_JOB_RUNNING, 3);
    assert_int_equal(md_engine_slurm_take(f->e, &v, &e), MS_OK);
    assert_int_equal(v.nplaced, 1);
    free(v.placed);
    while (comment_pending(f->e, 82))
        usleep(100 * 1000);
    json_t *a;
    assert_int_equal(md_engine_alloc_release(f->e, 82, -1, &a, &e), MD_ENGINE_OK);
    json_decref(a);
    assert_false(md_engine_slurm_commented(f->e, 82)); /* released: not tried again */

    /* Comments off: ready at once, nothing kept. */
    md_engine_slurm_hook(f->e, count_hook, NULL, false);
    allocate(f, 83, "1g.5gb");
    wait_count(f->e, MD_JOB_RUNNING, 3);
    assert_false(comment_pending(f->e, 83));
    assert_int_equal(md_engine_slurm_take(f->e, &v, &e), MS_OK);
    assert_int_equal(v.nplaced, 0);
    free(v.placed);
    md_engine_slurm_hook(f->e, NULL, NULL, false);
    stop_engine(f);
}

typedef struct submitter {
    fixture *f;
    int n;
    int64_t ids[64];
} submitter;

static void *submit_many(void *arg)
{
    submitter *s = arg;
    for (int i = 0; i < s->n; i++)
        s->ids[i] = submit_ok(s->f, "\"profile\": \"7g.80gb\", \"seconds\": 1000", NULL);
    return NULL;
}

/* Eight threads submit at once: each submission is durable and counted once, ids are
 * distinct, and the queue serves them in id order. */
static void test_group_commit(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "H100-80GB", "gpus", "1", "time-scale", "1", NULL);
    open_engine(f);
    /* A job holds the GPU while the others come, so that every one of them is queued (its
     * submitter has returned) before the next start: submissions racing with a start may
     * reach the queue in any order. */
    int64_t blocker = submit_ok(f, "\"profile\": \"7g.80gb\", \"seconds\": 1000", NULL);
    wait_state(f, blocker, "running");
    enum { T = 8, N = 40 };
    submitter s[T];
    pthread_t th[T];
    for (int t = 0; t < T; t++) {
        s[t] = (submitter){.f = f, .n = N};
        assert_int_equal(pthread_create(&th[t], NULL, submit_many, &s[t]), 0);
    }
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    int64_t seen[T * N];
    int k = 0;
    for (int t = 0; t < T; t++)
        for (int i = 0; i < N; i++) {
            for (int q = 0; q < k; q++)
                assert_true(seen[q] != s[t].ids[i]);
            seen[k++] = s[t].ids[i];
        }
    ms_error e = {0};
    json_t *gone;
    assert_int_equal(md_engine_cancel(f->e, blocker, &ROOT_ACTOR, &gone, &e), MD_ENGINE_OK);
    json_decref(gone);
    wait_count(f->e, MD_JOB_RUNNING, 1);
    md_engine_metrics m;
    assert_int_equal(md_engine_metrics_snapshot(f->e, &m, &e), MD_ENGINE_OK);
    assert_int_equal(m.submitted_total, T * N + 1);
    assert_int_equal(m.jobs[MD_JOB_QUEUED] + m.jobs[MD_JOB_RUNNING], T * N);
    /* FIFO: the job running is the lowest id after the blocker's. */
    json_t *jobs;
    md_store_job_query q = {.limit = 1000, .states = MD_STORE_STATE(MD_JOB_RUNNING)};
    int64_t next;
    assert_int_equal(md_engine_jobs(f->e, &q, &ROOT_ACTOR, &jobs, &next, &e), MD_ENGINE_OK);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(json_object_get(jobs, "jobs"), 0), "id")),
        blocker + 1);
    json_decref(jobs);
    assert_int_equal(count_state(f->e, MD_JOB_QUEUED), T * N - 1);
}

/* Batch mode: batches of 8 planned by search and run in plan order: every job on the
 * instance the plan gave it (GPU, profile, slots), the jobs of one instance in planned
 * order, the running plan saved. */
static void test_batch_plan_order(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A100-40GB", "gpus", "2", "mode", "batch", "batch-size", "8",
              "batch-period", "1000", NULL);
    open_engine(f);
    size_t n = 16;
    for (size_t i = 0; i < n; i++) {
        snprintf(f->job_name, sizeof f->job_name, "job%zu", i + 1); /* the plan's task names */
        submit_ok(f,
                  i % 4 == 3 ? "\"profile\": \"2g.10gb\", \"seconds\": 7"
                  : i % 2    ? "\"times\": {\"1\": 30, \"2\": 16, \"3\": 11, \"4\": 9, \"7\": 6}"
                             : "\"times\": {\"1\": 12, \"2\": 7, \"3\": 5, \"7\": 3}",
                  NULL);
    }
    wait_count(f->e, MD_JOB_DONE, n);
    char *text;
    ms_error e = {0};
    assert_int_equal(md_engine_plan(f->e, &text, &e), MD_ENGINE_OK);
    stop_engine(f);
    check_all_done(f, n);
    check_no_instance_left(f);
    ms_schedule *plan;
    if (ms_schedule_parse_json(text, strlen(text), "plan", &f->c.model, &plan, &e))
        fail_msg("%s", e.msg);
    /* the second batch and what of the first had not ended when it joined */
    assert_true(plan->ntasks >= 8 && plan->ntasks <= (int)n);
    char *saved;
    int64_t id;
    assert_int_equal(md_store_latest_plan(f->st, &id, &saved, &e), MS_OK);
    assert_string_equal(saved, text); /* the store holds the running plan */
    free(saved);
    free(text);
    md_job *jobs;
    size_t got;
    assert_int_equal(md_store_list_jobs(f->st, -1, &jobs, &got, &e), MS_OK);
    for (int t = 0; t < plan->ntasks; t++) {
        const ms_sched_task *a = &plan->task[t];
        const ms_sched_instance *in = &plan->inst[a->instance];
        const md_job *ja = &jobs[atoi(a->name + 3) - 1]; /* task "jobK": job K */
        assert_string_equal(ja->spec.name, a->name);
        assert_int_equal(ja->gpu, in->gpu);
        assert_int_equal(ja->placement.profile, in->profile);
        assert_int_equal(ja->placement.start, in->start_slot);
        for (int u = 0; u < plan->ntasks; u++) {
            const ms_sched_task *b = &plan->task[u];
            if (b->instance == a->instance && a->start < b->start)
                assert_true(ja->ended <= jobs[atoi(b->name + 3) - 1].started);
        }
    }
    md_store_free_jobs(jobs, got);
    ms_schedule_free(plan);
}

/* Two batches joined with the overlap concatenation: a long job on a 1-slice instance
 * (slower on larger ones) and three short ones, then four short ones. The second batch
 * starts beside the long job, not after it, in the plan and in fact; the joint plan
 * validates and is what md_engine_plan (GET /v1/plan) gives and the store holds. */
static void test_batch_overlap(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A100-40GB", "gpus", "1", "mode", "batch", "batch-size", "4",
              "batch-period", "1000", "time-scale", "200", NULL);
    open_engine(f);
    static const char *const LONG = "\"times\": {\"1\": 100, \"2\": 200, \"3\": 200, "
                                    "\"4\": 200, \"7\": 200}";
    static const char *const SHORT = "\"times\": {\"1\": 10, \"2\": 10, \"3\": 20, "
                                     "\"4\": 20, \"7\": 20}";
    int64_t long_id = submit_ok(f, LONG, NULL);
    for (int i = 0; i < 7; i++)
        submit_ok(f, SHORT, NULL);
    wait_count(f->e, MD_JOB_DONE, 8);
    char *text;
    ms_error e = {0};
    assert_int_equal(md_engine_plan(f->e, &text, &e), MD_ENGINE_OK);
    stop_engine(f);
    check_all_done(f, 8);
    check_no_instance_left(f);
    ms_schedule *plan;
    if (ms_schedule_parse_json(text, strlen(text), "plan", &f->c.model, &plan, &e))
        fail_msg("%s", e.msg);
    char *saved;
    int64_t id;
    assert_int_equal(md_store_latest_plan(f->st, &id, &saved, &e), MS_OK);
    assert_string_equal(saved, text);
    free(saved);
    free(text);
    /* The joint plan validates on the jobs' times. What had finished when the second batch
     * joined is no longer in it; the rest keeps its order: the long job is index 0, the
     * second batch the last four. */
    int njobs = 0;
    for (int t = 0; t < plan->ntasks; t++)
        njobs = plan->task[t].index >= njobs ? plan->task[t].index + 1 : njobs;
    assert_true(njobs >= 5 && njobs == plan->ntasks);
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < njobs; i++) {
        double t[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            t[s] = i == 0 ? (s == 1 ? 100 : 200) : (s <= 2 ? 10 : 20);
        assert_int_equal(ms_workload_add(w, "j", t, NULL, NULL, &e), MS_OK);
    }
    ms_validation v = {0};
    if (ms_schedule_validate(plan, w, &v))
        fail_msg("joint plan invalid: %s", v.v[0].msg);
    double long_end = 0, second_start = INFINITY;
    for (int t = 0; t < plan->ntasks; t++) {
        if (plan->task[t].index == 0)
            long_end = plan->task[t].end;
        else if (plan->task[t].index >= njobs - 4)
            second_start = fmin(second_start, plan->task[t].start);
    }
    assert_true(second_start < long_end);
    /* In fact too: a job of the second batch started before the long job ended. */
    md_job *jobs;
    size_t got;
    assert_int_equal(md_store_list_jobs(f->st, -1, &jobs, &got, &e), MS_OK);
    assert_int_equal(got, 8);
    double real_second = INFINITY, real_long_end = 0;
    for (size_t i = 0; i < got; i++) {
        if (jobs[i].id == long_id)
            real_long_end = jobs[i].ended;
        else if (jobs[i].id >= long_id + 4)
            real_second = fmin(real_second, jobs[i].started);
    }
    assert_true(real_second < real_long_end);
    md_store_free_jobs(jobs, got);
    ms_validation_fini(&v);
    ms_workload_free(w);
    ms_schedule_free(plan);
}

/* A daemon running for months: forty batches one after another, each joined once the
 * last has finished. The running plan holds only what is not done (the batch just joined,
 * and instances of earlier ones still alive with no task left), its live view not even
 * the batch once it has ended, and every stored plan is as small: the plans table grows
 * linearly with the batches. */
static void test_batch_prune(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "mode", "batch", "batch-size", "3",
              "batch-period", "1000", "time-scale", "2000", NULL);
    open_engine(f);
    enum { BATCHES = 40, SIZE = 3 };
    for (int k = 0; k < BATCHES; k++) {
        for (int j = 0; j < SIZE; j++)
            submit_ok(f, "\"times\": {\"1\": 8, \"2\": 5, \"4\": 3}", NULL);
        wait_count(f->e, MD_JOB_DONE, (size_t)(k + 1) * SIZE);
        char *text;
        ms_error e = {0};
        assert_int_equal(md_engine_plan(f->e, &text, &e), MD_ENGINE_OK);
        ms_schedule *plan;
        if (ms_schedule_parse_json(text, strlen(text), "plan", &f->c.model, &plan, &e))
            fail_msg("%s", e.msg);
        free(text);
        /* the batch's tasks; its instances and at most one alive per slot from before */
        assert_int_equal(plan->ntasks, SIZE);
        assert_true(plan->ninst <= SIZE + f->c.model.slots);
        ms_schedule_free(plan);
        /* The live view leaves out the ended tasks the running plan keeps until a join. */
        json_t *live;
        assert_int_equal(md_engine_plan_live(f->e, &live, &e), MD_ENGINE_OK);
        assert_int_equal(json_array_size(json_object_get(live, "tasks")), 0);
        assert_true(json_real_value(json_object_get(json_object_get(live, "clock"), "t0")) > 0);
        assert_string_equal(json_string_value(json_object_get(live, "mode")), "batch");
        json_decref(live);
    }
    stop_engine(f);
    check_all_done(f, BATCHES * SIZE);
    check_no_instance_left(f);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT count(*), min(length(schedule)), "
                                        "max(length(schedule)) FROM plans",
                                        -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(q, 0), BATCHES);
    /* every row holds one batch's worth: unpruned, the last would hold all forty */
    assert_true(sqlite3_column_int(q, 2) <= 3 * sqlite3_column_int(q, 1));
    sqlite3_finalize(q);
    sqlite3_close(db);
}

/* A batch falls due by time too: three jobs, far fewer than batch-size, still run. */
static void test_batch_period(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "mode", "batch", "batch-size", "100",
              "batch-period", "0.2", NULL);
    open_engine(f);
    for (int i = 0; i < 3; i++)
        submit_ok(f, "\"times\": {\"1\": 10, \"2\": 6, \"4\": 4}", NULL);
    wait_count(f->e, MD_JOB_DONE, 3);
    stop_engine(f);
    check_all_done(f, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_online_all_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_times_job_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocation_waits_for_comment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_owners, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_requeue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_full_backoff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_recovery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_plan_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_period, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_prune, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sim_allocation_restart, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
