/* test_daemon_api.c: migschedd's routes and its /metrics exposition against a stand-in
 * engine defined here (the linker takes these ms_engine_* over the library's, which is then
 * never pulled in): status codes for every route and every engine outcome (201, 400 with
 * the parser's message, 403, 404, 405 with Allow, 409, 429, 503), query arguments and
 * pages, the caller (401 without one, admins, "user", who manages allocations), the
 * exposition's series, labels, escapes and histograms; and the listeners: a stale socket
 * is replaced, a live one or a non-socket refused, the socket made 0666 and removed at
 * close only while it is still ours. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "api.h"
#include "listen.h"
#include "metrics.h"
#include "support.h"

/* ---- The stand-in engine: jobs in an array; outcomes forced by the test. ---- */
struct md_engine {
    md_job jobs[8];
    int njobs;
    int queue_limit;
    bool stopping;
    bool batch; /* mode batch: no allocations */
    md_engine_metrics m;
    md_engine_access access;
    md_engine_actor last;     /* who the last job call came from */
    md_job_owner alloc_owner; /* whom the last allocation step was for */
};

const double md_engine_time_bounds[MD_ENGINE_TIME_BUCKETS] = {0.1, 0.5, 1,   5,    10,    30,
                                                              60,  300, 900, 3600, 14400, 86400};
const double md_engine_reconf_bounds[MD_ENGINE_RECONF_BUCKETS] = {0.05, 0.1, 0.2, 0.3, 0.5,
                                                                  0.75, 1,   2,   5,   10};

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

void md_engine_access_get(md_engine *e, md_engine_access *out) { *out = e->access; }

md_engine_outcome md_engine_submit(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                   json_t **job, ms_error *err)
{
    if (e->stopping || e->njobs >= e->queue_limit) {
        md_job_spec_free(spec); /* the engine takes the spec whatever the outcome */
        if (e->stopping) {
            ms_error_set(err, MS_EINVAL, "migschedd is stopping");
            return MD_ENGINE_STOPPING;
        }
        ms_error_set(err, MS_EINVAL, "the queue is full (%d jobs)", e->queue_limit);
        return MD_ENGINE_QUEUE_FULL;
    }
    md_job *j = &e->jobs[e->njobs++];
    md_job_transition t;
    md_job_init(j, spec);
    j->owner = *owner;
    md_job_submit(j, 1000, &t, err);
    j->id = e->njobs;
    *job = md_job_to_json(j, a100(), true, NULL);
    return MD_ENGINE_OK;
}

static md_job *find(md_engine *e, int64_t id, ms_error *err)
{
    if (id < 1 || id > e->njobs) {
        ms_error_set(err, MS_EINVAL, "no job %lld", (long long)id);
        return NULL;
    }
    return &e->jobs[id - 1];
}

