/* api.c: migschedd's routes: parse and validate, one engine call, render. */
#include "api.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "identity.h"
#include "metrics.h"
#include "slurm.h"
#include "migsched/io.h"
#include "status_page.h"

static const char JSON_TYPE[] = "application/json";

static void set_body(md_api_response *rs, unsigned status, const char *type, char *body, size_t len)
{
    rs->status = status;
    rs->content_type = type;
    rs->body = body;
    rs->len = len;
    if (!body) { /* out of memory: a 500 with no body rather than a crash */
        rs->status = 500;
        rs->len = 0;
    }
}

/* Takes the reference to o. */
static void set_json(md_api_response *rs, unsigned status, json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    size_t n = text ? strlen(text) : 0;
    char *body = text ? realloc(text, n + 2) : NULL;
    if (body) {
        body[n++] = '\n';
        body[n] = '\0';
    } else {
        free(text);
    }
    set_body(rs, status, JSON_TYPE, body, n);
}

/* The length of the longest prefix of s that is whole, valid UTF-8 sequences (jansson
 * refuses anything else). */
static size_t utf8_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k = c < 0x80                          ? 1
                   : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 2
                   : (c & 0xf0) == 0xe0              ? 3
                   : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 4
                                                     : 0;
        if (!k || i + k > n)
            return i;
        for (size_t j = 1; j < k; j++)
            if ((s[i + j] & 0xc0) != 0x80)
                return i;
        unsigned cp = k == 1 ? c : c & (0x7f >> k);
        for (size_t j = 1; j < k; j++)
            cp = cp << 6 | (s[i + j] & 0x3f);
        if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return i;
        i += k;
    }
    return n;
}

/* A message holds names and values cut to a length (%.40s, the error's fixed buffer), which
 * may end inside a character, and bytes a client sent: every byte that is not part of a
 * valid UTF-8 character becomes '?', so the error is always a JSON body. */
void md_api_error(md_api_response *rs, unsigned status, const char *msg)
{
    char clean[MS_ERR_LEN + 256];
    const unsigned char *m = (const unsigned char *)msg;
    size_t n = 0, i = 0, len = strnlen(msg, sizeof clean - 1);
    while (i < len) {
        size_t ok = utf8_valid_prefix(m + i, len - i);
        memcpy(clean + n, msg + i, ok);
        n += ok;
        i += ok;
        if (i < len) {
            clean[n++] = '?';
            i++;
        }
    }
    clean[n] = '\0';
    set_json(rs, status, json_pack("{s:s}", "error", clean));
}

static unsigned outcome_status(md_engine_outcome o)
{
    switch (o) {
    case MD_ENGINE_OK: return 200;
    case MD_ENGINE_BAD_REQUEST: return 400;
    case MD_ENGINE_FORBIDDEN: return 403;
    case MD_ENGINE_NOT_FOUND: return 404;
    case MD_ENGINE_CONFLICT: return 409;
    case MD_ENGINE_QUEUE_FULL: return 429;
    case MD_ENGINE_STOPPING: return 503;
    case MD_ENGINE_INTERNAL: break;
    }
    return 500;
}

/* The engine's answer: o rendered with ok_status, or its error. */
static void reply(md_api_response *rs, md_engine_outcome out, unsigned ok_status, json_t *o,
                  const ms_error *err)
{
    if (out == MD_ENGINE_OK) {
        set_json(rs, ok_status, o);
        return;
    }
    json_decref(o);
    md_api_error(rs, outcome_status(out), err->msg);
}

static md_job_owner caller_owner(const md_api_request *rq)
{
    md_job_owner o = {.uid = rq->caller.uid, .gid = rq->caller.gid};
    snprintf(o.name, sizeof o.name, "%s", rq->caller.name);
    return o;
}

/* The caller as the engine checks them: admins are root and admin-group's members, as
 * the group is now (admin-group is live, the group's members may change). */
static md_engine_actor actor(const md_api *api, const md_api_request *rq)
{
    md_engine_actor a = {.who = caller_owner(rq)};
    md_engine_access acc;
    md_engine_access_get(api->engine, &acc);
    a.admin = a.who.uid == 0 || md_identity_in_group(&a.who, acc.admin_group);
    return a;
}

