/* test_daemon_job.c: migschedd's job JSON (every bad case gets its precise error) and the
 * state machine (every legal transition, every illegal one refused with the job intact). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "support.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static int parse(const char *text, md_job_spec *s, ms_error *e)
{
    return md_job_spec_parse(text, strlen(text), a100(), s, e);
}

static void test_parse_profile(void **state)
{
    (void)state;
    md_job_spec s;
    ms_error e = {0};
    assert_int_equal(parse("{\"name\": \"train\", \"command\": [\"python3\", \"t.py\"],"
                           " \"cwd\": \"/srv\", \"env\": {\"A\": \"1\", \"B_2\": \"x y\"},"
                           " \"on_interrupt\": \"fail\", \"profile\": \"3g.20gb\","
                           " \"seconds\": 120.5}",
                           &s, &e),
                     MS_OK);
    assert_string_equal(s.name, "train");
    assert_int_equal(s.argc, 2);
    assert_string_equal(s.argv[1], "t.py");
    assert_string_equal(s.cwd, "/srv");
    assert_int_equal(s.nenv, 2);
    assert_string_equal(s.env_keys[1], "B_2");
    assert_string_equal(s.env_values[1], "x y");
    assert_int_equal(s.on_interrupt, MD_ON_INTERRUPT_FAIL);
    assert_string_equal(a100()->profiles[s.profile].name, "3g.20gb");
    assert_true(s.seconds == 120.5);
    md_job_spec_free(&s);

    /* "slices" picks the smallest-memory profile of that size; retry is the default. */
    assert_int_equal(parse("{\"name\": \"n\", \"command\": [\"x\"], \"slices\": 1,"
                           " \"seconds\": 3}",
                           &s, &e),
                     MS_OK);
    assert_string_equal(a100()->profiles[s.profile].name, "1g.5gb");
    assert_int_equal(s.on_interrupt, MD_ON_INTERRUPT_RETRY);
    assert_null(s.cwd);
    md_job_spec_free(&s);
}

/* An allocation: no command, no time, never retried; its spec reads back the same and its
 * record shows the Slurm job id. */
static void test_parse_allocation(void **state)
{
    (void)state;
    md_job_spec s, back;
    ms_error e = {0};
    assert_int_equal(parse("{\"name\": \"slurm-42\", \"slurm_job_id\": 4294967295,"
                           " \"slices\": 3}",
                           &s, &e),
                     MS_OK);
    assert_true(s.slurm_job_id == 4294967295LL);
    assert_int_equal(s.argc, 0);
    assert_true(s.seconds == 0);
    assert_int_equal(s.on_interrupt, MD_ON_INTERRUPT_FAIL);
    assert_string_equal(a100()->profiles[s.profile].name, "3g.20gb");
    json_t *o = md_job_spec_to_json(&s, a100());
    char *text = json_dumps(o, JSON_COMPACT);
    assert_string_equal(text, "{\"name\":\"slurm-42\",\"slurm_job_id\":4294967295,"
                              "\"profile\":\"3g.20gb\"}");
    assert_int_equal(parse(text, &back, &e), MS_OK);
    assert_true(back.slurm_job_id == s.slurm_job_id && back.profile == s.profile);
    free(text);
    json_decref(o);
    md_job_spec_free(&back);
    md_job j;
    md_job_init(&j, &s);
    j.attempts = 1;
    o = md_job_to_json(&j, a100(), true, "/var/log/migschedd");
    assert_true(json_integer_value(json_object_get(o, "slurm_job_id")) == 4294967295LL);
    assert_true(json_is_null(json_object_get(o, "logs"))); /* an allocation runs no command */
    json_decref(o);
    md_job_free(&j);
}

/* "user" names whom an admin submits for: kept beside the spec, never in its JSON (the
 * owner is the job's, not the spec's). */
static void test_parse_user(void **state)
{
    (void)state;
    md_job_spec s;
    ms_error e = {0};
    assert_int_equal(parse("{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1,"
                           " \"seconds\": 1, \"user\": \"bob\"}",
                           &s, &e),
                     MS_OK);
    assert_string_equal(s.user, "bob");
    char *text = md_job_spec_text(&s, a100());
    assert_null(strstr(text, "bob"));
    free(text);
    md_job_spec_free(&s);
    assert_null(s.user);
}

