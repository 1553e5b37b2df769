/* engine_support.c: what the engine's tests share: a fixture with a temporary database,
 * configuration, submission, waiting for states, and checks on the store's histories. */
#include "engine_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    test_temp_dir("engine", f->dir, sizeof f->dir);
    snprintf(f->db, sizeof f->db, "%s/jobs.db", f->dir);
    *state = f;
    return 0;
}

int teardown(void **state)
{
    fixture *f = *state;
    if (f->e) /* closed without a stop: jobs still running stay as they are */
        md_engine_close(f->e);
    if (f->st)
        md_store_close(f->st);
    test_remove_dir(f->dir);
    free(f);
    return 0;
}

void set(md_config *c, const char *key, const char *value)
{
    ms_error e = {0};
    char where[64];
    snprintf(where, sizeof where, "--%s", key);
    if (md_config_set(c, key, value, where, &e))
        fail_msg("%s", e.msg);
}

const md_engine_actor ROOT_ACTOR = {.who = {.uid = 0, .gid = 0, .name = "root"}, .admin = true};

/* Configures backend (key, value pairs follow, NULL-ended) on the fixture's database;
 * sim runs at time-scale 1000 and root's jobs are allowed unless a pair says otherwise. */
void configure(fixture *f, const char *backend, ...)
{
    md_config_defaults(&f->c);
    f->owner = ROOT_ACTOR.who;
    set(&f->c, "backend", backend);
    set(&f->c, "db", f->db);
    ms_error e = {0};
    /* The default scale, set as a file would so that a pair below may override it. */
    if ((!strcmp(backend, "sim") && md_config_set(&f->c, "time-scale", "1000", "test:1", &e)) ||
        md_config_set(&f->c, "allow-root-jobs", "true", "test:2", &e))
        fail_msg("%s", e.msg);
    va_list ap;
    va_start(ap, backend);
    for (const char *k; (k = va_arg(ap, const char *));)
        set(&f->c, k, va_arg(ap, const char *));
    va_end(ap);
    if (md_config_check(&f->c, &e))
        fail_msg("%s", e.msg);
}

void open_engine(fixture *f)
{
    ms_error e = {0};
    if (!f->st && md_store_open(f->db, &f->c.model, &f->st, &e))
        fail_msg("%s", e.msg);
    if (md_engine_open(&f->c, f->st, &f->e, &e))
        fail_msg("%s", e.msg);
}

void stop_engine(fixture *f)
{
    ms_error e = {0};
    assert_int_equal(md_engine_stop(f->e, &e), MS_OK);
    md_engine_close(f->e);
    f->e = NULL;
}

/* Submits {"name", "command", sizing...}; returns the outcome and the id in *id. */
md_engine_outcome submit_cmd(fixture *f, const char *command, const char *sizing, const char *extra,
                             int64_t *id)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"name\": \"%s\", \"command\": %s, %s%s%s}",
             f->job_name[0] ? f->job_name : "j", command, sizing, extra ? ", " : "",
             extra ? extra : "");
    md_job_spec s;
    ms_error e = {0};
    if (md_job_spec_parse(text, strlen(text), &f->c.model, &s, &e))
        fail_msg("%s", e.msg);
    json_t *job = NULL;
    md_engine_outcome o = md_engine_submit(f->e, &s, &f->owner, &job, &e);
    assert_null(s.name); /* the engine took the spec, whatever the outcome */
    assert_int_equal(s.argc, 0);
    if (o == MD_ENGINE_OK) {
        assert_non_null(job);
        assert_string_equal(json_string_value(json_object_get(job, "state")), "queued");
        *id = json_integer_value(json_object_get(job, "id"));
    } else {
        assert_null(job);
        assert_true(e.msg[0] != '\0');
    }
    json_decref(job);
    return o;
}

md_engine_outcome submit_json(fixture *f, const char *sizing, const char *extra, int64_t *id)
{
    return submit_cmd(f, "[\"true\"]", sizing, extra, id);
}

int64_t submit_cmd_ok(fixture *f, const char *command, const char *sizing, const char *extra)
{
    int64_t id = 0;
    assert_int_equal(submit_cmd(f, command, sizing, extra, &id), MD_ENGINE_OK);
    assert_true(id > 0);
    return id;
}

int64_t submit_ok(fixture *f, const char *sizing, const char *extra)
{
    return submit_cmd_ok(f, "[\"true\"]", sizing, extra);
}

void child_submit(fixture *f, const char *text)
{
    md_job_spec s;
    json_t *job;
    ms_error e = {0};
    if (md_job_spec_parse(text, strlen(text), &f->c.model, &s, &e) ||
        md_engine_submit(f->e, &s, &f->owner, &job, &e) != MD_ENGINE_OK)
        _exit(1);
    json_decref(job);
}

