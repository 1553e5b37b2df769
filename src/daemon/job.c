/* job.c: a job's JSON: parsing a submission with precise errors, rendering it back. */
#include "job.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"

static const char *const FIELDS[] = {"name",         "command",      "cwd",    "env",
                                     "on_interrupt", "profile",      "slices", "seconds",
                                     "times",        "slurm_job_id", "user",   NULL};

static int bad(ms_error *err, const char *field, const char *fmt, const char *detail)
{
    char what[256];
    snprintf(what, sizeof what, fmt, detail);
    return ms_error_set(err, MS_EINVAL, "job: %s: %s", field, what);
}

/* A string of 1..max bytes (json_loadb already refused \u0000 inside strings). */
static int get_string(json_t *v, const char *field, size_t max, char **out, ms_error *err)
{
    if (!json_is_string(v))
        return bad(err, field, "%s", "must be a string");
    size_t n = json_string_length(v);
    if (n == 0)
        return bad(err, field, "%s", "must not be empty");
    if (n > max)
        return ms_error_set(err, MS_EINVAL, "job: %s: longer than %zu bytes", field, max);
    *out = strdup(json_string_value(v));
    return *out ? MS_OK : ms_error_set(err, MS_ENOMEM, "job: out of memory");
}

static int get_time(json_t *v, const char *field, double *out, ms_error *err)
{
    if (!json_is_number(v))
        return bad(err, field, "%s", "must be a number of seconds");
    double x = json_number_value(v);
    const char *why = ms_time_check(x);
    if (why)
        return bad(err, field, "%s", why);
    if (!(x > 0))
        return bad(err, field, "%s", "must be above 0");
    *out = x;
    return MS_OK;
}

static int parse_command(json_t *v, md_job_spec *s, ms_error *err)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return bad(err, "command", "%s", "must be a non-empty array of strings");
    if (json_array_size(v) > MD_JOB_ARGS_MAX)
        return ms_error_set(err, MS_EINVAL, "job: command: more than %d arguments",
                            MD_JOB_ARGS_MAX);
    s->argv = calloc(json_array_size(v), sizeof *s->argv);
    if (!s->argv)
        return ms_error_set(err, MS_ENOMEM, "job: out of memory");
    size_t i;
    json_t *a;
    json_array_foreach(v, i, a)
    {
        char field[32];
        snprintf(field, sizeof field, "command[%zu]", i);
        int rc = get_string(a, field, MD_JOB_STRING_MAX, &s->argv[i], err);
        if (rc)
            return rc;
        s->argc++;
    }
    return MS_OK;
}

/* An environment variable name as POSIX shells accept it: [A-Za-z_][A-Za-z0-9_]*. */
static bool env_name_ok(const char *k)
{
    if (!*k || (*k >= '0' && *k <= '9'))
        return false;
    for (; *k; k++)
        if (!(*k == '_' || (*k >= '0' && *k <= '9') || (*k >= 'a' && *k <= 'z') ||
              (*k >= 'A' && *k <= 'Z')))
            return false;
    return true;
}

static int parse_env(json_t *v, md_job_spec *s, ms_error *err)
{
    if (!json_is_object(v))
        return bad(err, "env", "%s", "must be an object of strings");
    size_t n = json_object_size(v);
    if (n > MD_JOB_ENV_MAX)
        return ms_error_set(err, MS_EINVAL, "job: env: more than %d variables", MD_JOB_ENV_MAX);
    s->env_keys = calloc(n ? n : 1, sizeof *s->env_keys);
    s->env_values = calloc(n ? n : 1, sizeof *s->env_values);
    if (!s->env_keys || !s->env_values)
        return ms_error_set(err, MS_ENOMEM, "job: out of memory");
    const char *k;
    json_t *val;
    json_object_foreach(v, k, val)
    {
        char field[200];
        snprintf(field, sizeof field, "env.%.120s", k);
        if (strlen(k) > 128 || !env_name_ok(k))
            return bad(err, field, "%s",
                       "is not a variable name ([A-Za-z_][A-Za-z0-9_]*, "
                       "at most 128 bytes)");
        if (!json_is_string(val))
            return bad(err, field, "%s", "must be a string");
        if (json_string_length(val) > MD_JOB_STRING_MAX)
            return bad(err, field, "%s", "is over 4096 bytes");
        s->env_keys[s->nenv] = strdup(k);
        s->env_values[s->nenv] = strdup(json_string_value(val));
        s->nenv++;
        if (!s->env_keys[s->nenv - 1] || !s->env_values[s->nenv - 1])
            return ms_error_set(err, MS_ENOMEM, "job: out of memory");
    }
    return MS_OK;
}