/* Whom a submission belongs to: the caller, or the user the body names (spec->user, then
 * dropped), which only an admin may make someone else. false: rs holds the refusal. */
static bool submission_owner(const md_api *api, const md_api_request *rq, md_job_spec *spec,
                             md_job_owner *owner, md_api_response *rs)
{
    md_engine_actor a = actor(api, rq);
    *owner = a.who;
    char *user = spec->user;
    spec->user = NULL;
    if (!user)
        return true;
    ms_error err = {0};
    char msg[MS_ERR_LEN + 16];
    bool ok = !md_identity_user(user, owner, &err);
    if (!ok) {
        snprintf(msg, sizeof msg, "job: user: %s", err.msg);
        md_api_error(rs, 400, msg);
    } else if (owner->uid != a.who.uid && !a.admin) {
        char uid[16];
        snprintf(msg, sizeof msg,
                 "job: user: only an admin (root or a member of admin-group) "
                 "may submit for another user; you are %s",
                 md_job_user(&a.who, uid));
        md_api_error(rs, 403, msg);
        ok = false;
    }
    free(user);
    return ok;
}

static void jobs_post(const md_api *api, const md_api_request *rq, md_api_response *rs)
{
    ms_error err = {0};
    md_job_spec spec;
    if (md_job_spec_parse(rq->body ? rq->body : "", rq->len, api->model, &spec, &err)) {
        md_api_error(rs, 400, err.msg);
        return;
    }
    if (spec.slurm_job_id > 0) { /* an allocation is made by its steps, never posted */
        md_job_spec_free(&spec);
        md_api_error(rs, 400,
                     "job: slurm_job_id: allocations are made with PUT "
                     "/v1/allocations/{slurm_job_id}/steps/{step}");
        return;
    }
    md_job_owner owner;
    if (!submission_owner(api, rq, &spec, &owner, rs)) {
        md_job_spec_free(&spec);
        return;
    }
    json_t *job = NULL;
    /* takes spec */
    md_engine_outcome out = md_engine_submit(api->engine, &spec, &owner, &job, &err);
    if (out == MD_ENGINE_OK)
        snprintf(rs->location, sizeof rs->location, "/v1/jobs/%lld",
                 (long long)json_integer_value(json_object_get(job, "id")));
    reply(rs, out, 201, job, &err);
}

#define JOBS_PAGE_MAX 1000

/* state=S[,S...]: the states' mask; false with the 400 in rs. */
static bool states_arg(const char *value, unsigned *mask, md_api_response *rs)
{
    *mask = 0;
    const char *s = value ? value : "";
    do {
        size_t n = strcspn(s, ",");
        char name[16] = "";
        int k = n < sizeof name ? (memcpy(name, s, n), md_job_state_parse(name)) : -1;
        if (k <= MD_JOB_NEW || (*mask & MD_STORE_STATE(k))) {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "state: %s state \"%.*s\" (a comma-separated list of queued, running, "
                     "done, failed, cancelled)",
                     k > MD_JOB_NEW ? "repeated" : "unknown", (int)(n < 64 ? n : 64), s);
            md_api_error(rs, 400, msg);
            return false;
        }
        *mask |= MD_STORE_STATE(k);
        s += n;
    } while (*s++ == ',');
    return true;
}