static void test_parse_times_round_trip(void **state)
{
    (void)state;
    const char *text = "{\"name\": \"sweep\", \"command\": [\"./run\"],"
                       " \"times\": {\"1\": 120.0, \"2\": 64.0, \"7\": 20.25}}";
    md_job_spec s, back;
    ms_error e = {0};
    assert_int_equal(parse(text, &s, &e), MS_OK);
    assert_int_equal(s.profile, -1);
    assert_true(s.times[1] == 120 && s.times[2] == 64 && s.times[7] == 20.25);
    assert_true(s.times[3] == 0 && s.times[4] == 0);
    /* Rendered and parsed again: the same spec, the same bytes. */
    json_t *o = md_job_spec_to_json(&s, a100());
    char *t1 = json_dumps(o, JSON_COMPACT);
    assert_int_equal(parse(t1, &back, &e), MS_OK);
    json_t *o2 = md_job_spec_to_json(&back, a100());
    char *t2 = json_dumps(o2, JSON_COMPACT);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    json_decref(o);
    json_decref(o2);
    md_job_spec_free(&s);
    md_job_spec_free(&back);
}

/* Each bad job and a fragment its message must contain. */
static const struct {
    const char *json, *msg;
} BAD[] = {
    {"{\"name\": \"a\", ", "malformed JSON"},
    {"[1]", "must be a JSON object"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"seconds\": 1, \"slices\": 1, \"gpu\": 0}",
     "job: unknown key \"gpu\" (allowed: name, command, cwd, env, on_interrupt, profile, "
     "slices, seconds, times, slurm_job_id, user)"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": 1, \"user\": 0}",
     "user: must be a string"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": 1, \"user\": \"\"}",
     "user: must not be empty"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": 1, \"user\":"
     " \"u234567890123456789012345678901234567890123456789012345678901234\"}",
     "user: longer than 63 bytes"},
    {"{\"name\": \"a\", \"name\": \"b\", \"command\": [\"x\"]}", "malformed JSON"},
    {"{\"command\": [\"x\"], \"slices\": 1, \"seconds\": 1}", "missing field: \"name\""},
    {"{\"name\": \"a\", \"slices\": 1, \"seconds\": 1}", "missing field: \"command\""},
    {"{\"name\": \"a\", \"command\": [\"x\"]}", "missing field: \"profile\" or \"slices\""},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"profile\": \"3g.20gb\"}",
     "missing field: \"seconds\""},
    {"{\"name\": 5, \"command\": [\"x\"], \"slices\": 1, \"seconds\": 1}",
     "name: must be a string"},
    {"{\"name\": \"\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": 1}",
     "name: must not be empty"},
    {"{\"name\": \"a\", \"command\": \"x\", \"slices\": 1, \"seconds\": 1}",
     "command: must be a non-empty array"},
    {"{\"name\": \"a\", \"command\": [], \"slices\": 1, \"seconds\": 1}",
     "command: must be a non-empty array"},
    {"{\"name\": \"a\", \"command\": [\"x\", 3], \"slices\": 1, \"seconds\": 1}",
     "command[1]: must be a string"},
    {"{\"name\": \"a\", \"command\": [\"x\\u0000y\"], \"slices\": 1, \"seconds\": 1}",
     "\\u0000 is not allowed"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"cwd\": \"rel\", \"slices\": 1, \"seconds\": 1}",
     "cwd: must be an absolute path"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"env\": {\"1A\": \"v\"}, \"slices\": 1,"
     " \"seconds\": 1}",
     "env.1A: is not a variable name"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"env\": {\"A\": 1}, \"slices\": 1,"
     " \"seconds\": 1}",
     "env.A: must be a string"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"env\": [], \"slices\": 1, \"seconds\": 1}",
     "env: must be an object"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"on_interrupt\": \"maybe\", \"slices\": 1,"
     " \"seconds\": 1}",
     "on_interrupt: must be \"retry\" or \"fail\""},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"profile\": \"3g.40gb\", \"seconds\": 1}",
     "profile: A100-40GB has no profile \"3g.40gb\" (its profiles: 1g.5gb, 1g.10gb, 2g.10gb, "
     "3g.20gb, 4g.20gb, 7g.40gb)"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 5, \"seconds\": 1}",
     "slices: A100-40GB has no instance of 5 compute slices (its sizes: 1, 2, 3, 4, 7)"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 2.5, \"seconds\": 1}",
     "slices: must be a number of compute slices, one of A100-40GB's sizes (1, 2, 3, 4, 7)"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"profile\": \"1g.5gb\","
     " \"seconds\": 1}",
     "not both"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": -1}",
     "seconds: must be above 0"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": 0}",
     "seconds: must be above 0"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": 2e9}",
     "seconds: is over the ceiling of 1e9 s"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"slices\": 1, \"seconds\": \"5\"}",
     "seconds: must be a number"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {}}", "times: must be a non-empty"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {\"5\": 3}}",
     "times.5: A100-40GB has no instance size \"5\" (sizes: 1, 2, 3, 4, 7)"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {\"two\": 3}}",
     "times.two: A100-40GB has no instance size"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {\"1\": -3}}", "times.1: must be above 0"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {\"1\": 1e10}}",
     "times.1: is over the ceiling"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {\"1\": 3}, \"seconds\": 3}",
     "seconds: goes with"},
    {"{\"name\": \"a\", \"command\": [\"x\"], \"times\": {\"1\": 3}, \"slices\": 1,"
     " \"seconds\": 3}",
     "or \"times\", not both"},
    /* Allocations (slurm_job_id): a name, the id and a size, nothing else. */
    {"{\"name\": \"a\", \"slurm_job_id\": 0, \"slices\": 1}",
     "slurm_job_id: must be an integer 1..4294967295"},
    {"{\"name\": \"a\", \"slurm_job_id\": 4294967296, \"slices\": 1}",
     "slurm_job_id: must be an integer"},
    {"{\"name\": \"a\", \"slurm_job_id\": \"7\", \"slices\": 1}",
     "slurm_job_id: must be an integer"},
    {"{\"name\": \"a\", \"slurm_job_id\": 7}", "missing field: \"profile\" or \"slices\""},
    {"{\"name\": \"a\", \"slurm_job_id\": 7, \"slices\": 1, \"seconds\": 3}",
     "seconds: an allocation (slurm_job_id) takes only"},
    {"{\"name\": \"a\", \"slurm_job_id\": 7, \"slices\": 1, \"command\": [\"x\"]}",
     "command: an allocation"},
    {"{\"name\": \"a\", \"slurm_job_id\": 7, \"slices\": 1, \"profile\": \"1g.5gb\"}", "not both"},
    {"{\"name\": \"a\", \"slurm_job_id\": 7, \"slices\": 6}", "slices: A100-40GB has no"},
    {"{\"slurm_job_id\": 7, \"slices\": 1}", "missing field: \"name\""},
};

static void test_parse_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        md_job_spec s;
        ms_error e = {0};
        int rc = parse(BAD[i].json, &s, &e);
        if (rc != MS_EINVAL || !strstr(e.msg, BAD[i].msg))
            fail_msg("case %zu: rc %d, message \"%s\", expected \"%s\"", i, rc, e.msg, BAD[i].msg);
        assert_null(s.name); /* nothing half-built survives a failure */
    }
}