bool md_canonical_integer(const char *s)
{
    long v;
    char back[24];
    if (!ms_parse_long(s, LONG_MIN, LONG_MAX, &v))
        return false;
    snprintf(back, sizeof back, "%ld", v);
    return !strcmp(back, s);
}

static int parse_times(json_t *v, const ms_gpu_model *gpu, md_job_spec *s, ms_error *err)
{
    if (!json_is_object(v) || json_object_size(v) == 0)
        return bad(err, "times", "%s", "must be a non-empty object {\"size\": seconds}");
    const char *k;
    json_t *val;
    json_object_foreach(v, k, val)
    {
        char field[80];
        snprintf(field, sizeof field, "times.%.40s", k);
        long size;
        if (!md_canonical_integer(k) && ms_parse_long(k, LONG_MIN, LONG_MAX, &size))
            return ms_error_set(err, MS_EINVAL,
                                "job: %s: a size is written canonically "
                                "(\"%ld\", not \"%.40s\")",
                                field, size, k);
        if (!ms_parse_long(k, 1, MS_MAX_SLICES, &size) || ms_gpu_size_index(gpu, (int)size) < 0) {
            char sizes[64] = "";
            for (int i = 0; i < gpu->nsizes; i++)
                snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%d", i ? ", " : "",
                         gpu->sizes[i]);
            return ms_error_set(err, MS_EINVAL,
                                "job: %s: %s has no instance size \"%.40s\" "
                                "(sizes: %s)",
                                field, gpu->name, k, sizes);
        }
        int rc = get_time(val, field, &s->times[size], err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

static int parse_placement_request(json_t *root, const ms_gpu_model *gpu, md_job_spec *s,
                                   ms_error *err)
{
    json_t *prof = json_object_get(root, "profile"), *sl = json_object_get(root, "slices");
    json_t *sec = json_object_get(root, "seconds"), *times = json_object_get(root, "times");
    if (prof && sl)
        return ms_error_set(err, MS_EINVAL, "job: give \"profile\" or \"slices\", not both");
    if ((prof || sl) && times)
        return ms_error_set(err, MS_EINVAL,
                            "job: give \"profile\"/\"slices\" with "
                            "\"seconds\", or \"times\", not both");
    if (times) {
        if (sec)
            return ms_error_set(err, MS_EINVAL,
                                "job: seconds: goes with \"profile\" or "
                                "\"slices\"; \"times\" already gives a time per size");
        return parse_times(times, gpu, s, err);
    }
    if (!prof && !sl)
        return ms_error_set(err, MS_EINVAL,
                            "job: missing field: \"profile\" or \"slices\" "
                            "(with \"seconds\"), or \"times\"");
    if (prof) {
        if (!json_is_string(prof))
            return bad(err, "profile", "%s", "must be a string such as \"3g.20gb\"");
        s->profile = ms_gpu_profile_by_name(gpu, json_string_value(prof));
        char names[MS_GPU_LIST_LEN];
        ms_gpu_profiles_text(gpu, names, sizeof names);
        if (s->profile < 0)
            return ms_error_set(err, MS_EINVAL,
                                "job: profile: %s has no profile \"%.40s\" (its profiles: %s)",
                                gpu->name, json_string_value(prof), names);
    } else {
        char sizes[MS_GPU_LIST_LEN];
        ms_gpu_sizes_text(gpu, sizes, sizeof sizes);
        if (!json_is_integer(sl))
            return ms_error_set(err, MS_EINVAL,
                                "job: slices: must be a number of compute slices, one of %s's "
                                "sizes (%s)",
                                gpu->name, sizes);
        json_int_t n = json_integer_value(sl);
        if (n < 1 || n > MS_MAX_SLICES || gpu->base_profile[n] < 0)
            return ms_error_set(err, MS_EINVAL,
                                "job: slices: %s has no instance of %lld compute slices (its "
                                "sizes: %s)",
                                gpu->name, (long long)n, sizes);
        s->profile = gpu->base_profile[n];
    }
    if (!sec)
        return ms_error_set(err, MS_EINVAL,
                            "job: missing field: \"seconds\" (the expected "
                            "run time on the profile)");
    return get_time(sec, "seconds", &s->seconds, err);
}

/* A Slurm job's allocation: a name, the Slurm job id and a profile or slices; nothing to
 * run, no expected time (it holds its instance until released), never retried (the Slurm
 * job was told its instance's UUID). */
static int parse_allocation(json_t *root, json_t *id, const ms_gpu_model *gpu, md_job_spec *s,
                            ms_error *err)
{
    static const char *const NOT[] = {"command", "cwd",   "env", "on_interrupt",
                                      "seconds", "times", NULL};
    for (int i = 0; NOT[i]; i++)
        if (json_object_get(root, NOT[i]))
            return ms_error_set(err, MS_EINVAL,
                                "job: %s: an allocation (slurm_job_id) takes "
                                "only name, slurm_job_id and profile or slices",
                                NOT[i]);
    json_int_t n = json_is_integer(id) ? json_integer_value(id) : 0;
    if (n < 1 || n > MD_SLURM_JOB_ID_MAX)
        return bad(err, "slurm_job_id", "%s", "must be an integer 1..4294967295");
    s->slurm_job_id = n;
    s->on_interrupt = MD_ON_INTERRUPT_FAIL;
    json_t *prof = json_object_get(root, "profile"), *sl = json_object_get(root, "slices");
    if (!prof && !sl)
        return ms_error_set(err, MS_EINVAL, "job: missing field: \"profile\" or \"slices\"");
    /* The fixed-size rules of a job, with a stand-in time that is never used. */
    json_t *fixed = json_pack("{s:f}", "seconds", 1.0);
    if (!fixed || (prof && json_object_set(fixed, "profile", prof)) ||
        (sl && json_object_set(fixed, "slices", sl))) {
        json_decref(fixed);
        return ms_error_set(err, MS_ENOMEM, "job: out of memory");
    }
    int rc = parse_placement_request(fixed, gpu, s, err);
    json_decref(fixed);
    s->seconds = 0;
    return rc;
}

static int parse_root(json_t *root, const ms_gpu_model *gpu, md_job_spec *s, ms_error *err)
{
    if (!json_is_object(root))
        return ms_error_set(err, MS_EINVAL, "job: must be a JSON object");
    int rc = ms_json_check_keys(root, FIELDS, "job", err);
    if (rc)
        return rc;
    json_t *v;
    json_t *name = json_object_get(root, "name"), *cmd = json_object_get(root, "command");
    if ((v = json_object_get(root, "user")) &&
        (rc = get_string(v, "user", sizeof((md_job_owner *)0)->name - 1, &s->user, err)))
        return rc;
    if (!name)
        return ms_error_set(err, MS_EINVAL, "job: missing field: \"name\"");
    if ((v = json_object_get(root, "slurm_job_id"))) {
        if ((rc = get_string(name, "name", MD_JOB_NAME_MAX, &s->name, err)))
            return rc;
        return parse_allocation(root, v, gpu, s, err);
    }
    if (!cmd)
        return ms_error_set(err, MS_EINVAL, "job: missing field: \"command\"");
    if ((rc = get_string(name, "name", MD_JOB_NAME_MAX, &s->name, err)) ||
        (rc = parse_command(cmd, s, err)))
        return rc;
    if ((v = json_object_get(root, "cwd")) &&
        (rc = get_string(v, "cwd", MD_JOB_STRING_MAX, &s->cwd, err)))
        return rc;
    if (s->cwd && s->cwd[0] != '/')
        return bad(err, "cwd", "%s", "must be an absolute path");
    if ((v = json_object_get(root, "env")) && (rc = parse_env(v, s, err)))
        return rc;
    if ((v = json_object_get(root, "on_interrupt"))) {
        const char *o = json_string_value(v);
        if (o && !strcmp(o, "retry"))
            s->on_interrupt = MD_ON_INTERRUPT_RETRY;
        else if (o && !strcmp(o, "fail"))
            s->on_interrupt = MD_ON_INTERRUPT_FAIL;
        else
            return bad(err, "on_interrupt", "%s", "must be \"retry\" or \"fail\"");
    }
    return parse_placement_request(root, gpu, s, err);
}

int md_job_spec_parse(const char *text, size_t len, const ms_gpu_model *gpu, md_job_spec *out,
                      ms_error *err)
{
    memset(out, 0, sizeof *out);
    out->profile = -1;
    if (len > MD_JOB_BODY_MAX)
        return ms_error_set(err, MS_EINVAL, "job: %zu bytes, over the limit of %d", len,
                            MD_JOB_BODY_MAX);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "job: malformed JSON at line %d column %d: %s", je.line,
                            je.column, je.text);
    int rc = parse_root(root, gpu, out, err);
    json_decref(root);
    if (rc)
        md_job_spec_free(out);
    return rc;
}

json_t *md_job_spec_to_json(const md_job_spec *s, const ms_gpu_model *gpu)
{
    json_t *o = json_object(), *cmd = json_array(), *env = json_object();
    for (int i = 0; i < s->argc; i++)
        json_array_append_new(cmd, json_string(s->argv[i]));
    for (int i = 0; i < s->nenv; i++)
        json_object_set_new(env, s->env_keys[i], json_string(s->env_values[i]));
    json_object_set_new(o, "name", json_string(s->name));
    if (s->slurm_job_id > 0) {
        json_decref(cmd);
        json_decref(env);
        json_object_set_new(o, "slurm_job_id", json_integer(s->slurm_job_id));
        json_object_set_new(o, "profile", json_string(gpu->profiles[s->profile].name));
        return o;
    }
    json_object_set_new(o, "command", cmd);
    if (s->cwd)
        json_object_set_new(o, "cwd", json_string(s->cwd));
    json_object_set_new(o, "env", env);
    json_object_set_new(o, "on_interrupt",
                        json_string(s->on_interrupt == MD_ON_INTERRUPT_FAIL ? "fail" : "retry"));
    if (s->profile >= 0) {
        json_object_set_new(o, "profile", json_string(gpu->profiles[s->profile].name));
        json_object_set_new(o, "seconds", json_real(s->seconds));
    } else {
        json_t *t = json_object();
        for (int size = 1; size <= MS_MAX_SLICES; size++)
            if (s->times[size] > 0) {
                char k[4];
                snprintf(k, sizeof k, "%d", size);
                json_object_set_new(t, k, json_real(s->times[size]));
            }
        json_object_set_new(o, "times", t);
    }
    return o;
}

char *md_job_spec_text(const md_job_spec *s, const ms_gpu_model *gpu)
{
    json_t *o = md_job_spec_to_json(s, gpu);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

void md_job_spec_free(md_job_spec *s)
{
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    for (int i = 0; i < s->nenv; i++) {
        free(s->env_keys[i]);
        free(s->env_values[i]);
    }
    free(s->argv);
    free(s->env_keys);
    free(s->env_values);
    free(s->name);
    free(s->cwd);
    free(s->user);
    memset(s, 0, sizeof *s);
    s->profile = -1;
}

void md_job_init(md_job *j, md_job_spec *spec)
{
    memset(j, 0, sizeof *j);
    j->spec = *spec;
    memset(spec, 0, sizeof *spec);
    spec->profile = -1;
    j->state = MD_JOB_NEW;
    j->submitted = j->started = j->ended = NAN;
    j->gpu = -1;
    j->placement.profile = -1;
}

void md_job_free(md_job *j) { md_job_spec_free(&j->spec); }

static json_t *time_or_null(double t) { return isnan(t) ? json_null() : json_real(t); }

json_t *md_job_transition_to_json(const md_job_transition *t)
{
    return json_pack("{s:f, s:s, s:s, s:s, s:o}", "at", t->at, "event", md_job_event_name(t->event),
                     "from", md_job_state_name(t->from), "to", md_job_state_name(t->to), "reason",
                     t->reason[0] ? json_string(t->reason) : json_null());
}

const char *md_job_user(const md_job_owner *o, char uid[16])
{
    if (*o->name)
        return o->name;
    snprintf(uid, 16, "%u", (unsigned)o->uid);
    return uid;
}

/* {"stdout": PATH, "stderr": PATH} of the latest attempt, or null (see md_job_to_json). */
static json_t *logs_json(const md_job *j, const char *log_dir)
{
    char out[4400], errp[4400]; /* log-dir's 4096 bytes, then OWNER/job-ID.N.ext */
    ms_error ignored;
    if (!log_dir || j->attempts < 1 || j->spec.slurm_job_id > 0 ||
        md_job_log_path(log_dir, j, j->attempts, "out", out, sizeof out, &ignored) ||
        md_job_log_path(log_dir, j, j->attempts, "err", errp, sizeof errp, &ignored))
        return json_null();
    return json_pack("{s:s, s:s}", "stdout", out, "stderr", errp);
}

json_t *md_job_to_json(const md_job *j, const ms_gpu_model *gpu, bool detail, const char *log_dir)
{
    json_t *o = json_object();
    char uid[16];
    json_object_set_new(o, "id", json_integer(j->id));
    json_object_set_new(o, "name", json_string(j->spec.name));
    json_object_set_new(o, "user", json_string(md_job_user(&j->owner, uid)));
    json_object_set_new(o, "state", json_string(md_job_state_name(j->state)));
    /* Reasons are the daemon's own text; null when the state needs none. */
    json_object_set_new(o, "reason", j->reason[0] ? json_string(j->reason) : json_null());
    json_object_set_new(o, "attempts", json_integer(j->attempts));
    json_object_set_new(o, "submitted", time_or_null(j->submitted));
    json_object_set_new(o, "started", time_or_null(j->started));
    json_object_set_new(o, "ended", time_or_null(j->ended));
    /* From its submission (an allocation: the plugin's first ask) to its latest start. */
    json_object_set_new(o, "wait_seconds",
                        !isnan(j->started) && !isnan(j->submitted)
                            ? json_real(j->started - j->submitted)
                            : json_null());
    json_object_set_new(o, "gpu", j->gpu >= 0 ? json_integer(j->gpu) : json_null());
    /* The instance's profile once placed, else the one asked for (null with times). */
    int prof = j->placement.profile >= 0 ? j->placement.profile : j->spec.profile;
    json_object_set_new(o, "profile",
                        prof >= 0 ? json_string(gpu->profiles[prof].name) : json_null());
    json_object_set_new(o, "placement",
                        j->placement.profile >= 0 ? json_pack("{s:i}", "start", j->placement.start)
                                                  : json_null());
    json_object_set_new(o, "mig_uuid", j->mig_uuid[0] ? json_string(j->mig_uuid) : json_null());
    json_object_set_new(o, "exit_status", j->has_exit ? json_integer(j->exit_status) : json_null());
    json_object_set_new(o, "slurm_job_id",
                        j->spec.slurm_job_id > 0 ? json_integer(j->spec.slurm_job_id)
                                                 : json_null());
    if (detail) {
        json_object_set_new(o, "spec", md_job_spec_to_json(&j->spec, gpu));
        json_object_set_new(o, "logs", logs_json(j, log_dir));
    }
    return o;
}

int md_job_log_path(const char *log_dir, const md_job *j, int attempt, const char *ext, char *buf,
                    size_t len, ms_error *err)
{
    char uid[16];
    int n = snprintf(buf, len, "%s/%s/job-%lld.%d.%s", log_dir, md_job_user(&j->owner, uid),
                     (long long)j->id, attempt, ext);
    if (n < 0 || (size_t)n >= len)
        return ms_error_set(err, MS_EINVAL, "log-dir %s: job %lld's output path is too long",
                            log_dir, (long long)j->id);
    return MS_OK;
}