/* One query argument of GET /v1/jobs into q; false with the 400 in rs. */
static bool jobs_arg(const char *key, const char *value, md_store_job_query *q, bool seen[6],
                     md_api_response *rs)
{
    static const char *const ARGS[] = {"limit", "after", "before", "user", "state", "order"};
    char msg[256];
    int k = 0;
    while (k < 6 && strcmp(key, ARGS[k]))
        k++;
    long v = 0;
    const char *why = NULL;
    if (k == 6) {
        snprintf(msg, sizeof msg,
                 "unknown query argument \"%.64s\" (allowed: limit, after, before, "
                 "user, state, order)",
                 key);
        md_api_error(rs, 400, msg);
        return false;
    }
    if (seen[k])
        why = "is given twice";
    else if (k == 0 &&
             !(value && md_canonical_integer(value) && ms_parse_long(value, 1, JOBS_PAGE_MAX, &v)))
        why = "must be an integer 1..1000";
    else if ((k == 1 || k == 2) &&
             !(value && md_canonical_integer(value) && ms_parse_long(value, k - 1, INT64_MAX, &v)))
        why = k == 1 ? "must be a job id (an integer from 0)"
                     : "must be a job id (an integer from 1)";
    else if (k == 3 && !(value && *value && strlen(value) < sizeof((md_job_owner *)0)->name))
        why = "must be a user name (1..63 bytes)";
    else if (k == 5 && !(value && (!strcmp(value, "asc") || !strcmp(value, "desc"))))
        why = "must be asc (oldest first) or desc (newest first)";
    if (why) {
        snprintf(msg, sizeof msg, "%s: %s (got \"%.64s\")", key, why, value ? value : "");
        md_api_error(rs, 400, msg);
        return false;
    }
    if (k == 4 && !states_arg(value, &q->states, rs))
        return false;
    seen[k] = true;
    if (k == 0)
        q->limit = (int)v;
    else if (k == 1)
        q->after = v;
    else if (k == 2)
        q->before = v;
    else if (k == 3)
        q->user = value;
    else if (k == 5)
        q->newest_first = !strcmp(value, "desc");
    return true;
}

/* Appends "&key=value" to buf, the value percent-encoded (RFC 3986's unreserved kept). */
static void add_arg(char *buf, size_t len, const char *key, const char *value)
{
    size_t n = strlen(buf);
    n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "&%s=", key);
    for (const unsigned char *c = (const unsigned char *)value; *c && n + 4 < len; c++) {
        if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
            strchr("-._~", *c))
            buf[n++] = (char)*c;
        else
            n += (size_t)snprintf(buf + n, len - n, "%%%02X", *c);
    }
    buf[n < len ? n : len - 1] = '\0';
}

static void jobs_list(const md_api *api, const md_api_request *rq, md_api_response *rs)
{
    md_store_job_query q = {.limit = JOBS_PAGE_MAX};
    bool seen[6] = {false};
    const char *states = NULL;
    for (int i = 0; i < rq->nargs; i++) {
        if (!jobs_arg(rq->arg_key[i], rq->arg_value[i], &q, seen, rs))
            return;
        if (!strcmp(rq->arg_key[i], "state"))
            states = rq->arg_value[i];
    }
    ms_error err = {0};
    json_t *jobs = NULL;
    int64_t next = 0;
    md_engine_actor a = actor(api, rq);
    md_engine_outcome out = md_engine_jobs(api->engine, &q, &a, &jobs, &next, &err);
    if (out == MD_ENGINE_OK) {
        /* The next page: the same filters and order, on from the last id of this one. */
        char link[512];
        int64_t other = q.newest_first ? q.after : q.before; /* the bound kept */
        int len = snprintf(link, sizeof link, "/v1/jobs?%s=%lld&limit=%d",
                           q.newest_first ? "before" : "after", (long long)next, q.limit);
        if (other)
            snprintf(link + len, sizeof link - (size_t)len, "&%s=%lld",
                     q.newest_first ? "after" : "before", (long long)other);
        if (q.newest_first)
            add_arg(link, sizeof link, "order", "desc");
        if (states)
            add_arg(link, sizeof link, "state", states);
        if (q.user)
            add_arg(link, sizeof link, "user", q.user);
        json_object_set_new(jobs, "next", next ? json_string(link) : json_null());
    }
    reply(rs, out, 200, jobs, &err);
}

/* An id in a path: a number written any other way than canonically ("01", "+1", " 1")
 * would name the same job as "1" under another name; it gets a 400 saying so. */
static bool canonical_id(const char *text, md_api_response *rs)
{
    long v;
    if (!ms_parse_long(text, LONG_MIN, LONG_MAX, &v) || md_canonical_integer(text))
        return true; /* not a number at all: the route's own error */
    char msg[160];
    snprintf(msg, sizeof msg, "id \"%.64s\" is not written canonically (write %ld)", text, v);
    md_api_error(rs, 400, msg);
    return false;
}