/* Over each size limit: the body, the name, the arguments, the environment. */
static void test_parse_limits(void **state)
{
    (void)state;
    md_job_spec s;
    ms_error e = {0};
    size_t big = MD_JOB_BODY_MAX + 1;
    char *text = malloc(big + 1);
    memset(text, ' ', big);
    text[big] = '\0';
    assert_int_equal(md_job_spec_parse(text, big, a100(), &s, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "over the limit of 65536"));

    char name[MD_JOB_NAME_MAX + 2];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    snprintf(text, big,
             "{\"name\": \"%s\", \"command\": [\"x\"], \"slices\": 1, "
             "\"seconds\": 1}",
             name);
    assert_int_equal(parse(text, &s, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "name: longer than 128 bytes"));

    size_t at = (size_t)snprintf(text, big,
                                 "{\"name\": \"a\", \"slices\": 1, \"seconds\": 1, "
                                 "\"command\": [");
    for (int i = 0; i <= MD_JOB_ARGS_MAX; i++)
        at += (size_t)snprintf(text + at, big - at, "%s\"a\"", i ? "," : "");
    snprintf(text + at, big - at, "]}");
    assert_int_equal(parse(text, &s, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "command: more than 256 arguments"));

    at = (size_t)snprintf(text, big,
                          "{\"name\": \"a\", \"slices\": 1, \"seconds\": 1, "
                          "\"command\": [\"x\"], \"env\": {");
    for (int i = 0; i <= MD_JOB_ENV_MAX; i++)
        at += (size_t)snprintf(text + at, big - at, "%s\"V%d\": \"\"", i ? "," : "", i);
    snprintf(text + at, big - at, "}}");
    assert_int_equal(parse(text, &s, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "env: more than 128 variables"));
    free(text);
}

