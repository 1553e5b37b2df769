/* sim_state_json.c: the sim state file's JSON, read with every rule the driver enforces
 * checked (a state the sim could not have reached is refused, naming the field) and
 * written back in one fixed shape. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/exec.h"
#include "migsched/exec_sim_state.h"

typedef struct reader {
    const char *source;
    ms_error *err;
} reader;

static int bad(const reader *r, const char *field, const char *fmt, const char *what)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, what);
    return ms_error_set(r->err, MS_EINVAL, "%s: %s: %s", r->source, field, msg);
}

/* field.key, or key alone at the top. */
static void subfield(char *f, size_t len, const char *field, const char *key)
{
    bool top = !strcmp(field, "(top)");
    snprintf(f, len, "%s%s%s", top ? "" : field, top ? "" : ".", key);
}

/* Only the keys named (NULL-terminated) may appear. */
static int only_keys(const reader *r, json_t *obj, const char *field, const char *const *keys)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        bool known = false;
        for (int i = 0; keys[i]; i++)
            known |= !strcmp(k, keys[i]);
        if (!known) {
            char f[256];
            subfield(f, sizeof f, field, k);
            return bad(r, f, "%s", "unknown key");
        }
    }
    return MS_OK;
}

/* An integer in [lo, hi]. */
static int get_int(const reader *r, json_t *obj, const char *key, const char *field, long long lo,
                   long long hi, bool required, long long def, long long *out)
{
    char f[256];
    subfield(f, sizeof f, field, key);
    json_t *v = json_object_get(obj, key);
    *out = def;
    if (!v)
        return required ? bad(r, f, "%s", "missing") : MS_OK;
    if (!json_is_integer(v))
        return bad(r, f, "%s", "must be an integer");
    long long x = json_integer_value(v);
    if (x < lo || x > hi) {
        char range[80];
        snprintf(range, sizeof range, "%lld is outside %lld..%lld", x, lo, hi);
        return bad(r, f, "%s", range);
    }
    *out = x;
    return MS_OK;
}

static int get_string(const reader *r, json_t *obj, const char *key, const char *field,
                      bool required, char *out, size_t len)
{
    char f[256];
    subfield(f, sizeof f, field, key);
    json_t *v = json_object_get(obj, key);
    out[0] = '\0';
    if (!v)
        return required ? bad(r, f, "%s", "missing") : MS_OK;
    if (!json_is_string(v))
        return bad(r, f, "%s", "must be a string");
    if (strlen(json_string_value(v)) >= len)
        return bad(r, f, "%s", "too long");
    snprintf(out, len, "%s", json_string_value(v));
    return MS_OK;
}

static int read_pids(const reader *r, json_t *obj, const char *field, ms_sim_instance *si)
{
    char f[256];
    snprintf(f, sizeof f, "%s.pids", field);
    json_t *v = json_object_get(obj, "pids");
    if (!v)
        return MS_OK;
    if (!json_is_array(v))
        return bad(r, f, "%s", "must be an array of PIDs");
    if (json_array_size(v) > MS_MAX_PIDS)
        return bad(r, f, "%s", "more than 64 PIDs");
    size_t i;
    json_t *p;
    json_array_foreach(v, i, p)
    {
        if (!json_is_integer(p) || json_integer_value(p) < 1 || json_integer_value(p) > 0x7fffffff)
            return bad(r, f, "%s", "a PID must be a positive integer");
        si->pids[si->npids++] = (unsigned)json_integer_value(p);
    }
    if (si->npids && !si->in.nci)
        return bad(r, f, "%s", "processes need a compute instance (compute_instances 1)");
    return MS_OK;
}

/* The placement rules the driver applies to a creation, so that a hand-written state is
 * one the GPU could hold. */
static int check_placement(const reader *r, const ms_sim_gpu *g, int k, const char *field)
{
    const ms_mig_instance *in = &g->inst[k].in;
    const ms_profile *pr = &g->model.profiles[in->profile];
    char f[256], msg[300];
    snprintf(f, sizeof f, "%s.start", field);
    if (!ms_gpu_placement_allowed(&g->model, (ms_placement){in->profile, in->start_slot})) {
        int at = snprintf(msg, sizeof msg, "%d is not an allowed placement of %s on %s (",
                          in->start_slot, pr->name, g->model.name);
        for (int i = 0; i < pr->nstarts; i++)
            at += snprintf(msg + at, sizeof msg - (size_t)at, "%s%d", i ? ", " : "", pr->starts[i]);
        snprintf(msg + at, sizeof msg - (size_t)at, ")");
        return bad(r, f, "%s", msg);
    }
    uint32_t mask = ms_gpu_slot_mask(&g->model, (ms_placement){in->profile, in->start_slot});
    for (int j = 0; j < k; j++) {
        const ms_mig_instance *o = &g->inst[j].in;
        if (ms_gpu_slot_mask(&g->model, (ms_placement){o->profile, o->start_slot}) & mask) {
            snprintf(msg, sizeof msg, "%s at %d overlaps GPU instance %u (%s at %d)", pr->name,
                     in->start_slot, o->gi_id, g->model.profiles[o->profile].name, o->start_slot);
            return bad(r, f, "%s", msg);
        }
        if (o->gi_id == in->gi_id) {
            snprintf(f, sizeof f, "%s.gi", field);
            snprintf(msg, sizeof msg, "GPU instance id %u is used twice", in->gi_id);
            return bad(r, f, "%s", msg);
        }
    }
    return MS_OK;
}

