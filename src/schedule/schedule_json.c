/* schedule_json.c: migsched-schedule/1 JSON: writer (jansson encodes every value; one
 * instance or task per line) and a reader that names the field of every error. */
#include <float.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/io.h"
#include "migsched/parallel.h"
#include "migsched/schedule.h"
#include "schedule_internal.h"

#define FORMAT_NAME "migsched-schedule/1"
#define MAX_GPUS    4096

/* ---- writer ---------------------------------------------------------------------- */

static int max_digits(const json_t *v)
{
    int d = 1;
    if (json_is_real(v)) {
        d = real_digits(json_real_value(v));
    } else if (json_is_object(v)) {
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m)
        {
            int e = max_digits(m);
            d = e > d ? e : d;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m)
        {
            int e = max_digits(m);
            d = e > d ? e : d;
        }
    }
    return d;
}

/* NaN and infinities are JSON null. */
static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Writes indent, then obj encoded on one line (members only when strip is set, i.e.
 * without the braces), then tail. Reals use the shortest exact digits of the line.
 * Takes ownership of obj. */
static int emit(FILE *f, json_t *obj, const char *indent, bool strip, const char *tail)
{
    if (!obj)
        return -1;
    char *text = json_dumps(obj, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(max_digits(obj)));
    json_decref(obj);
    if (!text)
        return -1;
    size_t len = strlen(text);
    int rc = strip ? fprintf(f, "%s%.*s%s", indent, (int)(len - 2), text + 1, tail)
                   : fprintf(f, "%s%s%s", indent, text, tail);
    free(text);
    return rc < 0 ? -1 : 0;
}

/* Instance or task lines, formatted without building JSON objects: the same text as emit
 * (jansson's), reals at the precision of the line's longest, strings escaped by jansson
 * unless they are plain printable ASCII. Lines accumulate in the buffer until written. */
typedef struct line {
    char *buf;
    size_t len, cap;
    int digits; /* precision of the line's reals */
    bool bad;   /* out of memory, or a string jansson refuses (not UTF-8) */
} line;

static void put(line *l, const char *text, size_t n)
{
    if (l->len + n + 1 > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->len + n + 1)
            cap *= 2;
        char *b = realloc(l->buf, cap);
        if (!b) {
            l->bad = true;
            return;
        }
        l->buf = b;
        l->cap = cap;
    }
    memcpy(l->buf + l->len, text, n);
    l->len += n;
}

static void put_lit(line *l, const char *text) { put(l, text, strlen(text)); }

static void put_int(line *l, long long v)
{
    char b[24];
    put(l, b, (size_t)snprintf(b, sizeof b, "%lld", v));
}

/* A member: its key text (", \"key\": ", separator included) and an integer value. */
static void put_int_member(line *l, const char *key, long long v)
{
    put_lit(l, key);
    put_int(l, v);
}

static void put_real(line *l, double x)
{
    char b[32];
    if (isfinite(x))
        put(l, b, (size_t)real_text(x, l->digits, b));
    else
        put_lit(l, "null");
}