const char *state_of(fixture *f, int64_t id)
{
    static char buf[32];
    json_t *job;
    ms_error e = {0};
    assert_int_equal(md_engine_job(f->e, id, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
    snprintf(buf, sizeof buf, "%s", json_string_value(json_object_get(job, "state")));
    json_decref(job);
    return buf;
}

size_t count_state(md_engine *e, int state)
{
    md_store_job_query q = {.limit = 1000, .states = state < 0 ? 0 : MD_STORE_STATE(state)};
    size_t n = 0;
    do {
        json_t *jobs;
        ms_error err = {0};
        assert_int_equal(md_engine_jobs(e, &q, &ROOT_ACTOR, &jobs, &q.after, &err), MD_ENGINE_OK);
        n += json_array_size(json_object_get(jobs, "jobs"));
        json_decref(jobs);
    } while (q.after);
    return n;
}

void pause_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits (at most a minute: a generous bound for a loaded machine) until n jobs are in
 * `state`. */
void wait_count(md_engine *e, int state, size_t n)
{
    for (int i = 0; i < 12000; i++) {
        if (count_state(e, state) == n)
            return;
        pause_ms(5);
    }
    fail_msg("%zu jobs never reached %s (%zu did)", n, md_job_state_name(state),
             count_state(e, state));
}

void wait_state(fixture *f, int64_t id, const char *state)
{
    for (int i = 0; i < 12000; i++) {
        if (!strcmp(state_of(f, id), state))
            return;
        pause_ms(5);
    }
    fail_msg("job %lld never became %s (it is %s)", (long long)id, state, state_of(f, id));
}

/* The job's history replays through the state machine from new and ends in the job's
 * state; returns how many times it started and how many finish transitions it has. */
void check_history(md_store *st, const md_job *j, int *starts, int *finishes)
{
    md_job_transition *t;
    size_t n;
    ms_error e = {0};
    assert_int_equal(md_store_history(st, j->id, &t, &n, &e), MS_OK);
    md_job_spec none = {.profile = 0, .on_interrupt = j->spec.on_interrupt};
    md_job r;
    md_job_init(&r, &none);
    r.id = j->id;
    *starts = *finishes = 0;
    ms_placement at = {0, 0};
    for (size_t i = 0; i < n; i++) {
        md_job_transition u;
        assert_int_equal(t[i].from, r.state);
        int rc = t[i].event == MD_JOB_EV_SUBMIT  ? md_job_submit(&r, t[i].at, &u, &e)
                 : t[i].event == MD_JOB_EV_START ? md_job_start(&r, t[i].at, 0, at, "", &u, &e)
                 : t[i].event == MD_JOB_EV_FINISH
                     ? md_job_finish(&r, t[i].at, t[i].to == MD_JOB_DONE ? 0 : 1, &u, &e)
                 : t[i].event == MD_JOB_EV_INTERRUPT ? md_job_interrupt(&r, t[i].at, &u, &e)
                                                     : md_job_cancel(&r, t[i].at, &u, &e);
        assert_int_equal(rc, MS_OK);
        assert_int_equal(u.to, t[i].to);
        *starts += t[i].event == MD_JOB_EV_START;
        *finishes += t[i].event == MD_JOB_EV_FINISH;
    }
    assert_int_equal(r.state, j->state);
    md_job_free(&r);
    free(t);
}

/* Every job done, finished once (started once per attempt), and no two jobs ever ran at
 * once on overlapping slots of one GPU. */
void check_all_done(fixture *f, size_t n)
{
    md_job *jobs;
    size_t got;
    ms_error e = {0};
    assert_int_equal(md_store_list_jobs(f->st, -1, &jobs, &got, &e), MS_OK);
    assert_int_equal(got, n);
    for (size_t i = 0; i < got; i++) {
        int starts, finishes;
        assert_int_equal(jobs[i].state, MD_JOB_DONE);
        check_history(f->st, &jobs[i], &starts, &finishes);
        assert_int_equal(finishes, 1);
        assert_int_equal(starts, jobs[i].attempts);
        assert_true(jobs[i].started <= jobs[i].ended);
        for (size_t k = 0; k < i; k++) {
            const md_job *a = &jobs[i], *b = &jobs[k];
            if (a->gpu != b->gpu || !(ms_gpu_slot_mask(&f->c.model, a->placement) &
                                      ms_gpu_slot_mask(&f->c.model, b->placement)))
                continue;
            if (!(a->ended <= b->started || b->ended <= a->started))
                fail_msg("jobs %lld and %lld overlap on GPU %d", (long long)a->id, (long long)b->id,
                         a->gpu);
        }
    }
    md_store_free_jobs(jobs, got);
}

void check_no_instance_left(fixture *f)
{
    md_store_instance *live;
    size_t n;
    ms_error e = {0};
    assert_int_equal(md_store_live_instances(f->st, &live, &n, &e), MS_OK);
    assert_int_equal(n, 0);
    free(live);
}