static md_job new_job(const char *on_interrupt)
{
    char text[256];
    snprintf(text, sizeof text,
             "{\"name\": \"j\", \"command\": [\"sleep\", \"1\"],"
             " \"on_interrupt\": \"%s\", \"profile\": \"2g.10gb\", \"seconds\": 10}",
             on_interrupt);
    md_job_spec s;
    ms_error e = {0};
    assert_int_equal(parse(text, &s, &e), MS_OK);
    md_job j;
    md_job_init(&j, &s);
    j.id = 7;
    return j;
}

static void test_render(void **state)
{
    (void)state;
    md_job j = new_job("retry");
    md_job_transition t;
    ms_error e = {0};
    assert_int_equal(md_job_submit(&j, 100, &t, &e), MS_OK);
    ms_placement at = {ms_gpu_profile_by_name(a100(), "2g.10gb"), 4};
    assert_int_equal(md_job_start(&j, 101.5, 1, at, "MIG-1234", &t, &e), MS_OK);
    assert_int_equal(md_job_finish(&j, 111.5, 3, &t, &e), MS_OK);
    j.owner = (md_job_owner){.uid = 1001, .gid = 1001, .name = "alice"};
    /* The owner's and admins' view: the spec and the latest attempt's output files. */
    json_t *o = md_job_to_json(&j, a100(), true, "/var/log/migschedd");
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    const char *pub = "{\"id\":7,\"name\":\"j\",\"user\":\"alice\",\"state\":\"failed\","
                      "\"reason\":\"exit status "
                      "3\",\"attempts\":1,\"submitted\":100.0,\"started\":101.5,"
                      "\"ended\":111.5,\"wait_seconds\":1.5,\"gpu\":1,\"profile\":\"2g.10gb\","
                      "\"placement\":{\"start\":4},"
                      "\"mig_uuid\":\"MIG-1234\",\"exit_status\":3,\"slurm_job_id\":null";
    char want[1024];
    snprintf(want, sizeof want,
             "%s,\"spec\":{\"name\":\"j\",\"command\":[\"sleep\",\"1\"],"
             "\"env\":{},\"on_interrupt\":\"retry\",\"profile\":\"2g.10gb\",\"seconds\":10.0},"
             "\"logs\":{\"stdout\":\"/var/log/migschedd/alice/job-7.1.out\","
             "\"stderr\":\"/var/log/migschedd/alice/job-7.1.err\"}}",
             pub);
    assert_string_equal(text, want);
    free(text);
    json_decref(o);
    /* Anyone's view: the public fields only. */
    o = md_job_to_json(&j, a100(), false, "/var/log/migschedd");
    text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    snprintf(want, sizeof want, "%s}", pub);
    assert_string_equal(text, want);
    free(text);
    json_decref(o);
    /* The sim backend writes no output: no log paths; an owner without a name is its uid. */
    j.owner.name[0] = '\0';
    o = md_job_to_json(&j, a100(), true, NULL);
    assert_true(json_is_null(json_object_get(o, "logs")));
    assert_string_equal(json_string_value(json_object_get(o, "user")), "1001");
    json_decref(o);
    md_job_free(&j);

    /* A queued job: every unknown is null. */
    j = new_job("retry");
    assert_int_equal(md_job_submit(&j, 5, &t, &e), MS_OK);
    o = md_job_to_json(&j, a100(), true, "/var/log/migschedd");
    assert_true(json_is_null(json_object_get(o, "logs"))); /* never started */
    assert_true(json_is_null(json_object_get(o, "started")));
    assert_true(json_is_null(json_object_get(o, "gpu")));
    assert_true(json_is_null(json_object_get(o, "placement")));
    assert_true(json_is_null(json_object_get(o, "mig_uuid")));
    assert_true(json_is_null(json_object_get(o, "exit_status")));
    assert_string_equal(json_string_value(json_object_get(o, "profile")), "2g.10gb");
    json_decref(o);
    md_job_free(&j);
}