md_engine_outcome md_engine_cancel(md_engine *e, int64_t id, const md_engine_actor *who,
                                   json_t **job, ms_error *err)
{
    e->last = *who;
    md_job *j = find(e, id, err);
    if (!j)
        return MD_ENGINE_NOT_FOUND;
    md_job_transition t;
    if (md_job_cancel(j, 1001, &t, err))
        return MD_ENGINE_CONFLICT;
    *job = md_job_to_json(j, a100(), true, NULL);
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_job(md_engine *e, int64_t id, const md_engine_actor *who, json_t **job,
                                ms_error *err)
{
    e->last = *who;
    md_job *j = find(e, id, err);
    if (!j)
        return MD_ENGINE_NOT_FOUND;
    *job = md_job_to_json(j, a100(), true, NULL);
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_history(md_engine *e, int64_t id, const md_engine_actor *who,
                                    json_t **history, ms_error *err)
{
    e->last = *who;
    if (!find(e, id, err))
        return MD_ENGINE_NOT_FOUND;
    *history = json_pack("{s:I, s:[]}", "job", (json_int_t)id, "transitions");
    return MD_ENGINE_OK;
}

/* The page the query asks for (states, after and before, oldest first; the user filter and
 * the order are the store's). */
md_engine_outcome md_engine_jobs(md_engine *e, const md_store_job_query *q,
                                 const md_engine_actor *who, json_t **jobs, int64_t *next,
                                 ms_error *err)
{
    e->last = *who;
    *next = 0;
    json_t *a = json_array();
    for (int i = 0; i < e->njobs; i++) {
        const md_job *j = &e->jobs[i];
        if (j->id <= q->after || (q->before && j->id >= q->before) ||
            (q->states && !(q->states & MD_STORE_STATE(j->state))))
            continue;
        if ((int)json_array_size(a) == q->limit) {
            *next = json_integer_value(json_object_get(json_array_get(a, q->limit - 1), "id"));
            break;
        }
        json_array_append_new(a, md_job_to_json(j, a100(), false, NULL));
    }
    *jobs = json_pack("{s:o}", "jobs", a);
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_gpus(md_engine *e, json_t **gpus, ms_error *err)
{
    *gpus = json_pack("{s:[{s:i, s:s, s:[{s:s, s:{s:i}, s:s}]}]}", "gpus", "gpu", 0, "model",
                      "A100-40GB", "instances", "profile", "3g.20gb", "placement", "start", 4,
                      "state", "busy");
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_plan(md_engine *e, char **schedule_json, ms_error *err)
{
    *schedule_json = strdup("{\"format\": \"migsched-schedule/1\"}\n");
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_plan_live(md_engine *e, json_t **plan, ms_error *err)
{
    *plan = json_pack("{s:s, s:[], s:{s:f, s:f}}", "format", "migsched-schedule/1", "tasks",
                      "clock", "t0", 0.0, "now", 1.0);
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_metrics_snapshot(md_engine *e, md_engine_metrics *out, ms_error *err)
{
    *out = e->m;
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_alloc_mode(const md_engine *e, ms_error *err)
{
    if (!e->batch)
        return MD_ENGINE_OK;
    ms_error_set(err, MS_EINVAL, "allocations need mode online (this migschedd plans batches)");
    return MD_ENGINE_BAD_REQUEST;
}

/* Allocations: the stand-in echoes what the route passed (job, step, profile). */
md_engine_outcome md_engine_alloc_step(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                       int64_t step, json_t **alloc, ms_error *err)
{
    e->alloc_owner = *owner;
    *alloc = json_pack("{s:I, s:I, s:s, s:s}", "slurm_job_id", (json_int_t)spec->slurm_job_id,
                       "step", (json_int_t)step, "profile", a100()->profiles[spec->profile].name,
                       "name", spec->name);
    md_job_spec_free(spec);
    return MD_ENGINE_OK;
}

md_engine_outcome md_engine_alloc_get(md_engine *e, int64_t slurm_id, json_t **alloc, ms_error *err)
{
    ms_error_set(err, MS_EINVAL, "Slurm job %lld holds no allocation", (long long)slurm_id);
    return MD_ENGINE_NOT_FOUND;
}

md_engine_outcome md_engine_alloc_release(md_engine *e, int64_t slurm_id, int64_t step,
                                          json_t **alloc, ms_error *err)
{
    *alloc = json_pack("{s:I, s:I}", "slurm_job_id", (json_int_t)slurm_id, "released",
                       (json_int_t)step);
    return MD_ENGINE_OK;
}

static void engine_free(md_engine *e)
{
    for (int i = 0; i < e->njobs; i++)
        md_job_free(&e->jobs[i]);
}

/* ---- Helpers ---- */

static md_api api_of(md_engine *e)
{
    md_api api = {.engine = e, .model = a100()};
    snprintf(api.hostname, sizeof api.hostname, "node-\"7\"");
    return api;
}

static const md_api_caller ROOT = {.authenticated = true, .uid = 0, .gid = 0, .name = "root"};

static md_api_response call_as(md_engine *e, md_api_caller who, const char *method,
                               const char *path, const char *body)
{
    md_api api = api_of(e);
    md_api_request rq = {.caller = who,
                         .method = method,
                         .path = path,
                         .body = body,
                         .len = body ? strlen(body) : 0};
    md_api_response rs;
    md_api_handle(&api, &rq, &rs);
    return rs;
}

static md_api_response call(md_engine *e, const char *method, const char *path, const char *body)
{
    return call_as(e, ROOT, method, path, body);
}

/* Checks the status and that the body holds text; frees the body. */
static void expect(md_api_response rs, unsigned status, const char *text)
{
    if (rs.status != status || !rs.body || !strstr(rs.body, text))
        fail_msg("status %u, body %s; expected %u with \"%s\"", rs.status,
                 rs.body ? rs.body : "(none)", status, text);
    free(rs.body);
}

static const char JOB[] = "{\"name\": \"t1\", \"command\": [\"true\"], \"profile\": \"1g.5gb\", "
                          "\"seconds\": 3}";

static void test_routes(void **state)
{
    md_engine e = {.queue_limit = 2};
    md_api_response rs = call(&e, "POST", "/v1/jobs", JOB);
    assert_string_equal(rs.location, "/v1/jobs/1");
    assert_string_equal(rs.content_type, "application/json");
    expect(rs, 201, "\"state\":\"queued\"");
    expect(call(&e, "GET", "/v1/jobs/1", NULL), 200, "\"name\":\"t1\"");
    expect(call(&e, "GET", "/v1/jobs", NULL), 200, "\"id\":1");
    expect(call(&e, "GET", "/v1/gpus", NULL), 200, "\"size_slots\":4");
    expect(call(&e, "GET", "/v1/plan", NULL), 200, "migsched-schedule/1");
    md_api api = api_of(&e);
    md_api_request rq = {.caller = ROOT, .method = "GET", .path = "/v1/plan", .nargs = 1};
    rq.arg_key[0] = "live";
    rq.arg_value[0] = "true";
    md_api_handle(&api, &rq, &rs);
    expect(rs, 200, "\"clock\":{\"t0\":0.0,\"now\":1.0}");
    rq.arg_value[0] = "false";
    md_api_handle(&api, &rq, &rs);
    expect(rs, 200, "migsched-schedule/1");
    rq.arg_value[0] = "yes";
    md_api_handle(&api, &rq, &rs);
    expect(rs, 400, "live: must be true or false (got \\\"yes\\\")");
    rq.arg_key[0] = "at";
    md_api_handle(&api, &rq, &rs);
    expect(rs, 400, "unknown query argument \\\"at\\\" (allowed: live)");
    rq.nargs = 2;
    rq.arg_key[0] = rq.arg_key[1] = "live";
    rq.arg_value[0] = rq.arg_value[1] = "true";
    md_api_handle(&api, &rq, &rs);
    expect(rs, 400, "live: is given twice");
    expect(call(&e, "GET", "/healthz", NULL), 200, "\"status\":\"ok\"");
    rs = call(&e, "GET", "/", NULL);
    assert_string_equal(rs.content_type, "text/html; charset=utf-8");
    expect(rs, 200, "<title>migschedd</title>");
    rs = call(&e, "GET", "/metrics", NULL);
    assert_string_equal(rs.content_type, MD_METRICS_CONTENT_TYPE);
    expect(rs, 200, "# TYPE migsched_jobs gauge");
    expect(call(&e, "DELETE", "/v1/jobs/1", NULL), 200, "\"state\":\"cancelled\"");
    expect(call(&e, "DELETE", "/v1/jobs/1", NULL), 409, "cannot cancel a job that is cancelled");
    engine_free(&e);
}

static void test_errors(void **state)
{
    md_engine e = {.queue_limit = 1};
    expect(call(&e, "POST", "/v1/jobs", "{\"name\": "), 400, "\"error\":\"job: ");
    expect(call(&e, "POST", "/v1/jobs", NULL), 400, "\"error\"");
    expect(call(&e, "POST", "/v1/jobs",
                "{\"name\": \"x\", \"command\": [\"true\"], \"slices\": 1, \"seconds\": 1, "
                "\"colour\": 1}"),
           400, "unknown");
    expect(call(&e, "POST", "/v1/jobs",
                "{\"name\": \"x\", \"command\": [\"true\"], \"profile\": \"3g.40gb\", \"seconds\": "
                "1}"),
           400, "A100-40GB has no profile");
    expect(call(&e, "POST", "/v1/jobs", JOB), 201, "\"id\":1");
    expect(call(&e, "POST", "/v1/jobs", JOB), 429, "the queue is full");
    e.stopping = true;
    expect(call(&e, "POST", "/v1/jobs", JOB), 503, "stopping");
    expect(call(&e, "GET", "/v1/jobs/9", NULL), 404, "no job 9");
    expect(call(&e, "GET", "/v1/jobs/0", NULL), 404, "no job \\\"0\\\"");
    expect(call(&e, "GET", "/v1/jobs/1x", NULL), 404, "no job \\\"1x\\\"");
    expect(call(&e, "GET", "/v1/jobs/1/more", NULL), 404, "no route /v1/jobs/1/more");
    expect(call(&e, "GET", "/v1/job", NULL), 404, "no route");
    md_api_response rs = call(&e, "PUT", "/v1/jobs", NULL);
    assert_string_equal(rs.allow, "GET, POST");
    expect(rs, 405, "method not allowed (allowed: GET, POST)");
    rs = call(&e, "POST", "/v1/jobs/1", NULL);
    assert_string_equal(rs.allow, "GET, DELETE");
    expect(rs, 405, "allowed: GET, DELETE");
    rs = call(&e, "GE", "/metrics", NULL); /* a prefix of an allowed method is not it */
    expect(rs, 405, "allowed: GET");
    engine_free(&e);
}

/* The allocation routes: ids in the path, the body made a spec, the job API refusing an
 * allocation. */
static void test_allocation_routes(void **state)
{
    md_engine e = {.queue_limit = 2};
    expect(call(&e, "PUT", "/v1/allocations/42/steps/0", "{\"profile\": \"3g.20gb\"}"), 200,
           "\"slurm_job_id\":42,\"step\":0,\"profile\":\"3g.20gb\",\"name\":\"slurm-42\"");
    expect(call(&e, "PUT", "/v1/allocations/42/steps/4294967291", "{\"slices\": 2}"), 200,
           "\"step\":4294967291,\"profile\":\"2g.10gb\"");
    expect(call(&e, "DELETE", "/v1/allocations/42/steps/7", NULL), 200, "\"released\":7");
    expect(call(&e, "DELETE", "/v1/allocations/42", NULL), 200, "\"released\":-1");
    expect(call(&e, "GET", "/v1/allocations/42", NULL), 404, "Slurm job 42 holds no allocation");
    expect(call(&e, "GET", "/v1/allocations/0", NULL), 404, "not a Slurm job id");
    expect(call(&e, "GET", "/v1/allocations/4294967296", NULL), 404, "not a Slurm job id");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/-1", "{\"slices\": 1}"), 404,
           "not a Slurm step id");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/0", "{\"slices\": 5}"), 400,
           "job: slices: A100-40GB has no instance of 5 compute slices (its sizes: 1, 2, 3, "
           "4, 7)");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/0", "{\"profile\": \"3g.40gb\"}"), 400,
           "A100-40GB has no profile");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/0", "{\"seconds\": 3}"), 400,
           "allocation: unknown");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/0", "[1]"), 400, "must be a JSON object");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/0", "{}"), 400, "missing field");
    expect(call(&e, "PUT", "/v1/allocations/1/steps/0", NULL), 400, "malformed JSON");
    md_api_response rs = call(&e, "POST", "/v1/allocations/1/steps/0", NULL);
    assert_string_equal(rs.allow, "PUT, DELETE");
    expect(rs, 405, "allowed: PUT, DELETE");
    expect(call(&e, "GET", "/v1/allocations/1/steps", NULL), 404, "no route");
    expect(call(&e, "GET", "/v1/allocations/1/steps/2/x", NULL), 404, "no route");
    expect(call(&e, "POST", "/v1/jobs", "{\"name\": \"x\", \"slurm_job_id\": 5, \"slices\": 1}"),
           400, "allocations are made with PUT");
    engine_free(&e);
}

/* Mode batch refuses an allocation before Slurm is asked for the job's GRES (asking here,
 * where scontrol knows no job 42, would be a 500). */
static void test_allocation_batch_mode(void **state)
{
    md_engine e = {.queue_limit = 2, .batch = true};
    md_api api = api_of(&e);
    api.slurm_gres = "migslice";
    static const char body[] = "{\"slices\": 3}";
    md_api_request rq = {.caller = ROOT,
                         .method = "PUT",
                         .path = "/v1/allocations/42/steps/0",
                         .body = body,
                         .len = sizeof body - 1};
    md_api_response rs;
    md_api_handle(&api, &rq, &rs);
    expect(rs, 400, "allocations need mode online (this migschedd plans batches)");
    engine_free(&e);
}

/* GET /v1/jobs with n (key, value) pairs. */
static md_api_response call_argv(md_engine *e, int n, const char *const *kv)
{
    md_api api = api_of(e);
    md_api_request rq = {.caller = ROOT, .method = "GET", .path = "/v1/jobs", .nargs = n};
    for (int i = 0; i < n; i++) {
        rq.arg_key[i] = kv[2 * i];
        rq.arg_value[i] = kv[2 * i + 1];
    }
    md_api_response rs;
    md_api_handle(&api, &rq, &rs);
    return rs;
}

static md_api_response call_args(md_engine *e, const char *key, const char *value)
{
    return call_argv(e, 1, (const char *const[]){key, value});
}

static void test_query(void **state)
{
    md_engine e = {.queue_limit = 4};
    expect(call(&e, "POST", "/v1/jobs", JOB), 201, "");
    expect(call(&e, "POST", "/v1/jobs", JOB), 201, "");
    expect(call(&e, "DELETE", "/v1/jobs/2", NULL), 200, "");
    md_api_response rs = call_args(&e, "state", "cancelled");
    assert_non_null(strstr(rs.body, "\"id\":2"));
    assert_null(strstr(rs.body, "\"id\":1"));
    expect(rs, 200, "");
    expect(call_args(&e, "state", "queued"), 200, "\"id\":1");
    expect(call_args(&e, "state", "new"), 400,
           "state: unknown state \\\"new\\\" (a comma-separated list of queued, "
           "running, done, failed, cancelled)");
    expect(call_args(&e, "state", NULL), 400, "state: unknown state");
    expect(call_args(&e, "colour", "red"), 400,
           "unknown query argument \\\"colour\\\" "
           "(allowed: limit, after, before, user, state, order)");
    md_api api = api_of(&e);
    md_api_request rq = {.caller = ROOT, .method = "GET", .path = "/v1/gpus", .nargs = 1};
    rq.arg_key[0] = "state";
    rq.arg_value[0] = "queued";
    md_api_handle(&api, &rq, &rs);
    expect(rs, 400, "takes no query arguments");
    engine_free(&e);
}

/* Pages: limit (default and most 1000), after, the filters, and "next" carrying them on;
 * every bad argument a 400 naming it. */
static void test_pages(void **state)
{
    md_engine e = {.queue_limit = 8};
    for (int i = 0; i < 5; i++)
        expect(call(&e, "POST", "/v1/jobs", JOB), 201, "");
    expect(call_args(&e, "limit", "2"), 200, "\"id\":2,\"name\":\"t1\",\"user\":\"root\"");
    expect(call_args(&e, "limit", "2"), 200, "\"next\":\"/v1/jobs?after=2&limit=2\"");
    expect(call_argv(&e, 2, (const char *const[]){"after", "4", "limit", "2"}), 200,
           "\"id\":5,\"name\"");
    expect(call_argv(&e, 2, (const char *const[]){"after", "4", "limit", "2"}), 200,
           "\"next\":null");
    expect(call(&e, "GET", "/v1/jobs", NULL), 200, "\"next\":null");
    expect(
        call_argv(&e, 3,
                  (const char *const[]){"limit", "1", "state", "queued", "user", "a b/\xc3\xa9"}),
        200, "\"next\":\"/v1/jobs?after=1&limit=1&state=queued&user=a%20b%2F%C3%A9\"");
    /* A public listing: no spec. */
    md_api_response rs = call(&e, "GET", "/v1/jobs", NULL);
    assert_null(strstr(rs.body, "\"spec\""));
    expect(rs, 200, "\"id\":5");
    expect(call_args(&e, "limit", "1001"), 400,
           "limit: must be an integer 1..1000 (got \\\"1001\\\")");
    expect(call_args(&e, "limit", "0"), 400, "limit: must be an integer 1..1000");
    expect(call_args(&e, "limit", NULL), 400, "limit: must be");
    expect(call_args(&e, "after", "-1"), 400, "after: must be a job id");
    expect(call_args(&e, "after", "x"), 400, "after: must be a job id");
    expect(call_args(&e, "user", ""), 400, "user: must be a user name");
    expect(call_argv(&e, 2, (const char *const[]){"limit", "1", "limit", "2"}), 400,
           "limit: is given twice");
    engine_free(&e);
}

/* The history's arguments: several states, newest first below `before`, and "next"
 * carrying them on; each bad one a 400 naming it. */
static void test_history_pages(void **state)
{
    md_engine e = {.queue_limit = 8};
    for (int i = 0; i < 5; i++)
        expect(call(&e, "POST", "/v1/jobs", JOB), 201, "");
    expect(call(&e, "DELETE", "/v1/jobs/2", NULL), 200, "");
    expect(call(&e, "DELETE", "/v1/jobs/4", NULL), 200, "");
    md_api_response rs = call_args(&e, "state", "cancelled,queued");
    expect(rs, 200, "\"id\":5");
    rs = call_args(&e, "state", "cancelled,done");
    assert_null(strstr(rs.body, "\"id\":1,"));
    expect(rs, 200, "\"id\":4");
    expect(call_argv(&e, 3,
                     (const char *const[]){"order", "desc", "limit", "1", "state",
                                           "done,failed,cancelled"}),
           200,
           "\"next\":\"/v1/jobs?before=2&limit=1&order=desc&state=done%2Cfailed%2Ccancelled\"");
    expect(call_argv(&e, 3, (const char *const[]){"order", "desc", "after", "1", "limit", "1"}),
           200, "\"next\":\"/v1/jobs?before=2&limit=1&after=1&order=desc\"");
    expect(call_argv(&e, 2, (const char *const[]){"before", "4", "limit", "2"}), 200,
           "\"next\":\"/v1/jobs?after=2&limit=2&before=4\"");
    expect(call_args(&e, "before", "3"), 200, "\"next\":null");
    expect(call_args(&e, "before", "0"), 400, "before: must be a job id (an integer from 1)");
    expect(call_args(&e, "before", "03"), 400, "before: must be a job id");
    expect(call_args(&e, "order", "newest"), 400,
           "order: must be asc (oldest first) or desc (newest first) (got \\\"newest\\\")");
    expect(call_args(&e, "order", NULL), 400, "order: must be asc");
    expect(call_args(&e, "state", "done,"), 400, "state: unknown state \\\"\\\"");
    expect(call_args(&e, "state", ",done"), 400, "state: unknown state \\\"\\\"");
    expect(call_args(&e, "state", "done,sleeping"), 400, "state: unknown state \\\"sleeping\\\"");
    expect(call_args(&e, "state", "done,failed,done"), 400, "state: repeated state \\\"done\\\"");
    expect(call_args(&e, "state", "doneandmoremoremore"), 400, "state: unknown state");
    expect(call_argv(&e, 2, (const char *const[]){"order", "asc", "order", "desc"}), 400,
           "order: is given twice");
    engine_free(&e);
}

/* Nobody gets more than the page and /healthz; the caller reaches the engine as the actor,
 * an admin when root or in admin-group; "user" submits for another user, an admin only;
 * allocations are root's and slurm-user's. */
static void test_authorization(void **state)
{
    md_engine e = {.queue_limit = 8};
    md_api_caller nobody = {.authenticated = false};
    md_api_response rs = call_as(&e, nobody, "GET", "/v1/jobs", NULL);
    expect(rs, 401, "authentication required");
    expect(call_as(&e, nobody, "POST", "/v1/jobs", JOB), 401, "authentication required");
    expect(call_as(&e, nobody, "GET", "/metrics", NULL), 401, "authentication required");
    expect(call_as(&e, nobody, "GET", "/no/such/route", NULL), 401, "authentication required");
    expect(call_as(&e, nobody, "PUT", "/v1/allocations/1/steps/0", "{\"slices\": 1}"), 401, "");
    expect(call_as(&e, nobody, "GET", "/healthz", NULL), 200, "ok");
    expect(call_as(&e, nobody, "GET", "/", NULL), 200, "<title>migschedd</title>");
    assert_int_equal(e.njobs, 0);

    /* A user: the owner of their jobs, not an admin; another user's name is refused. */
    md_api_caller user = {.authenticated = true, .uid = 65534, .gid = 65534, .name = "nobody"};
    expect(call_as(&e, user, "POST", "/v1/jobs", JOB), 201, "\"user\":\"nobody\"");
    assert_int_equal(e.jobs[0].owner.uid, 65534);
    expect(call_as(&e, user, "GET", "/v1/jobs/1", NULL), 200, "");
    assert_int_equal(e.last.who.uid, 65534);
    assert_false(e.last.admin);
    char body[256];
    snprintf(body, sizeof body,
             "{\"name\": \"x\", \"command\": [\"true\"], \"slices\": 1,"
             " \"seconds\": 1, \"user\": \"%s\"}",
             "root");
    expect(call_as(&e, user, "POST", "/v1/jobs", body), 403,
           "only an admin (root or a member of admin-group) may submit for another user; "
           "you are nobody");
    snprintf(body, sizeof body,
             "{\"name\": \"x\", \"command\": [\"true\"], \"slices\": 1,"
             " \"seconds\": 1, \"user\": \"%s\"}",
             "nobody");
    expect(call_as(&e, user, "POST", "/v1/jobs", body), 201, "\"user\":\"nobody\"");
    /* admin-group makes an admin, read per request. */
    snprintf(e.access.admin_group, sizeof e.access.admin_group, "nogroup");
    expect(call_as(&e, user, "GET", "/v1/jobs/1", NULL), 200, "");
    assert_true(e.last.admin); /* nobody's primary group is nogroup */
    e.access.admin_group[0] = '\0';
    /* Root submits for a user, named; an unknown user is a 400 naming it. */
    expect(call(&e, "POST", "/v1/jobs", body), 201, "\"user\":\"nobody\"");
    assert_int_equal(e.jobs[2].owner.uid, 65534);
    expect(call(&e, "GET", "/v1/jobs/1", NULL), 200, "");
    assert_true(e.last.admin);
    expect(call(&e, "POST", "/v1/jobs",
                "{\"name\": \"x\", \"command\": [\"true\"],"
                " \"slices\": 1, \"seconds\": 1, \"user\": \"no-such-user-x9\"}"),
           400, "job: user: no user \\\"no-such-user-x9\\\" on this node");

    /* Allocations: a user is refused whatever the method, root and slurm-user served. */
    snprintf(e.access.slurm_user, sizeof e.access.slurm_user, "no-such-user-x9");
    e.alloc_owner.uid = 77;
    expect(call_as(&e, user, "PUT", "/v1/allocations/42/steps/0", "{\"slices\": 1}"), 403,
           "only root and slurm-user (no-such-user-x9) may manage allocations; you are nobody");
    expect(call_as(&e, user, "DELETE", "/v1/allocations/42", NULL), 403, "slurm-user");
    expect(call_as(&e, user, "DELETE", "/v1/allocations/42/steps/0", NULL), 403, "slurm-user");
    expect(call_as(&e, user, "GET", "/v1/allocations/42", NULL), 403, "slurm-user");
    assert_int_equal(e.alloc_owner.uid, 77); /* the engine was never called */
    snprintf(e.access.slurm_user, sizeof e.access.slurm_user, "nobody");
    expect(call_as(&e, user, "PUT", "/v1/allocations/42/steps/0", "{\"slices\": 1}"), 200, "");
    assert_int_equal(e.alloc_owner.uid, 65534); /* the caller, when no user is named */
    expect(call(&e, "PUT", "/v1/allocations/42/steps/1", "{\"slices\": 1, \"user\": \"nobody\"}"),
           200, "");
    assert_int_equal(e.alloc_owner.uid, 65534);
    assert_string_equal(e.alloc_owner.name, "nobody");
    expect(
        call(&e, "PUT", "/v1/allocations/42/steps/1", "{\"slices\": 1, \"user\": \"zz-none-9\"}"),
        400, "allocation: user: no user \\\"zz-none-9\\\" on this node");
    engine_free(&e);
}

static void test_metrics(void **state)
{
    md_engine_metrics m;
    memset(&m, 0, sizeof m);
    m.jobs[MD_JOB_QUEUED] = 4;
    m.jobs[MD_JOB_RUNNING] = 2;
    m.submitted_total = 9;
    m.reconfigurations_total = 5;
    m.wait_seconds.count[0] = 1;
    for (int i = 1; i < MD_ENGINE_TIME_BUCKETS; i++)
        m.wait_seconds.count[i] = 3;
    m.wait_seconds.total = 4;
    m.wait_seconds.sum = 7000.5;
    m.ngpus = 2;
    for (int g = 0; g < 2; g++) {
        m.gpu[g].gpu = g;
        snprintf(m.gpu[g].uuid, sizeof m.gpu[g].uuid, "GPU-%d", g);
        snprintf(m.gpu[g].pci_bus_id, sizeof m.gpu[g].pci_bus_id, "00000000:%02X:00.0", 0x3b + g);
        m.gpu[g].minor = g + 4;
        snprintf(m.gpu[g].model_name, sizeof m.gpu[g].model_name, "NVIDIA A100-SXM4-40GB");
    }
    m.gpu[0].minor = -1; /* unknown: an empty device label */
    m.gpu[1].fragmentation = 0.25;
    m.gpu[1].busy_slices = 3;
    m.gpu[1].ninstances = 2;
    m.gpu[1].instance[0] = (md_engine_instance_metrics){.profile = 3,
                                                        .start = 4,
                                                        .gi_id = 2,
                                                        .busy = true,
                                                        .job = 7,
                                                        .user = "al\"ice",
                                                        .name = "train \"big\"",
                                                        .slurm_job = 1234,
                                                        .started = 1700000000.5};
    m.gpu[1].instance[1] = (md_engine_instance_metrics){.profile = 0, .start = 0, .gi_id = 9};
    size_t len;
    char *text = md_metrics_render(&m, a100(), "h\"x\\y\n", &len);
    assert_non_null(text);
    assert_int_equal(len, strlen(text));
    static const char *const want[] = {
        "# HELP migsched_jobs Jobs by state",
        "migsched_jobs{state=\"queued\"} 4\n",
        "migsched_jobs{state=\"cancelled\"} 0\n",
        "migsched_running_jobs 2\n",
        "# TYPE migsched_jobs_submitted_total counter\nmigsched_jobs_submitted_total 9\n",
        "migsched_reconfigurations_total 5\n",
        "# TYPE migsched_job_wait_seconds histogram\n",
        "migsched_job_wait_seconds_bucket{le=\"0.1\"} 1\n",
        "migsched_job_wait_seconds_bucket{le=\"86400\"} 3\n",
        "migsched_job_wait_seconds_bucket{le=\"+Inf\"} 4\n",
        "migsched_job_wait_seconds_sum 7000.5\nmigsched_job_wait_seconds_count 4\n",
        "migsched_job_turnaround_seconds_count 0\n",
        "migsched_instance_creation_seconds_bucket{le=\"0.05\"} 0\n",
        "migsched_gpu_fragmentation{gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:3C:00.0\","
        "device=\"nvidia5\",modelName=\"NVIDIA A100-SXM4-40GB\",Hostname=\"h\\\"x\\\\y\\n\"} "
        "0.25\n",
        "migsched_gpu_busy_slices{gpu=\"0\",UUID=\"GPU-0\",pci_bus_id=\"00000000:3B:00.0\","
        "device=\"\",modelName=\"NVIDIA A100-SXM4-40GB\",Hostname=\"h\\\"x\\\\y\\n\"} 0\n",
        "migsched_instance_busy{gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:3C:00.0\","
        "device=\"nvidia5\",modelName=\"NVIDIA A100-SXM4-40GB\",GPU_I_PROFILE=\"3g.20gb\","
        "GPU_I_ID=\"2\",Hostname=\"h\\\"x\\\\y\\n\",start=\"4\",user=\"al\\\"ice\"} 1\n",
        "GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"9\",Hostname=\"h\\\"x\\\\y\\n\",start=\"0\",user=\"\"}"
        " 0\n",
        "# TYPE migsched_job_start_time_seconds gauge\n",
        "migsched_job_start_time_seconds{gpu=\"1\",UUID=\"GPU-1\",pci_bus_id=\"00000000:3C:00.0\","
        "device=\"nvidia5\",modelName=\"NVIDIA A100-SXM4-40GB\",GPU_I_PROFILE=\"3g.20gb\","
        "GPU_I_ID=\"2\",Hostname=\"h\\\"x\\\\y\\n\",id=\"7\",user=\"al\\\"ice\","
        "job=\"train \\\"big\\\"\",slurm_job=\"1234\"} 1700000000.500\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(text, want[i]))
            fail_msg("no \"%s\" in:\n%s", want[i], text);
    assert_null(strstr(text, "state=\"new\""));
    /* One job series per running job: the idle instance has none. */
    const char *first = strstr(text, "\nmigsched_job_start_time_seconds{");
    assert_non_null(first);
    assert_null(strstr(first + 1, "\nmigsched_job_start_time_seconds{"));
    free(text);
}

/* ---- Listeners ---- */

static md_listen unix_at(const char *path)
{
    md_listen l = {0};
    snprintf(l.path, sizeof l.path, "%s", path);
    snprintf(l.where, sizeof l.where, "--listen");
    return l;
}

static void test_listeners(void **state)
{
    char dir[64], path[100];
    test_temp_dir("listen", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/s.sock", dir);
    md_listen l = unix_at(path);
    md_listener a, b;
    ms_error err = {0};
    assert_int_equal(md_listener_open(&l, &a, &err), MS_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666);
    /* A live listener keeps its socket. */
    assert_int_equal(md_listener_open(&l, &b, &err), MS_EBUSY);
    assert_non_null(strstr(err.msg, "another migschedd is listening there"));
    /* Closed without removing (a crash): the stale socket is replaced. */
    close(a.fd);
    assert_int_equal(md_listener_open(&l, &b, &err), MS_OK);
    /* Closing the old listener must not remove the new one's socket. */
    md_listener_close(&a, true);
    assert_int_equal(stat(path, &st), 0);
    md_listener_close(&b, false);
    assert_int_not_equal(stat(path, &st), 0);
    /* A file that is not a socket is never removed. */
    FILE *f = fopen(path, "w");
    fclose(f);
    assert_int_equal(md_listener_open(&l, &b, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "exists and is not a socket"));
    assert_int_equal(stat(path, &st), 0);
    test_remove_dir(dir);
}

/* Ids and times' sizes are written one way only: "01", "+1" or " 1" would name job 1 (or
 * size 1) under another name, and two such keys would merge; each gets a 400 naming it.
 * A message cut inside a UTF-8 character is still a JSON error. */
static void test_canonical(void **state)
{
    md_engine e = {.queue_limit = 4};
    expect(call(&e, "POST", "/v1/jobs", JOB), 201, "\"id\":1");
    static const char *const IDS[] = {"01", "+1", " 1", "-0", "001"};
    for (size_t i = 0; i < sizeof IDS / sizeof *IDS; i++) {
        char path[64];
        snprintf(path, sizeof path, "/v1/jobs/%s", IDS[i]);
        expect(call(&e, "GET", path, NULL), 400, "is not written canonically");
        expect(call(&e, "DELETE", path, NULL), 400, "is not written canonically");
        snprintf(path, sizeof path, "/v1/allocations/%s", IDS[i]);
        expect(call(&e, "GET", path, NULL), 400, "is not written canonically");
        snprintf(path, sizeof path, "/v1/allocations/7/steps/%s", IDS[i]);
        expect(call(&e, "PUT", path, "{\"slices\": 1}"), 400, "is not written canonically");
    }
    expect(call(&e, "GET", "/v1/jobs/1", NULL), 200, "\"id\":1");
    expect(call_args(&e, "after", "01"), 400, "after: must be a job id");
    expect(call_args(&e, "limit", "+5"), 400, "limit: must be an integer");
    expect(call(&e, "POST", "/v1/jobs",
                "{\"name\": \"t\", \"command\": [\"true\"],"
                " \"times\": {\"1\": 5, \"01\": 9}}"),
           400,
           "times.01: a size is written "
           "canonically (\\\"1\\\", not \\\"01\\\")");
    expect(call(&e, "POST", "/v1/jobs",
                "{\"name\": \"t\", \"command\": [\"true\"],"
                " \"times\": {\"+1\": 9}}"),
           400, "times.+1");
    /* "times.%.40s" ends inside the 20th 2-byte character after the "a". */
    char body[256] = "{\"name\": \"t\", \"command\": [\"true\"], \"times\": {\"a";
    for (int i = 0; i < 30; i++)
        strcat(body, "\xc3\xa9");
    strcat(body, "\": 5}}");
    md_api_response rs = call(&e, "POST", "/v1/jobs", body);
    expect(rs, 400, "\"error\":\"job: times.a\xc3\xa9");
    char msg[MS_ERR_LEN];
    ms_error err;
    memset(msg, 'x', sizeof msg);
    memcpy(msg + sizeof msg - 8, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8);
    ms_error_set(&err, MS_EINVAL, "%.*s", (int)sizeof msg, msg); /* cut inside the last */
    assert_int_equal(strlen(err.msg), sizeof msg - 2);           /* before the cut character */
    md_api_response cut;
    memset(&cut, 0, sizeof cut);
    md_api_error(&cut, 400, err.msg);
    expect(cut, 400, "\xc3\xa9\xc3\xa9\xc3\xa9");
    md_api_error(&cut, 400, "bytes \xff\xfe and \xe2\x82 from a client");
    expect(cut, 400, "bytes ?? and ?? from a client");
    engine_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_listeners),
        cmocka_unit_test(test_allocation_routes),
        cmocka_unit_test(test_allocation_batch_mode),
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_history_pages),
        cmocka_unit_test(test_authorization),
        cmocka_unit_test(test_canonical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