static void put_string(line *l, const char *text)
{
    const unsigned char *c = (const unsigned char *)text;
    while (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\')
        c++;
    if (!*c) {
        put_lit(l, "\"");
        put(l, text, (size_t)(c - (const unsigned char *)text));
        put_lit(l, "\"");
        return;
    }
    json_t *js = json_string(text);
    char *dumped = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    json_decref(js);
    if (dumped)
        put_lit(l, dumped);
    else
        l->bad = true;
    free(dumped);
}

/* Starts a line whose reals are xs[0..n): the precision that writes each exactly. */
static void line_start(line *l, const double *xs, int n)
{
    l->digits = 1;
    for (int i = 0; i < n; i++)
        if (isfinite(xs[i])) {
            int d = real_digits(xs[i]);
            l->digits = d > l->digits ? d : l->digits;
        }
    put_lit(l, "    {");
}

static void line_end(line *l, const char *tail)
{
    put_lit(l, "}");
    put_lit(l, tail);
}

/* Writes the lines held and empties the buffer (an empty one may have no buffer yet). */
static int flush_lines(line *l, FILE *f)
{
    int rc = l->bad || (l->len && fwrite(l->buf, 1, l->len, f) != l->len) ? -1 : 0;
    l->len = 0;
    return rc;
}

static void instance_line(line *l, const ms_schedule *s, const ms_sched_instance *in,
                          const char *tail)
{
    const ms_profile *pr = &s->gpu.profiles[in->profile];
    const double t[4] = {in->create_start, in->create_end, in->destroy_start, in->destroy_end};
    static const char *const key[4] = {", \"create_start\": ", ", \"create_end\": ",
                                       ", \"destroy_start\": ", ", \"destroy_end\": "};
    line_start(l, t, 4);
    put_int_member(l, "\"id\": ", in->id);
    put_int_member(l, ", \"gpu\": ", in->gpu);
    put_lit(l, ", \"profile\": ");
    put_string(l, pr->name);
    put_int_member(l, ", \"start_slot\": ", in->start_slot);
    put_int_member(l, ", \"size_slots\": ", pr->size_slots);
    put_int_member(l, ", \"slices\": ", pr->slices);
    for (int i = 0; i < 4; i++) {
        put_lit(l, key[i]);
        put_real(l, t[i]);
    }
    line_end(l, tail);
}

static void task_line(line *l, const ms_sched_task *t, const ms_workload *w, const char *tail)
{
    const double x[2] = {t->start, t->end};
    line_start(l, x, 2);
    if (w && t->index >= 0 && t->index < w->n) {
        put_lit(l, "\"name\": ");
        put_string(l, w->tasks[t->index].name);
        put_lit(l, ", ");
    }
    put_int_member(l, "\"index\": ", t->index);
    put_int_member(l, ", \"instance\": ", t->instance);
    put_lit(l, ", \"start\": ");
    put_real(l, t->start);
    put_lit(l, ", \"end\": ");
    put_real(l, t->end);
    line_end(l, tail);
}

/* Task lines [from, to) of s into b's buffer: blocks of them are formatted on two threads
 * and written in order, the same bytes as one by one. The first of a pair is written by the
 * thread that formats it (out set), while the second is formatted. */
typedef struct task_block {
    const ms_schedule *s;
    const ms_workload *w;
    int from, to;
    line l;
    FILE *out;
    int rc;
} task_block;

static void format_tasks(int k, void *ctx)
{
    task_block *b = (task_block *)ctx + k;
    for (int i = b->from; i < b->to && !b->l.bad; i++)
        task_line(&b->l, &b->s->task[i], b->w, i + 1 < b->s->ntasks ? ",\n" : "\n");
    if (b->out)
        b->rc = flush_lines(&b->l, b->out);
}

static int write_tasks(const ms_schedule *s, const ms_workload *w, FILE *f, int block, bool two)
{
    task_block b[2] = {{.s = s, .w = w, .out = f}, {.s = s, .w = w}};
    int rc = 0;
    for (int from = 0; from < s->ntasks && !rc; from += 2 * block) {
        b[0].from = from;
        b[1].from = b[0].to = s->ntasks - from > block ? from + block : s->ntasks;
        b[1].to = s->ntasks - b[1].from > block ? b[1].from + block : s->ntasks;
        ms_parallel_for(b[1].from < b[1].to ? 2 : 1, two ? 2 : 1, format_tasks, b);
        rc = b[0].rc | flush_lines(&b[1].l, f);
    }
    free(b[0].l.buf);
    free(b[1].l.buf);
    return rc;
}

static int emit_header(const ms_schedule *s, const ms_workload *w, FILE *f)
{
    const ms_gpu_model *g = &s->gpu;
    double lb = NAN, lbp = NAN;
    if (w)
        ms_bound_lbound_both(w, g, s->gpus, ms_schedule_present_sizes(s), &lb, &lbp);
    int rc = fprintf(f, "{\n") < 0;
    rc |= emit(f, json_pack("{s:s}", "format", FORMAT_NAME), "  ", true, ",\n");
    rc |= emit(f,
               json_pack("{s:s, s:i, s:s}", "gpu_model", g->name, "gpus", s->gpus, "algorithm",
                         s->algorithm),
               "  ", true, ",\n");
    rc |= emit(f,
               json_pack("{s:o, s:o, s:o, s:o}", "makespan", num(ms_schedule_makespan(s)),
                         "baseline", num(w ? ms_bound_baseline(w, g, s->gpus) : NAN), "l_bound",
                         num(lb), "l_bound_paper", num(lbp)),
               "  ", true, ",\n");
    if (s->nstats) {
        json_t *st = json_object();
        for (int i = 0; i < s->nstats; i++)
            json_object_set_new(st, s->stats[i].key, num(s->stats[i].value));
        rc |= emit(f, json_pack("{s:o}", "stats", st), "  ", true, ",\n");
    }
    json_t *initial = json_array();
    for (int k = 0; k < s->ninst; k++)
        if (isnan(s->inst[k].create_start))
            json_array_append_new(initial, json_integer(s->inst[k].id));
    if (json_array_size(initial))
        rc |= emit(f, json_pack("{s:o}", "initial", initial), "  ", true, ",\n");
    else
        json_decref(initial);
    return rc ? -1 : 0;
}

/* Tasks per block: a few MB of text, so the two buffers stay small beside the schedule. */
#define BLOCK_TASKS 32768

int ms_schedule_write_json(const ms_schedule *s, const ms_workload *w, FILE *f, ms_error *err)
{
    return schedule_write_json_blocks(s, w, f, BLOCK_TASKS, ms_online_cpus() >= 2, err);
}

int schedule_write_json_blocks(const ms_schedule *s, const ms_workload *w, FILE *f, int block,
                               bool two_threads, ms_error *err)
{
    for (int k = 0; k < s->ninst; k++)
        if (s->inst[k].profile < 0 || s->inst[k].profile >= s->gpu.nprofiles)
            return ms_error_set(err, MS_EINVAL, "instance %d has no profile of %s", k, s->gpu.name);
    int rc = emit_header(s, w, f);
    rc |= fprintf(f, "  \"instances\": [%s", s->ninst ? "\n" : "") < 0;
    line l = {0};
    for (int k = 0; k < s->ninst && !rc; k++) {
        instance_line(&l, s, &s->inst[k], k + 1 < s->ninst ? ",\n" : "\n");
        if (l.len >= 1 << 16 || k + 1 == s->ninst)
            rc |= flush_lines(&l, f);
    }
    free(l.buf);
    rc |= fprintf(f, "%s],\n  \"tasks\": [%s", s->ninst ? "  " : "", s->ntasks ? "\n" : "") < 0;
    if (!rc)
        rc |= write_tasks(s, w, f, block > 0 ? block : 1, two_threads);
    rc |= fprintf(f, "%s]\n}\n", s->ntasks ? "  " : "") < 0;
    if (rc)
        return ms_error_set(err, MS_EIO, "cannot write the schedule");
    return MS_OK;
}

/* ---- reader ---------------------------------------------------------------------- */

typedef struct rctx {
    const char *source;
    ms_error *err;
} rctx;

static int fail(rctx *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(rctx *r, const char *fmt, ...)
{
    char msg[MS_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ms_error_set(r->err, MS_EINVAL, "%s: %s", r->source, msg);
}

/* An integer member that fits an int; a missing one is an error when required. */
static int get_int(rctx *r, json_t *o, const char *path, const char *key, bool required, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        if (required)
            return fail(r, "%s%s%s: missing", path, *path ? "." : "", key);
        return MS_OK;
    }
    if (!json_is_integer(v))
        return fail(r, "%s%s%s: expected an integer", path, *path ? "." : "", key);
    json_int_t x = json_integer_value(v);
    if (x < INT_MIN || x > INT_MAX)
        return fail(r, "%s%s%s: %lld is out of range", path, *path ? "." : "", key, (long long)x);
    *out = (int)x;
    return MS_OK;
}

/* A number member; null (or missing when nullable) reads as NaN. */
static int get_time(rctx *r, json_t *o, const char *path, const char *key, bool nullable,
                    double *out)
{
    json_t *v = json_object_get(o, key);
    if ((!v || json_is_null(v)) && nullable) {
        *out = NAN;
        return MS_OK;
    }
    if (!v)
        return fail(r, "%s.%s: missing", path, key);
    if (!json_is_number(v))
        return fail(r, "%s.%s: expected a number%s", path, key, nullable ? " or null" : "");
    *out = json_number_value(v);
    const char *why = ms_time_check(*out);
    if (why)
        return fail(r, "%s.%s: %g %s", path, key, *out, why);
    return MS_OK;
}

static int get_string(rctx *r, json_t *o, const char *path, const char *key, bool required,
                      const char **out)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        if (required)
            return fail(r, "%s%s%s: missing", path, *path ? "." : "", key);
        return MS_OK;
    }
    if (!json_is_string(v))
        return fail(r, "%s%s%s: expected a string", path, *path ? "." : "", key);
    *out = json_string_value(v);
    return MS_OK;
}