/* DELETE or GET /v1/jobs/{id}, GET /v1/jobs/{id}/history. */
static void job_one(const md_api *api, const md_api_request *rq, const char *id_text, bool history,
                    md_api_response *rs)
{
    long id;
    if (!canonical_id(id_text, rs))
        return;
    if (!ms_parse_long(id_text, 1, INT64_MAX, &id)) {
        char msg[128];
        snprintf(msg, sizeof msg, "no job \"%.64s\" (ids are positive integers)", id_text);
        md_api_error(rs, 404, msg);
        return;
    }
    ms_error err = {0};
    json_t *job = NULL;
    md_engine_actor a = actor(api, rq);
    md_engine_outcome out = history ? md_engine_history(api->engine, id, &a, &job, &err)
                            : !strcmp(rq->method, "DELETE")
                                ? md_engine_cancel(api->engine, id, &a, &job, &err)
                                : md_engine_job(api->engine, id, &a, &job, &err);
    reply(rs, out, 200, job, &err);
}

/* A Slurm job or step id in a path: 0..4294967295 (a job: from 1). */
static bool slurm_id(const char *text, long lo, int64_t *out, md_api_response *rs)
{
    long v;
    if (!canonical_id(text, rs))
        return false;
    if (ms_parse_long(text, lo, MD_SLURM_JOB_ID_MAX, &v)) {
        *out = v;
        return true;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "\"%.64s\" is not a Slurm %s id (an integer %ld..4294967295)", text,
             lo ? "job" : "step", lo);
    md_api_error(rs, 404, msg);
    return false;
}

/* The allocation a PUT step asks for: the body's {"profile": NAME} or {"slices": N} and
 * optionally {"user": NAME} (the Slurm job's user), made a job spec by the job parser (its
 * errors, its rules). */
