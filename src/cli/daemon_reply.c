/* daemon_reply.c: the shapes of migschedd's replies that the client commands rely on. */
#include "daemon_reply.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_job_states[] = {"queued", "running", "done", "failed", "cancelled", NULL};
static const char *const INSTANCE_STATES[] = {"creating", "idle", "busy", "destroying", NULL};

/* What a field must be; WANT says it in words. */
enum kind {
    POS_INT,
    COUNT,
    COUNT_OR_NULL,
    INT_OR_NULL,
    POS_INT_OR_NULL,
    STRING,
    STRING_OR_NULL,
    NUMBER,
    ARRAY,
    OBJECT
};
static const char *const WANT[] = {[POS_INT] = "a positive integer",
                                   [COUNT] = "a non-negative integer",
                                   [COUNT_OR_NULL] = "a non-negative integer or null",
                                   [INT_OR_NULL] = "an integer or null",
                                   [POS_INT_OR_NULL] = "a positive integer or null",
                                   [STRING] = "a string",
                                   [STRING_OR_NULL] = "a string or null",
                                   [NUMBER] = "a number",
                                   [ARRAY] = "an array",
                                   [OBJECT] = "an object"};

struct field {
    const char *key;
    enum kind kind;
    const char *const *choices; /* a STRING must be one of these (NULL: any) */
};