/* The model: the caller's (the names must agree) or the built-in one named. */
static int resolve_gpu(rctx *r, const char *name, const ms_gpu_model *gpu, const ms_gpu_model **out)
{
    const ms_gpu_model *named = ms_gpu_builtin(name);
    if (gpu) {
        if (strcasecmp(name, gpu->name) && !(named && !strcmp(named->name, gpu->name)))
            return fail(r, "gpu_model: the schedule is for '%s' but the model given is %s", name,
                        gpu->name);
        *out = gpu;
        return MS_OK;
    }
    if (!named)
        return fail(r, "gpu_model: '%s' is not a built-in GPU model (give the model)", name);
    *out = named;
    return MS_OK;
}

static int read_instance(rctx *r, ms_schedule *s, json_t *o, size_t k)
{
    char path[48];
    snprintf(path, sizeof path, "instances[%zu]", k);
    if (!json_is_object(o))
        return fail(r, "%s: expected an object", path);
    int id = -1, gpu = 0, slot = 0, size_slots = -1, slices = -1;
    const char *profile = NULL;
    double t[4] = {NAN, NAN, NAN, NAN};
    static const char *tk[4] = {"create_start", "create_end", "destroy_start", "destroy_end"};
    if (get_int(r, o, path, "id", true, &id) || get_int(r, o, path, "gpu", true, &gpu) ||
        get_string(r, o, path, "profile", true, &profile) ||
        get_int(r, o, path, "start_slot", true, &slot) ||
        get_int(r, o, path, "size_slots", false, &size_slots) ||
        get_int(r, o, path, "slices", false, &slices))
        return MS_EINVAL;
    for (int i = 0; i < 4; i++)
        if (get_time(r, o, path, tk[i], true, &t[i]))
            return MS_EINVAL;
    if (id != (int)k)
        return fail(r, "%s.id: %d, expected %zu (ids are 0, 1, ... in order)", path, id, k);
    int p = ms_gpu_profile_by_name(&s->gpu, profile);
    if (p < 0)
        return fail(r, "%s.profile: unknown profile '%s' for %s", path, profile, s->gpu.name);
    const ms_profile *pr = &s->gpu.profiles[p];
    if (size_slots >= 0 && size_slots != pr->size_slots)
        return fail(r, "%s.size_slots: %d, but %s has %d", path, size_slots, pr->name,
                    pr->size_slots);
    if (slices >= 0 && slices != pr->slices)
        return fail(r, "%s.slices: %d, but %s has %d", path, slices, pr->name, pr->slices);
    if (ms_schedule_add_instance(s, gpu, p, slot, t[0], t[1], t[2], t[3]) < 0)
        return ms_error_set(r->err, MS_ENOMEM, "%s: out of memory", r->source);
    return MS_OK;
}