/* Brings a fresh job to state s by legal events. */
static void drive(md_job *j, md_job_state s)
{
    md_job_transition t;
    ms_error e = {0};
    ms_placement at = {ms_gpu_profile_by_name(a100(), "2g.10gb"), 0};
    if (s == MD_JOB_NEW)
        return;
    assert_int_equal(md_job_submit(j, 1, &t, &e), MS_OK);
    if (s == MD_JOB_QUEUED)
        return;
    if (s == MD_JOB_CANCELLED) {
        assert_int_equal(md_job_cancel(j, 2, &t, &e), MS_OK);
        return;
    }
    assert_int_equal(md_job_start(j, 2, 0, at, "MIG-a", &t, &e), MS_OK);
    if (s != MD_JOB_RUNNING)
        assert_int_equal(md_job_finish(j, 3, s == MD_JOB_DONE ? 0 : 1, &t, &e), MS_OK);
}

/* Applies event ev (or its sole legal form) and returns the status. */
static int apply(md_job *j, md_job_event ev, md_job_transition *t, ms_error *e)
{
    ms_placement at = {ms_gpu_profile_by_name(a100(), "2g.10gb"), 2};
    switch (ev) {
    case MD_JOB_EV_SUBMIT: return md_job_submit(j, 10, t, e);
    case MD_JOB_EV_START: return md_job_start(j, 10, 1, at, "MIG-b", t, e);
    case MD_JOB_EV_FINISH: return md_job_finish(j, 10, 0, t, e);
    case MD_JOB_EV_INTERRUPT: return md_job_interrupt(j, 10, t, e);
    case MD_JOB_EV_CANCEL: return md_job_cancel(j, 10, t, e);
    case MD_JOB_EV_REQUEUE: return md_job_requeue(j, 10, "disk full", 1, t, e);
    }
    return -1;
}

static void assert_unchanged(const md_job *a, const md_job *b)
{
    assert_int_equal(a->state, b->state);
    assert_int_equal(a->attempts, b->attempts);
    assert_int_equal(a->gpu, b->gpu);
    assert_int_equal(a->placement.profile, b->placement.profile);
    assert_int_equal(a->placement.start, b->placement.start);
    assert_string_equal(a->mig_uuid, b->mig_uuid);
    assert_memory_equal(&a->started, &b->started, sizeof a->started);
    assert_memory_equal(&a->ended, &b->ended, sizeof a->ended);
    assert_int_equal(a->has_exit, b->has_exit);
    assert_int_equal(a->exit_status, b->exit_status);
}

/* Every (state, event) pair: the legal ones land where the machine says, the others fail
 * with the job byte for byte unchanged. */