static int read_instance(const reader *r, json_t *obj, ms_sim_gpu *g, const char *field)
{
    static const char *const keys[] = {"gi",   "profile", "start", "compute_instances",
                                       "uuid", "pids",    NULL};
    if (!json_is_object(obj))
        return bad(r, field, "%s", "must be an object");
    if (g->n == MS_MAX_MIG)
        return bad(r, field, "%s", "more than 16 GPU instances on one GPU");
    ms_sim_instance *si = &g->inst[g->n];
    memset(si, 0, sizeof *si);
    long long gi, start, nci;
    char profile[MS_NAME_LEN], f[200];
    int rc = only_keys(r, obj, field, keys);
    if (!rc)
        rc = get_int(r, obj, "gi", field, 1, 4096, true, 0, &gi);
    if (!rc)
        rc = get_string(r, obj, "profile", field, true, profile, sizeof profile);
    if (!rc)
        rc = get_int(r, obj, "start", field, 0, MS_MAX_SLOTS - 1, true, 0, &start);
    if (!rc)
        rc = get_int(r, obj, "compute_instances", field, 0, 1, false, 1, &nci);
    if (!rc)
        rc = get_string(r, obj, "uuid", field, nci == 1, si->in.uuid, sizeof si->in.uuid);
    if (rc)
        return rc;
    int p = ms_gpu_profile_by_name(&g->model, profile);
    snprintf(f, sizeof f, "%s.profile", field);
    if (p < 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "'%s' is not a profile of %s", profile, g->model.name);
        return bad(r, f, "%s", msg);
    }
    snprintf(f, sizeof f, "%s.uuid", field);
    if (nci == 0 && si->in.uuid[0])
        return bad(r, f, "%s", "an instance without a compute instance has no MIG device");
    if (nci == 1 && strncmp(si->in.uuid, "MIG-", 4))
        return bad(r, f, "%s", "must start with MIG-");
    si->in.gi_id = (unsigned)gi;
    si->in.ci_id = 0;
    si->in.nci = (int)nci;
    si->in.profile = p;
    si->in.start_slot = (int)start;
    si->in.size_slots = g->model.profiles[p].size_slots;
    if ((rc = read_pids(r, obj, field, si)) || (rc = check_placement(r, g, g->n, field)))
        return rc;
    g->n++;
    return MS_OK;
}

static int read_gpu(const reader *r, json_t *obj, ms_sim_gpu *g, const char *field)
{
    static const char *const keys[] = {"model", "uuid", "mig", "instances", NULL};
    if (!json_is_object(obj))
        return bad(r, field, "%s", "must be an object");
    char name[MS_NAME_LEN], f[200];
    int rc = only_keys(r, obj, field, keys);
    if (!rc)
        rc = get_string(r, obj, "model", field, true, name, sizeof name);
    if (!rc)
        rc = get_string(r, obj, "uuid", field, true, g->uuid, sizeof g->uuid);
    if (rc)
        return rc;
    const ms_gpu_model *m = ms_gpu_builtin(name);
    snprintf(f, sizeof f, "%s.model", field);
    if (!m)
        return bad(r, f, "'%s' is not a built-in GPU model", name);
    g->model = *m;
    snprintf(f, sizeof f, "%s.uuid", field);
    if (strncmp(g->uuid, "GPU-", 4))
        return bad(r, f, "%s", "must start with GPU-");
    json_t *mig = json_object_get(obj, "mig");
    snprintf(f, sizeof f, "%s.mig", field);
    if (!json_is_boolean(mig))
        return bad(r, f, "%s", mig ? "must be true or false" : "missing");
    g->mig = json_is_true(mig);
    json_t *list = json_object_get(obj, "instances");
    snprintf(f, sizeof f, "%s.instances", field);
    if (list && !json_is_array(list))
        return bad(r, f, "%s", "must be an array");
    if (!g->mig && json_array_size(list))
        return bad(r, f, "%s", "GPU instances need MIG mode on (mig: true)");
    size_t i;
    json_t *in;
    json_array_foreach(list, i, in)
    {
        char fi[128];
        snprintf(fi, sizeof fi, "%s.instances[%zu]", field, i);
        if ((rc = read_instance(r, in, g, fi)))
            return rc;
    }
    return MS_OK;
}