static int read_task(rctx *r, ms_schedule *s, json_t *o, size_t i)
{
    char path[48];
    snprintf(path, sizeof path, "tasks[%zu]", i);
    if (!json_is_object(o))
        return fail(r, "%s: expected an object", path);
    const char *name = NULL;
    int index = 0, inst = 0;
    double start = NAN, end = NAN;
    if (get_string(r, o, path, "name", false, &name) ||
        get_int(r, o, path, "index", true, &index) ||
        get_int(r, o, path, "instance", true, &inst) ||
        get_time(r, o, path, "start", false, &start) || get_time(r, o, path, "end", false, &end))
        return MS_EINVAL;
    if (inst < 0 || inst >= s->ninst)
        return fail(r, "%s.instance: no instance %d (the schedule has %d)", path, inst, s->ninst);
    if (ms_schedule_add_task(s, index, inst, start, end) ||
        (name && !(s->task[s->ntasks - 1].name = strdup(name))))
        return ms_error_set(r->err, MS_ENOMEM, "%s: out of memory", r->source);
    return MS_OK;
}

static int read_array(rctx *r, ms_schedule *s, json_t *root, const char *key,
                      int (*one)(rctx *, ms_schedule *, json_t *, size_t))
{
    json_t *a = json_object_get(root, key);
    if (!a)
        return fail(r, "%s: missing", key);
    if (!json_is_array(a))
        return fail(r, "%s: expected an array", key);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        int rc = one(r, s, v, i);
        if (rc)
            return rc;
    }
    return MS_OK;
}