static int alloc_spec(const md_api *api, const md_api_request *rq, int64_t job, md_job_spec *spec,
                      ms_error *err)
{
    static const char *const KEYS[] = {"profile", "slices", "user", NULL};
    json_error_t je;
    json_t *o = json_loadb(rq->body ? rq->body : "", rq->len, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return ms_error_set(err, MS_EINVAL,
                            "allocation: malformed JSON at line %d column "
                            "%d: %s",
                            je.line, je.column, je.text);
    int rc = json_is_object(o) ? ms_json_check_keys(o, KEYS, "allocation", err)
                               : ms_error_set(err, MS_EINVAL,
                                              "allocation: must be a JSON "
                                              "object {\"profile\": ...} or {\"slices\": N}");
    char name[32];
    snprintf(name, sizeof name, "slurm-%lld", (long long)job);
    char *text = NULL;
    if (!rc && (json_object_set_new(o, "name", json_string(name)) ||
                json_object_set_new(o, "slurm_job_id", json_integer(job)) ||
                !(text = json_dumps(o, JSON_COMPACT))))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    json_decref(o);
    if (!rc)
        rc = md_job_spec_parse(text, strlen(text), api->model, spec, err);
    free(text);
    return rc;
}

/* --mig and --gres=<slurm_gres>:N are not linked by Slurm: a new allocation must fit the
 * job's count of that GRES on this node, which Slurm is asked for. */
static md_engine_outcome gres_check(const md_api *api, const md_job_spec *spec, ms_error *err)
{
    if (!api->slurm_gres || !strcmp(api->slurm_gres, "none"))
        return MD_ENGINE_OK;
    json_t *live = NULL;
    ms_error ignored;
    if (md_engine_alloc_get(api->engine, spec->slurm_job_id, &live, &ignored) == MD_ENGINE_OK) {
        json_decref(live); /* checked when it was made */
        return MD_ENGINE_OK;
    }
    long have;
    if (md_slurm_job_gres(spec->slurm_job_id, api->slurm_gres, &have, err)) {
        ms_error_prefix(err, "cannot check Slurm job %lld's %s GRES", (long long)spec->slurm_job_id,
                        api->slurm_gres);
        return MD_ENGINE_INTERNAL;
    }
    const ms_profile *p = &api->model->profiles[spec->profile];
    if (p->slices <= have)
        return MD_ENGINE_OK;
    ms_error_set(err, MS_EINVAL,
                 "Slurm job %lld asks --mig=%s (%d compute slices) but holds "
                 "%ld %s on this node: submit it with --gres=%s:%d or more",
                 (long long)spec->slurm_job_id, p->name, p->slices, have, api->slurm_gres,
                 api->slurm_gres, p->slices);
    return MD_ENGINE_BAD_REQUEST;
}

/* PUT or DELETE /v1/allocations/{job}/steps/{step}. */
static void alloc_step(const md_api *api, const md_api_request *rq, const char *job_text,
                       const char *step_text, md_api_response *rs)
{
    int64_t job, step;
    if (!slurm_id(job_text, 1, &job, rs) || !slurm_id(step_text, 0, &step, rs))
        return;
    ms_error err = {0};
    json_t *o = NULL;
    if (!strcmp(rq->method, "DELETE")) {
        md_engine_outcome out = md_engine_alloc_release(api->engine, job, step, &o, &err);
        reply(rs, out, 200, o, &err);
        return;
    }
    /* Mode batch refuses before Slurm is asked anything: the refusal, not Slurm's state. */
    md_engine_outcome out = md_engine_alloc_mode(api->engine, &err);
    if (out != MD_ENGINE_OK) {
        md_api_error(rs, outcome_status(out), err.msg);
        return;
    }
    md_job_spec spec;
    if (alloc_spec(api, rq, job, &spec, &err)) {
        md_api_error(rs, 400, err.msg);
        return;
    }
    /* Its owner: the Slurm job's user when the plugin names one, else the caller. */
    md_job_owner owner = caller_owner(rq);
    if (spec.user && md_identity_user(spec.user, &owner, &err)) {
        char msg[MS_ERR_LEN + 32];
        snprintf(msg, sizeof msg, "allocation: user: %s", err.msg);
        md_job_spec_free(&spec);
        md_api_error(rs, 400, msg);
        return;
    }
    free(spec.user);
    spec.user = NULL;
    out = gres_check(api, &spec, &err);
    if (out != MD_ENGINE_OK) {
        md_job_spec_free(&spec);
        md_api_error(rs, outcome_status(out), err.msg);
        return;
    }
    out = md_engine_alloc_step(api->engine, &spec, &owner, step, &o, &err); /* takes spec */
    reply(rs, out, 200, o, &err);
}

/* GET or DELETE (the job's epilog: every step) /v1/allocations/{job}. */
static void alloc_one(const md_api *api, const md_api_request *rq, const char *job_text,
                      md_api_response *rs)
{
    int64_t job;
    if (!slurm_id(job_text, 1, &job, rs))
        return;
    ms_error err = {0};
    json_t *o = NULL;
    md_engine_outcome out = !strcmp(rq->method, "DELETE")
                                ? md_engine_alloc_release(api->engine, job, -1, &o, &err)
                                : md_engine_alloc_get(api->engine, job, &o, &err);
    reply(rs, out, 200, o, &err);
}

/* Each instance also gets its width in slots, which the status page draws. */
static void gpus(const md_api *api, md_api_response *rs)
{
    ms_error err = {0};
    json_t *o = NULL;
    md_engine_outcome out = md_engine_gpus(api->engine, &o, &err);
    size_t i, k;
    json_t *g, *in;
    json_array_foreach(json_object_get(o, "gpus"), i, g)
    {
        json_array_foreach(json_object_get(g, "instances"), k, in)
        {
            const char *name = json_string_value(json_object_get(in, "profile"));
            int p = name ? ms_gpu_profile_by_name(api->model, name) : -1;
            if (p >= 0)
                json_object_set_new(in, "size_slots",
                                    json_integer(api->model->profiles[p].size_slots));
        }
    }
    reply(rs, out, 200, o, &err);
}

/* GET /v1/plan[?live=true|false]; the live view is the status page's. */
static void plan(const md_api *api, const md_api_request *rq, md_api_response *rs)
{
    bool live = false;
    for (int i = 0; i < rq->nargs; i++) {
        const char *k = rq->arg_key[i], *v = rq->arg_value[i];
        char msg[160];
        if (strcmp(k, "live"))
            snprintf(msg, sizeof msg, "unknown query argument \"%.64s\" (allowed: live)", k);
        else if (i)
            snprintf(msg, sizeof msg, "live: is given twice");
        else if (!v || (strcmp(v, "true") && strcmp(v, "false")))
            snprintf(msg, sizeof msg, "live: must be true or false (got \"%.64s\")", v ? v : "");
        else {
            live = !strcmp(v, "true");
            continue;
        }
        md_api_error(rs, 400, msg);
        return;
    }
    ms_error err = {0};
    if (live) {
        json_t *o = NULL;
        md_engine_outcome out = md_engine_plan_live(api->engine, &o, &err);
        reply(rs, out, 200, o, &err);
        return;
    }
    char *text = NULL;
    md_engine_outcome out = md_engine_plan(api->engine, &text, &err);
    if (out != MD_ENGINE_OK) {
        free(text);
        md_api_error(rs, outcome_status(out), err.msg);
        return;
    }
    set_body(rs, 200, JSON_TYPE, text, text ? strlen(text) : 0);
}

static void metrics(const md_api *api, md_api_response *rs)
{
    ms_error err = {0};
    md_engine_metrics *m = malloc(sizeof *m); /* large: not on a connection's stack */
    if (!m) {
        set_body(rs, 500, JSON_TYPE, NULL, 0);
        return;
    }
    md_engine_outcome out = md_engine_metrics_snapshot(api->engine, m, &err);
    if (out != MD_ENGINE_OK) {
        free(m);
        md_api_error(rs, outcome_status(out), err.msg);
        return;
    }
    size_t len = 0;
    char *text = md_metrics_render(m, api->model, api->hostname, &len);
    free(m);
    set_body(rs, 200, MD_METRICS_CONTENT_TYPE, text, len);
}

static void page(md_api_response *rs)
{
    char *html = strdup(ms_status_page_html);
    set_body(rs, 200, "text/html; charset=utf-8", html, html ? strlen(html) : 0);
}

/* The routes: a path (a '*' segment matches one id segment) and the methods it takes. */
enum route_id {
    R_INDEX,
    R_HEALTHZ,
    R_METRICS,
    R_JOBS,
    R_JOB,
    R_JOB_HISTORY,
    R_GPUS,
    R_PLAN,
    R_ALLOC,
    R_ALLOC_STEP,
    R_NROUTES
};
static const struct {
    const char *path;
    const char *allow;
} ROUTES[R_NROUTES] = {
    [R_INDEX] = {"/", "GET"},
    [R_HEALTHZ] = {"/healthz", "GET"},
    [R_METRICS] = {"/metrics", "GET"},
    [R_JOBS] = {"/v1/jobs", "GET, POST"},
    [R_JOB] = {"/v1/jobs/*", "GET, DELETE"},
    [R_JOB_HISTORY] = {"/v1/jobs/*/history", "GET"},
    [R_GPUS] = {"/v1/gpus", "GET"},
    [R_PLAN] = {"/v1/plan", "GET"},
    [R_ALLOC] = {"/v1/allocations/*", "GET, DELETE"},
    [R_ALLOC_STEP] = {"/v1/allocations/*/steps/*", "PUT, DELETE"},
};

#define MAX_IDS 2
#define ID_LEN  64

/* Whether path matches pattern segment by segment; the '*' segments (non-empty) go to
 * ids. */
static bool match(const char *pattern, const char *path, char ids[MAX_IDS][ID_LEN])
{
    int nid = 0;
    while (*pattern && *path) {
        size_t pl = strcspn(pattern + 1, "/") + 1, sl = strcspn(path + 1, "/") + 1;
        if (*pattern != '/' || *path != '/')
            return false;
        if (pl == 2 && pattern[1] == '*') {
            if (sl < 2 || sl > ID_LEN || nid == MAX_IDS)
                return false;
            memcpy(ids[nid], path + 1, sl - 1);
            ids[nid++][sl - 1] = '\0';
        } else if (pl != sl || strncmp(pattern, path, pl)) {
            return false;
        }
        pattern += pl;
        path += sl;
    }
    return !*pattern && !*path;
}

static int find_route(const char *path, char ids[MAX_IDS][ID_LEN])
{
    for (int r = 0; r < R_NROUTES; r++)
        if (match(ROUTES[r].path, path, ids))
            return r;
    return -1;
}

static bool allowed(const char *allow, const char *method)
{
    size_t n = strlen(method);
    for (const char *a = allow; (a = strstr(a, method)); a += n)
        if ((a == allow || a[-1] == ' ') && (a[n] == '\0' || a[n] == ','))
            return true;
    return false;
}

/* Allocations are the SPANK plugin's (root in slurmstepd) and the Slurm user's: anyone else
 * is refused before anything is read or changed. */
static bool allocation_manager(const md_api *api, const md_api_request *rq, md_api_response *rs)
{
    md_engine_access acc;
    md_engine_access_get(api->engine, &acc);
    if (rq->caller.uid == 0 || md_identity_uid_is(rq->caller.uid, acc.slurm_user))
        return true;
    char msg[256], uid[16];
    md_job_owner me = caller_owner(rq);
    snprintf(msg, sizeof msg,
             "only root and slurm-user (%s) may manage allocations; you are "
             "%s",
             *acc.slurm_user ? acc.slurm_user : "none", md_job_user(&me, uid));
    md_api_error(rs, 403, msg);
    return false;
}

void md_api_handle(const md_api *api, const md_api_request *rq, md_api_response *rs)
{
    memset(rs, 0, sizeof *rs);
    /* Nobody gets more than the page's static HTML and the liveness probe: not even which
     * routes exist. */
    bool public = !strcmp(rq->method, "GET") &&
                  (!strcmp(rq->path, "/") || !strcmp(rq->path, "/healthz"));
    if (!rq->caller.authenticated && !public) {
        md_api_error(rs, 401,
                     "authentication required: connect on the Unix socket, or send "
                     "Authorization: Bearer <your token> on TCP");
        return;
    }
    char ids[MAX_IDS][ID_LEN];
    int r = find_route(rq->path, ids);
    if (r < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "no route %.100s (see GET / or docs/daemon.md)", rq->path);
        md_api_error(rs, 404, msg);
        return;
    }
    if (!allowed(ROUTES[r].allow, rq->method)) {
        char msg[160];
        snprintf(msg, sizeof msg, "%.16s %.100s: method not allowed (allowed: %s)", rq->method,
                 rq->path, ROUTES[r].allow);
        md_api_error(rs, 405, msg);
        rs->allow = ROUTES[r].allow;
        return;
    }
    if (rq->nargs && ((r != R_JOBS && r != R_PLAN) || strcmp(rq->method, "GET"))) {
        md_api_error(rs, 400, "this route takes no query arguments");
        return;
    }
    if ((r == R_ALLOC || r == R_ALLOC_STEP) && !allocation_manager(api, rq, rs))
        return;
    switch (r) {
    case R_INDEX: page(rs); break;
    case R_HEALTHZ: set_json(rs, 200, json_pack("{s:s}", "status", "ok")); break;
    case R_METRICS: metrics(api, rs); break;
    case R_JOBS:
        if (!strcmp(rq->method, "POST"))
            jobs_post(api, rq, rs);
        else
            jobs_list(api, rq, rs);
        break;
    case R_JOB: job_one(api, rq, ids[0], false, rs); break;
    case R_JOB_HISTORY: job_one(api, rq, ids[0], true, rs); break;
    case R_GPUS: gpus(api, rs); break;
    case R_PLAN: plan(api, rq, rs); break;
    case R_ALLOC: alloc_one(api, rq, ids[0], rs); break;
    case R_ALLOC_STEP: alloc_step(api, rq, ids[0], ids[1], rs); break;
    }
}

void md_api_handle_metrics_only(const md_api *api, const md_api_request *rq, md_api_response *rs)
{
    memset(rs, 0, sizeof *rs);
    if (strcmp(rq->path, ROUTES[R_METRICS].path)) {
        md_api_error(rs, 404, "this listener serves GET /metrics only");
    } else if (strcmp(rq->method, "GET")) {
        md_api_error(rs, 405, "GET /metrics only");
        rs->allow = ROUTES[R_METRICS].allow;
    } else if (rq->nargs) {
        md_api_error(rs, 400, "this route takes no query arguments");
    } else {
        metrics(api, rs);
    }
}