static void test_transition_table(void **state)
{
    (void)state;
    /* Expected target per state and event (-1: illegal); interrupt under retry. */
    static const int next[MD_JOB_NSTATES][6] = {
        [MD_JOB_NEW] = {MD_JOB_QUEUED, -1, -1, -1, -1, -1},
        [MD_JOB_QUEUED] = {-1, MD_JOB_RUNNING, -1, -1, MD_JOB_CANCELLED, -1},
        [MD_JOB_RUNNING] = {-1, -1, MD_JOB_DONE, MD_JOB_QUEUED, MD_JOB_CANCELLED, MD_JOB_QUEUED},
        [MD_JOB_DONE] = {-1, -1, -1, -1, -1, -1},
        [MD_JOB_FAILED] = {-1, -1, -1, -1, -1, -1},
        [MD_JOB_CANCELLED] = {-1, -1, -1, -1, -1, -1},
    };
    int legal = 0;
    for (int s = 0; s < MD_JOB_NSTATES; s++)
        for (int ev = 0; ev < 6; ev++) {
            md_job j = new_job("retry");
            drive(&j, (md_job_state)s);
            md_job before = j;
            md_job_transition t;
            ms_error e = {0};
            int rc = apply(&j, (md_job_event)ev, &t, &e);
            if (next[s][ev] < 0) {
                assert_int_equal(rc, MS_EINVAL);
                assert_non_null(strstr(e.msg, "job 7: cannot"));
                assert_non_null(strstr(e.msg, md_job_state_name((md_job_state)s)));
                assert_unchanged(&before, &j);
            } else {
                legal++;
                assert_int_equal(rc, MS_OK);
                assert_int_equal(j.state, next[s][ev]);
                assert_int_equal(t.from, s);
                assert_int_equal(t.to, next[s][ev]);
                assert_int_equal(t.event, ev);
                assert_int_equal(t.job, 7);
                assert_true(t.at == 10);
            }
            md_job_free(&j);
        }
    assert_int_equal(legal, 7);
}