static int read_stats(rctx *r, ms_schedule *s, json_t *root)
{
    json_t *st = json_object_get(root, "stats");
    if (!st)
        return MS_OK;
    if (!json_is_object(st))
        return fail(r, "stats: expected an object");
    const char *key;
    json_t *v;
    json_object_foreach(st, key, v)
    {
        if (strlen(key) >= MS_NAME_LEN)
            return fail(r, "stats.%.40s...: name longer than %d bytes", key, MS_NAME_LEN - 1);
        if (!json_is_number(v) && !json_is_null(v))
            return fail(r, "stats.%s: expected a number", key);
        if (s->nstats == MS_MAX_STATS)
            return fail(r, "stats: more than %d entries", MS_MAX_STATS);
        ms_schedule_set_stat(s, key, json_is_null(v) ? NAN : json_number_value(v));
    }
    return MS_OK;
}

/* "initial" lists exactly the instances whose creation times are null. */
static int read_initial(rctx *r, ms_schedule *s, json_t *root)
{
    json_t *a = json_object_get(root, "initial");
    if (a && !json_is_array(a))
        return fail(r, "initial: expected an array of instance ids");
    char *listed = calloc((size_t)s->ninst + 1, 1);
    if (!listed)
        return ms_error_set(r->err, MS_ENOMEM, "%s: out of memory", r->source);
    int rc = MS_OK;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        json_int_t id = json_is_integer(v) ? json_integer_value(v) : -1;
        if (id < 0 || id >= s->ninst)
            rc = fail(r, "initial[%zu]: not an instance id", i);
        else if (listed[id]++)
            rc = fail(r, "initial[%zu]: instance %lld listed twice", i, (long long)id);
        else if (!isnan(s->inst[id].create_start) || !isnan(s->inst[id].create_end))
            rc = fail(r, "initial[%zu]: instance %lld has creation times, so it is not initial", i,
                      (long long)id);
        if (rc)
            break;
    }
    for (int k = 0; k < s->ninst && !rc; k++)
        if (!listed[k] && isnan(s->inst[k].create_start) && isnan(s->inst[k].create_end))
            rc = fail(r, "instances[%d].create_start: null, but instance %d is not in \"initial\"",
                      k, k);
    free(listed);
    return rc;
}

static int read_root(rctx *r, json_t *root, const ms_gpu_model *gpu, ms_schedule **out)
{
    if (!json_is_object(root))
        return fail(r, "expected a JSON object");
    const char *format = NULL, *model = NULL, *algorithm = "";
    int gpus = 1;
    if (get_string(r, root, "", "format", true, &format) ||
        get_string(r, root, "", "gpu_model", true, &model) ||
        get_string(r, root, "", "algorithm", false, &algorithm) ||
        get_int(r, root, "", "gpus", false, &gpus))
        return MS_EINVAL;
    if (strcmp(format, FORMAT_NAME))
        return fail(r, "format: '%s', expected '%s'", format, FORMAT_NAME);
    if (gpus < 1 || gpus > MAX_GPUS)
        return fail(r, "gpus: %d, expected 1..%d", gpus, MAX_GPUS);
    if (strlen(algorithm) >= MS_NAME_LEN)
        return fail(r, "algorithm: longer than %d bytes", MS_NAME_LEN - 1);
    const ms_gpu_model *m = NULL;
    if (resolve_gpu(r, model, gpu, &m))
        return MS_EINVAL;
    ms_schedule *s = ms_schedule_new(m, gpus, algorithm);
    if (!s)
        return ms_error_set(r->err, MS_ENOMEM, "%s: out of memory", r->source);
    int rc = read_array(r, s, root, "instances", read_instance);
    if (!rc)
        rc = read_array(r, s, root, "tasks", read_task);
    if (!rc)
        rc = read_stats(r, s, root);
    if (!rc)
        rc = read_initial(r, s, root);
    if (rc) {
        ms_schedule_free(s);
        return rc;
    }
    *out = s;
    return MS_OK;
}

int ms_schedule_parse_json(const char *text, size_t len, const char *source,
                           const ms_gpu_model *gpu, ms_schedule **out, ms_error *err)
{
    rctx r = {source ? source : "<schedule>", err};
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s:%d:%d: %s", r.source, jerr.line, jerr.column,
                            jerr.text);
    int rc = read_root(&r, root, gpu, out);
    json_decref(root);
    return rc;
}

int ms_schedule_read_json(const char *path, const ms_gpu_model *gpu, ms_schedule **out,
                          ms_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    rc = ms_schedule_parse_json(text, len, path, gpu, out, err);
    free(text);
    return rc;
}