__attribute__((format(printf, 3, 4))) static int fail(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* A value for a message: a string quoted and escaped (cut short), a number, or its type. */
static const char *shown(json_t *v, char *buf, size_t len)
{
    enum { SHOWN = 40 };
    char esc[MS_ESCAPED_LEN(SHOWN)];
    switch (json_typeof(v)) {
    case JSON_STRING:
        snprintf(buf, len, "\"%s\"",
                 ms_escape(json_string_value(v), json_string_length(v), esc, sizeof esc));
        break;
    case JSON_INTEGER: snprintf(buf, len, "%lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: snprintf(buf, len, "%g", json_real_value(v)); break;
    case JSON_OBJECT: snprintf(buf, len, "an object"); break;
    case JSON_ARRAY: snprintf(buf, len, "an array"); break;
    case JSON_NULL: snprintf(buf, len, "null"); break;
    default: snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false"); break;
    }
    return buf;
}

static bool is_kind(json_t *v, enum kind k)
{
    bool in = json_is_integer(v);
    json_int_t i = json_integer_value(v);
    switch (k) {
    case POS_INT: return in && i >= 1;
    case COUNT: return in && i >= 0;
    case COUNT_OR_NULL: return json_is_null(v) || (in && i >= 0);
    case INT_OR_NULL: return json_is_null(v) || in;
    case POS_INT_OR_NULL: return json_is_null(v) || (in && i >= 1);
    case STRING: return json_is_string(v);
    case STRING_OR_NULL: return json_is_null(v) || json_is_string(v);
    case NUMBER: return json_is_number(v);
    case ARRAY: return json_is_array(v);
    case OBJECT: return json_is_object(v);
    }
    return false;
}

/* "queued, running, done, failed or cancelled". */
static void choices_text(const char *const *c, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; c[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s",
                              i == 0     ? ""
                              : c[i + 1] ? ", "
                                         : " or ",
                              c[i]);
}

static bool one_of(const char *s, const char *const *c)
{
    for (; *c; c++)
        if (!strcmp(s, *c))
            return true;
    return false;
}

/* The value of AT.KEY, when it is what f says; else NULL with msg. */
static json_t *field(json_t *o, const char *at, const struct field *f, char *msg, size_t len)
{
    json_t *v = json_object_get(o, f->key);
    const char *dot = *at ? "." : "";
    char val[MS_ESCAPED_LEN(40) + 8], want[128];
    if (!v) {
        fail(msg, len, "%s%s%s: missing", at, dot, f->key);
        return NULL;
    }
    if (!is_kind(v, f->kind)) {
        fail(msg, len, "%s%s%s: expected %s, not %s", at, dot, f->key, WANT[f->kind],
             shown(v, val, sizeof val));
        return NULL;
    }
    if (f->choices && json_is_string(v) && !one_of(json_string_value(v), f->choices)) {
        choices_text(f->choices, want, sizeof want);
        fail(msg, len, "%s%s%s: expected %s, not %s", at, dot, f->key, want,
             shown(v, val, sizeof val));
        return NULL;
    }
    return v;
}

/* Every field of the table. */
static int fields(json_t *o, const char *at, const struct field *f, size_t n, char *msg, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (!field(o, at, &f[i], msg, len))
            return 1;
    return 0;
}

/* AT, an element of an array, must be an object. */
static int object_at(json_t *v, const char *at, char *msg, size_t len)
{
    char val[MS_ESCAPED_LEN(40) + 8];
    return json_is_object(v)
               ? 0
               : fail(msg, len, "%s: expected an object, not %s", at, shown(v, val, sizeof val));
}

/* AT.placement, an object with a start slot. */
static int placement(json_t *o, const char *at, char *msg, size_t len)
{
    static const struct field PLACEMENT = {"placement", OBJECT, NULL},
                              START = {"start", COUNT, NULL};
    char here[96];
    json_t *p = field(o, at, &PLACEMENT, msg, len);
    snprintf(here, sizeof here, "%s%splacement", at, *at ? "." : "");
    return !p || !field(p, here, &START, msg, len);
}

int cli_reply_job(json_t *o, const char *at, char *msg, size_t len)
{
    static const struct field JOB[] = {{"id", POS_INT, NULL},
                                       {"name", STRING, NULL},
                                       {"state", STRING, cli_job_states},
                                       {"attempts", COUNT, NULL},
                                       {"gpu", COUNT_OR_NULL, NULL},
                                       {"profile", STRING_OR_NULL, NULL},
                                       {"exit_status", INT_OR_NULL, NULL}};
    static const struct field USER = {"user", STRING, NULL};
    if (fields(o, at, JOB, sizeof JOB / sizeof *JOB, msg, len) ||
        (json_object_get(o, "user") && !field(o, at, &USER, msg, len)))
        return 1;
    /* A job on a GPU is shown at its slot. */
    return json_is_integer(json_object_get(o, "gpu")) && placement(o, at, msg, len);
}

int cli_reply_one_job(json_t *o, char *msg, size_t len) { return cli_reply_job(o, "", msg, len); }

/* A next link: a path of this route, in the characters a URL takes as they are. */
static bool next_ok(const char *s)
{
    static const char ROUTE[] = "/v1/jobs";
    size_t n = sizeof ROUTE - 1;
    if (strncmp(s, ROUTE, n) || (s[n] && s[n] != '?') || strlen(s) > 1024)
        return false;
    for (; *s; s++)
        if (*s <= ' ' || *s >= 0x7f || strchr("#\"<>\\^`{|}", *s))
            return false;
    return true;
}

int cli_reply_jobs_page(json_t *o, char *msg, size_t len)
{
    static const struct field JOBS = {"jobs", ARRAY, NULL};
    json_t *jobs = field(o, "", &JOBS, msg, len), *j, *next = json_object_get(o, "next");
    if (!jobs)
        return 1;
    size_t i;
    json_array_foreach(jobs, i, j)
    {
        char at[32];
        snprintf(at, sizeof at, "jobs[%zu]", i);
        if (object_at(j, at, msg, len) || cli_reply_job(j, at, msg, len))
            return 1;
    }
    char val[MS_ESCAPED_LEN(40) + 8];
    if (next && !json_is_null(next) && !(json_is_string(next) && next_ok(json_string_value(next))))
        return fail(msg, len, "next: expected null or a path /v1/jobs?..., not %s",
                    shown(next, val, sizeof val));
    return 0;
}

int cli_reply_gpus(json_t *o, char *msg, size_t len)
{
    static const struct field GPUS = {"gpus", ARRAY, NULL};
    static const struct field GPU[] = {
        {"gpu", COUNT, NULL},      {"model", STRING, NULL},      {"uuid", STRING, NULL},
        {"slices", POS_INT, NULL}, {"busy_slices", COUNT, NULL}, {"fragmentation", NUMBER, NULL},
        {"instances", ARRAY, NULL}};
    static const struct field INSTANCE[] = {{"profile", STRING, NULL},
                                            {"state", STRING, INSTANCE_STATES},
                                            {"job", POS_INT_OR_NULL, NULL}};
    json_t *gpus = field(o, "", &GPUS, msg, len), *g, *in;
    if (!gpus)
        return 1;
    size_t i, k;
    json_array_foreach(gpus, i, g)
    {
        char at[32], inat[64];
        snprintf(at, sizeof at, "gpus[%zu]", i);
        if (object_at(g, at, msg, len) || fields(g, at, GPU, sizeof GPU / sizeof *GPU, msg, len))
            return 1;
        json_array_foreach(json_object_get(g, "instances"), k, in)
        {
            snprintf(inat, sizeof inat, "%s.instances[%zu]", at, k);
            if (object_at(in, inat, msg, len) ||
                fields(in, inat, INSTANCE, sizeof INSTANCE / sizeof *INSTANCE, msg, len) ||
                placement(in, inat, msg, len))
                return 1;
        }
    }
    return 0;
}

const char *cli_reply_text(json_t *o, const char *key, const char *dflt, char *buf)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v)
               ? ms_escape(json_string_value(v), json_string_length(v), buf, CLI_REPLY_TEXT_LEN)
               : dflt;
}

int cli_reply_print_json(const char *cmd, json_t *root)
{
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII)
                      : NULL;
    json_decref(root);
    if (!text) {
        fprintf(stderr, "migsched: %s: out of memory\n", cmd);
        return 1;
    }
    /* JSON_ENSURE_ASCII escapes all but DEL, which JSON allows raw: only inside strings. */
    for (const char *p = text; *p; p++)
        if (*p == 0x7f)
            fputs("\\u007f", stdout);
        else
            putchar(*p);
    putchar('\n');
    free(text);
    return 0;
}