/* MIG device UUIDs and GPU UUIDs are unique in the whole file, as NVML's are. */
static int check_uuids(const reader *r, const ms_sim_state *s)
{
    char f[256];
    for (int a = 0; a < s->ngpus; a++) {
        for (int b = 0; b < a; b++)
            if (!strcmp(s->gpu[a].uuid, s->gpu[b].uuid)) {
                char msg[160];
                snprintf(f, sizeof f, "gpus[%d].uuid", a);
                snprintf(msg, sizeof msg, "%s is also GPU %d's", s->gpu[a].uuid, b);
                return bad(r, f, "%s", msg);
            }
        for (int i = 0; i < s->gpu[a].n; i++)
            for (int b = 0; b <= a; b++)
                for (int j = 0; j < (b == a ? i : s->gpu[b].n); j++)
                    if (s->gpu[a].inst[i].in.uuid[0] &&
                        !strcmp(s->gpu[a].inst[i].in.uuid, s->gpu[b].inst[j].in.uuid)) {
                        snprintf(f, sizeof f, "gpus[%d].instances[%d].uuid", a, i);
                        return bad(r, f, "%s is another instance's too", s->gpu[a].inst[i].in.uuid);
                    }
    }
    return MS_OK;
}

int ms_sim_state_parse(const char *text, size_t len, const char *source, ms_sim_state *out,
                       ms_error *err)
{
    static const char *const keys[] = {"format", "serial", "gpus", NULL};
    reader r = {source, err};
    memset(out, 0, sizeof *out);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s:%d:%d: not JSON: %s", source, jerr.line,
                            jerr.column, jerr.text);
    char format[64];
    long long serial = 0;
    int rc = json_is_object(root) ? MS_OK : bad(&r, "(top)", "%s", "must be an object");
    if (!rc)
        rc = only_keys(&r, root, "(top)", keys);
    if (!rc)
        rc = get_string(&r, root, "format", "(top)", true, format, sizeof format);
    if (!rc && strcmp(format, MS_SIM_STATE_FORMAT))
        rc = bad(&r, "format", "'%s' is not " MS_SIM_STATE_FORMAT, format);
    if (!rc)
        rc = get_int(&r, root, "serial", "(top)", 0, 0xffffffffLL, true, 0, &serial);
    json_t *gpus = json_object_get(root, "gpus");
    if (!rc && (!json_is_array(gpus) || json_array_size(gpus) == 0 ||
                json_array_size(gpus) > MS_RUN_MAX_GPUS))
        rc = bad(&r, "gpus", "%s", "must be an array of 1 to 16 GPUs");
    size_t i;
    json_t *g;
    json_array_foreach(gpus, i, g)
    {
        char f[64];
        snprintf(f, sizeof f, "gpus[%zu]", i);
        if (rc || (rc = read_gpu(&r, g, &out->gpu[out->ngpus++], f)))
            break;
    }
    if (!rc)
        rc = check_uuids(&r, out);
    out->serial = (unsigned)serial;
    json_decref(root);
    return rc;
}

static json_t *instance_json(const ms_sim_gpu *g, const ms_sim_instance *si)
{
    json_t *o = json_pack("{s:I, s:s, s:i, s:i}", "gi", (json_int_t)si->in.gi_id, "profile",
                          g->model.profiles[si->in.profile].name, "start", si->in.start_slot,
                          "compute_instances", si->in.nci);
    if (si->in.uuid[0])
        json_object_set_new(o, "uuid", json_string(si->in.uuid));
    if (si->npids) {
        json_t *pids = json_array();
        for (int k = 0; k < si->npids; k++)
            json_array_append_new(pids, json_integer(si->pids[k]));
        json_object_set_new(o, "pids", pids);
    }
    return o;
}

/* The file's text, keys in a fixed order, NUL-terminated and malloc'd (NULL: no memory). */
char *ms_sim_state_dump(const ms_sim_state *s)
{
    json_t *gpus = json_array();
    for (int k = 0; k < s->ngpus; k++) {
        const ms_sim_gpu *g = &s->gpu[k];
        json_t *list = json_array();
        for (int i = 0; i < g->n; i++)
            json_array_append_new(list, instance_json(g, &g->inst[i]));
        json_array_append_new(gpus, json_pack("{s:s, s:s, s:b, s:o}", "model", g->model.name,
                                              "uuid", g->uuid, "mig", g->mig, "instances", list));
    }
    json_t *root = json_pack("{s:s, s:I, s:o}", "format", MS_SIM_STATE_FORMAT, "serial",
                             (json_int_t)s->serial, "gpus", gpus);
    char *text = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    return text;
}