static void test_interrupt_policies(void **state)
{
    (void)state;
    md_job_transition t;
    ms_error e = {0};
    md_job j = new_job("retry");
    drive(&j, MD_JOB_RUNNING);
    assert_int_equal(md_job_interrupt(&j, 5, &t, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_QUEUED);
    assert_int_equal(j.attempts, 1);
    assert_int_equal(j.gpu, -1);
    assert_int_equal(j.placement.profile, -1);
    assert_string_equal(j.mig_uuid, "");
    assert_true(isnan(j.started));
    /* Requeued, it starts again: a second attempt. */
    assert_int_equal(apply(&j, MD_JOB_EV_START, &t, &e), MS_OK);
    assert_int_equal(j.attempts, 2);
    assert_string_equal(j.mig_uuid, "MIG-b");
    md_job_free(&j);

    j = new_job("fail");
    drive(&j, MD_JOB_RUNNING);
    assert_int_equal(md_job_interrupt(&j, 5, &t, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_FAILED);
    assert_int_equal(t.to, MD_JOB_FAILED);
    assert_true(j.ended == 5);
    assert_false(j.has_exit);
    assert_string_equal(j.reason, "interrupted (on_interrupt fail)");
    assert_string_equal(t.reason, j.reason);
    md_job_free(&j);

    /* A nonzero exit fails the job; exit 0 is done. */
    j = new_job("retry");
    drive(&j, MD_JOB_FAILED);
    assert_int_equal(j.exit_status, 1);
    assert_true(j.has_exit);
    assert_string_equal(j.reason, "exit status 1");
    md_job_free(&j);
}

/* Runs lost to daemon crashes requeue a job under retry until the max-attempts'th, which
 * fails it; each transition carries its reason, and a new start clears it. */
static void test_recover_poison(void **state)
{
    (void)state;
    md_job_transition t;
    ms_error e = {0};
    ms_placement at = {ms_gpu_profile_by_name(a100(), "2g.10gb"), 0};
    md_job j = new_job("retry");
    drive(&j, MD_JOB_RUNNING);
    for (int k = 1; k <= 2; k++) {
        if (k > 1)
            assert_int_equal(md_job_start(&j, 3, 0, at, "MIG-a", &t, &e), MS_OK);
        assert_string_equal(j.reason, "");
        assert_int_equal(md_job_recover(&j, 5, 3, &t, &e), MS_OK);
        assert_int_equal(j.state, MD_JOB_QUEUED);
        assert_int_equal(j.crashes, k);
        assert_string_equal(t.reason, "interrupted by a daemon crash, requeued");
    }
    assert_int_equal(md_job_start(&j, 4, 0, at, "MIG-a", &t, &e), MS_OK);
    assert_int_equal(md_job_recover(&j, 6, 3, &t, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_FAILED);
    assert_int_equal(t.to, MD_JOB_FAILED);
    assert_int_equal(j.spec.on_interrupt, MD_ON_INTERRUPT_RETRY); /* the spec is kept */
    assert_string_equal(j.reason, "interrupted 3 times");
    assert_string_equal(t.reason, "interrupted 3 times");
    /* A failed job is not recovered again, and is left as it was. */
    assert_int_equal(md_job_recover(&j, 7, 3, &t, &e), MS_EINVAL);
    assert_int_equal(j.crashes, 3);
    md_job_free(&j);

    j = new_job("fail");
    drive(&j, MD_JOB_RUNNING);
    assert_int_equal(md_job_recover(&j, 5, 3, &t, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_FAILED);
    assert_string_equal(j.reason, "interrupted by a daemon crash (on_interrupt fail)");
    md_job_free(&j);

    j = new_job("retry");
    drive(&j, MD_JOB_RUNNING);
    md_job_set_reason(&j, &t, "%s %d", "x", 1);
    assert_string_equal(j.reason, "x 1");
    assert_string_equal(t.reason, "x 1");
    md_job_free(&j);
}

/* A start that ran nothing for the node's reason: back to queued whatever on_interrupt
 * says, counted as a start failure and never as a crash (max-attempts' count). */
static void test_requeue(void **state)
{
    (void)state;
    md_job_transition t;
    ms_error e = {0};
    ms_placement at = {ms_gpu_profile_by_name(a100(), "2g.10gb"), 0};
    md_job j = new_job("fail");
    drive(&j, MD_JOB_RUNNING);
    for (int k = 1; k <= 3; k++) {
        if (k > 1)
            assert_int_equal(md_job_start(&j, 3, 0, at, "MIG-a", &t, &e), MS_OK);
        assert_int_equal(md_job_requeue(&j, 5, "log-dir /l/u: No space left on device", k, &t, &e),
                         MS_OK);
        assert_int_equal(j.state, MD_JOB_QUEUED);
        assert_int_equal(t.event, MD_JOB_EV_REQUEUE);
        assert_int_equal(t.from, MD_JOB_RUNNING);
        assert_int_equal(t.to, MD_JOB_QUEUED);
        assert_int_equal(j.attempts, k);
        assert_int_equal(j.start_failures, k);
        assert_int_equal(j.crashes, 0);
        assert_int_equal(j.gpu, -1);
        assert_string_equal(j.mig_uuid, "");
        assert_true(isnan(j.started));
        assert_string_equal(j.start_error, "log-dir /l/u: No space left on device");
    }
    assert_string_equal(j.reason, "start failed on this node: log-dir /l/u: No space left on "
                                  "device; next try in 3 s");
    assert_string_equal(t.reason, j.reason);
    /* Its own last error as the cause (the engine passes j.start_error). */
    assert_int_equal(md_job_start(&j, 6, 0, at, "MIG-a", &t, &e), MS_OK);
    assert_int_equal(md_job_requeue(&j, 7, j.start_error, 4, &t, &e), MS_OK);
    assert_string_equal(j.start_error, "log-dir /l/u: No space left on device");
    /* Only a running job's start can have failed. */
    assert_int_equal(md_job_requeue(&j, 8, "x", 1, &t, &e), MS_EINVAL);
    assert_int_equal(j.start_failures, 4);
    md_job_free(&j);
}

static void test_names(void **state)
{
    (void)state;
    for (int s = 0; s < MD_JOB_NSTATES; s++)
        assert_int_equal(md_job_state_parse(md_job_state_name((md_job_state)s)), s);
    for (int ev = 0; ev < 6; ev++)
        assert_int_equal(md_job_event_parse(md_job_event_name((md_job_event)ev)), ev);
    assert_int_equal(md_job_state_parse("paused"), -1);
    assert_int_equal(md_job_event_parse("resume"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_profile),
        cmocka_unit_test(test_parse_times_round_trip),
        cmocka_unit_test(test_parse_allocation),
        cmocka_unit_test(test_parse_user),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_limits),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_transition_table),
        cmocka_unit_test(test_interrupt_policies),
        cmocka_unit_test(test_recover_poison),
        cmocka_unit_test(test_requeue),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
