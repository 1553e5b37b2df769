/* migparted.c: NVIDIA mig-parted's "version: v1" config files, read with libyaml's
 * document loader (every error names source:line:column and the field) and written one
 * device entry at a time for `migsched layout` and `migsched export`. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "migsched/exec.h"
#include "migsched/io.h"

/* Bounds that keep a hostile file (aliases repeating big nodes) cheap to walk. */
#define MAX_CONFIGS      256
#define MAX_ENTRIES      64
#define MAX_DEVICE_INDEX 255
#define MAX_COUNT        64

typedef struct reader {
    yaml_document_t *doc;
    const char *source;
    ms_error *err;
} reader;

static int fail_at(reader *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(reader *r, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[MS_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ms_error_set(r->err, MS_EINVAL, "%s:%zu:%zu: %s", r->source, n->start_mark.line + 1,
                        n->start_mark.column + 1, msg);
}

static yaml_node_t *node(reader *r, int id) { return yaml_document_get_node(r->doc, id); }

static const char *scalar(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML's null: an empty plain scalar, "~" or "null". */
static bool is_null(const yaml_node_t *n)
{
    const char *v = scalar(n);
    return v && plain(n) &&
           (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
            !strcmp(v, "NULL"));
}

static int parse_int(reader *r, const yaml_node_t *n, const char *field, int max, int *out)
{
    const char *v = scalar(n);
    char *end;
    errno = 0;
    long x = v && plain(n) && *v >= '0' && *v <= '9' ? strtol(v, &end, 10) : -1;
    if (x < 0 || errno || *end || x > max)
        return fail_at(r, n, "%s: '%s' is not a whole number from 0 to %d", field,
                       v ? v : "(not a scalar)", max);
    *out = (int)x;
    return MS_OK;
}

/* YAML 1.1 booleans, as mig-parted's Go YAML reader takes them. */
static int parse_bool(reader *r, const yaml_node_t *n, const char *field, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                      "on",   "On",   "ON",   "y",   "Y"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO",
                                     "off",   "Off",   "OFF",   "n",  "N"};
    const char *v = scalar(n);
    for (size_t i = 0; v && plain(n) && i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcmp(v, yes[i]))
            return *out = true, MS_OK;
        if (!strcmp(v, no[i]))
            return *out = false, MS_OK;
    }
    return fail_at(r, n, "%s: '%s' is not true or false", field, v ? v : "(not a scalar)");
}

/* Checks n is a mapping whose keys are distinct scalars. */
static int check_mapping(reader *r, const yaml_node_t *n, const char *what)
{
    if (n->type != YAML_MAPPING_NODE)
        return fail_at(r, n, "%s must be a mapping", what);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = node(r, p->key);
        if (!scalar(k))
            return fail_at(r, k, "%s: a key must be a plain name", what);
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
            if (!strcmp(scalar(node(r, q->key)), scalar(k)))
                return fail_at(r, k, "%s: '%s' appears twice", what, scalar(k));
    }
    return MS_OK;
}

static int read_devices(reader *r, const yaml_node_t *n, ms_migparted_entry *e)
{
    if (n->type == YAML_SCALAR_NODE) {
        if (strcmp(scalar(n), "all"))
            return fail_at(r, n, "devices: '%s' is neither 'all' nor a list of GPU indices",
                           scalar(n));
        e->all = true;
        return MS_OK;
    }
    if (n->type != YAML_SEQUENCE_NODE)
        return fail_at(r, n, "devices: must be 'all' or a list of GPU indices");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
        const yaml_node_t *d = node(r, *it);
        int idx;
        if (e->ndevices == MS_MIGPARTED_MAX_DEVICES)
            return fail_at(r, d, "devices: more than %d GPUs", MS_MIGPARTED_MAX_DEVICES);
        int rc = parse_int(r, d, "devices", MAX_DEVICE_INDEX, &idx);
        if (rc)
            return rc;
        for (int i = 0; i < e->ndevices; i++)
            if (e->devices[i] == idx)
                return fail_at(r, d, "devices: GPU %d is listed twice", idx);
        e->devices[e->ndevices++] = idx;
    }
    if (e->ndevices == 0)
        return fail_at(r, n, "devices: the list is empty");
    return MS_OK;
}

static int read_counts(reader *r, const yaml_node_t *n, ms_migparted_entry *e)
{
    int rc = check_mapping(r, n, "mig-devices");
    if (rc)
        return rc;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = node(r, p->key);
        if (e->ncounts == MS_MAX_PROFILES)
            return fail_at(r, k, "mig-devices: more than %d profiles", MS_MAX_PROFILES);
        if (strlen(scalar(k)) >= MS_NAME_LEN || !*scalar(k))
            return fail_at(r, k, "mig-devices: '%s' is not a MIG profile name", scalar(k));
        ms_migparted_count *c = &e->counts[e->ncounts];
        char field[MS_NAME_LEN + 16];
        snprintf(field, sizeof field, "mig-devices: %s", scalar(k));
        if ((rc = parse_int(r, node(r, p->value), field, MAX_COUNT, &c->count)))
            return rc;
        snprintf(c->profile, sizeof c->profile, "%s", scalar(k));
        c->line = (int)k->start_mark.line + 1;
        c->column = (int)k->start_mark.column + 1;
        e->ncounts++;
    }
    return MS_OK;
}

static int read_filter(reader *r, const yaml_node_t *n, ms_migparted_entry *e)
{
    bool ok = n->type == YAML_SCALAR_NODE;
    if (n->type == YAML_SEQUENCE_NODE) {
        ok = true;
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++)
            ok &= node(r, *it)->type == YAML_SCALAR_NODE;
    }
    if (!ok)
        return fail_at(r, n, "device-filter: must be a device ID or a list of them");
    e->device_filter = true;
    return MS_OK;
}

static int read_entry(reader *r, const yaml_node_t *n, ms_migparted_entry *e)
{
    int rc = check_mapping(r, n, "an entry of a config");
    if (rc)
        return rc;
    memset(e, 0, sizeof *e);
    e->line = (int)n->start_mark.line + 1;
    e->column = (int)n->start_mark.column + 1;
    const yaml_node_t *devices = NULL, *enabled = NULL, *counts = NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = node(r, p->key), *v = node(r, p->value);
        const char *key = scalar(k);
        if (!strcmp(key, "devices"))
            rc = read_devices(r, devices = v, e);
        else if (!strcmp(key, "mig-enabled"))
            rc = parse_bool(r, enabled = v, "mig-enabled", &e->mig_enabled);
        else if (!strcmp(key, "mig-devices"))
            rc = is_null(v) ? MS_OK : read_counts(r, counts = v, e);
        else if (!strcmp(key, "device-filter"))
            rc = read_filter(r, v, e);
        else
            rc = fail_at(r, k,
                         "unexpected field '%s' (devices, mig-enabled, mig-devices, device-filter)",
                         key);
        if (rc)
            return rc;
    }
    if (!devices)
        return fail_at(r, n, "missing required field 'devices'");
    if (!enabled)
        return fail_at(r, n, "missing required field 'mig-enabled'");
    if (e->mig_enabled && !counts)
        return fail_at(r, n, "missing required field 'mig-devices' when 'mig-enabled' is true");
    if (!e->mig_enabled && e->ncounts)
        return fail_at(r, counts, "mig-devices: listed while 'mig-enabled' is false");
    return MS_OK;
}

/* A GPU may be named by one entry of a config only. */
static int check_overlap(reader *r, const yaml_node_t *entries, const ms_migparted_config *c)
{
    for (int i = 0; i < c->nentries; i++)
        for (int j = 0; j < i; j++) {
            const ms_migparted_entry *a = &c->entries[j], *b = &c->entries[i];
            int shared = -1;
            for (int x = 0; x < b->ndevices && shared < 0; x++)
                for (int y = 0; y < a->ndevices; y++)
                    if (b->devices[x] == a->devices[y])
                        shared = b->devices[x];
            if (a->all || b->all || shared >= 0) {
                const yaml_node_t *bn = node(r, entries->data.sequence.items.start[i]);
                if (shared >= 0)
                    return fail_at(r, bn, "config '%s': GPU %d is also in the entry at line %d",
                                   c->name, shared, a->line);
                return fail_at(r, bn,
                               "config '%s': 'devices: all' leaves no GPU for another entry "
                               "(line %d)",
                               c->name, a->line);
            }
        }
    return MS_OK;
}

static int read_config(reader *r, const yaml_node_t *k, const yaml_node_t *v,
                       ms_migparted_config *c)
{
    snprintf(c->name, sizeof c->name, "%s", scalar(k));
    c->line = (int)k->start_mark.line + 1;
    c->column = (int)k->start_mark.column + 1;
    if (strlen(scalar(k)) >= sizeof c->name || !*scalar(k))
        return fail_at(r, k, "mig-configs: '%.40s' is not a usable config name", scalar(k));
    if (v->type != YAML_SEQUENCE_NODE)
        return fail_at(r, v, "config '%s' must be a list of entries", c->name);
    long n = v->data.sequence.items.top - v->data.sequence.items.start;
    if (n == 0)
        return fail_at(r, v, "config '%s' needs at least one entry", c->name);
    if (n > MAX_ENTRIES)
        return fail_at(r, v, "config '%s' has more than %d entries", c->name, MAX_ENTRIES);
    c->entries = calloc((size_t)n, sizeof *c->entries);
    if (!c->entries)
        return ms_error_set(r->err, MS_ENOMEM, "out of memory reading %s", r->source);
    for (long i = 0; i < n; i++) {
        int rc = read_entry(r, node(r, v->data.sequence.items.start[i]), &c->entries[i]);
        if (rc)
            return rc;
        c->nentries++;
    }
    return check_overlap(r, v, c);
}

static int read_root(reader *r, const yaml_node_t *root, ms_migparted *out)
{
    int rc = check_mapping(r, root, "the file");
    if (rc)
        return rc;
    const yaml_node_t *version = NULL, *configs = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = node(r, p->key);
        if (!strcmp(scalar(k), "version"))
            version = node(r, p->value);
        else if (!strcmp(scalar(k), "mig-configs"))
            configs = node(r, p->value);
        else
            return fail_at(r, k, "unexpected field '%s' (version, mig-configs)", scalar(k));
    }
    if (!version)
        return fail_at(r, root, "missing required field 'version'");
    if (!scalar(version) || strcmp(scalar(version), "v1"))
        return fail_at(r, version, "version: '%s' is not v1",
                       scalar(version) ? scalar(version) : "");
    if (!configs)
        return fail_at(r, root, "missing required field 'mig-configs'");
    if ((rc = check_mapping(r, configs, "mig-configs")))
        return rc;
    long n = configs->data.mapping.pairs.top - configs->data.mapping.pairs.start;
    if (n == 0)
        return fail_at(r, configs, "mig-configs needs at least one config");
    if (n > MAX_CONFIGS)
        return fail_at(r, configs, "mig-configs has more than %d configs", MAX_CONFIGS);
    out->configs = calloc((size_t)n, sizeof *out->configs);
    if (!out->configs)
        return ms_error_set(r->err, MS_ENOMEM, "out of memory reading %s", r->source);
    for (long i = 0; i < n; i++) {
        const yaml_node_pair_t *p = &configs->data.mapping.pairs.start[i];
        out->nconfigs++;
        if ((rc = read_config(r, node(r, p->key), node(r, p->value), &out->configs[i])))
            return rc;
    }
    return MS_OK;
}

static int load_error(const yaml_parser_t *p, const char *source, ms_error *err)
{
    if (p->error == YAML_MEMORY_ERROR)
        return ms_error_set(err, MS_ENOMEM, "out of memory reading %s", source);
    const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
    return ms_error_set(err, MS_EINVAL, "%s:%zu:%zu: not valid YAML: %s%s%s", source, m->line + 1,
                        m->column + 1, p->problem ? p->problem : "unreadable",
                        p->context ? " " : "", p->context ? p->context : "");
}

int ms_migparted_parse(const char *text, size_t len, const char *source, ms_migparted **out,
                       ms_error *err)
{
    *out = NULL;
    ms_migparted *c = calloc(1, sizeof *c);
    if (!c)
        return ms_error_set(err, MS_ENOMEM, "out of memory reading %s", source);
    snprintf(c->source, sizeof c->source, "%s", source);
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    if (!yaml_parser_initialize(&parser)) {
        free(c);
        return ms_error_set(err, MS_ENOMEM, "out of memory reading %s", source);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = load_error(&parser, source, err);
    } else {
        reader r = {&doc, source, err};
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root) {
            rc = ms_error_set(err, MS_EINVAL, "%s: empty file (no mig-parted config)", source);
        } else if ((rc = read_root(&r, root, c)) == MS_OK) {
            /* One document only: a second one would be silently ignored otherwise. */
            if (!yaml_parser_load(&parser, &extra)) {
                rc = load_error(&parser, source, err);
            } else {
                if (yaml_document_get_root_node(&extra))
                    rc = ms_error_set(err, MS_EINVAL, "%s:%zu: a second YAML document", source,
                                      extra.start_mark.line + 1);
                yaml_document_delete(&extra);
            }
        }
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    if (rc) {
        ms_migparted_free(c);
        return rc;
    }
    *out = c;
    return MS_OK;
}

int ms_migparted_read(const char *path, ms_migparted **out, ms_error *err)
{
    *out = NULL;
    char *buf = NULL;
    size_t len = 0;
    int rc = ms_read_file(path, &buf, &len, err);
    if (rc == MS_OK)
        rc = ms_migparted_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

void ms_migparted_free(ms_migparted *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nconfigs; i++)
        free(c->configs[i].entries);
    free(c->configs);
    free(c);
}

const ms_migparted_config *ms_migparted_find(const ms_migparted *c, const char *name)
{
    for (int i = 0; i < c->nconfigs; i++)
        if (!strcmp(c->configs[i].name, name))
            return &c->configs[i];
    return NULL;
}

const ms_migparted_entry *ms_migparted_entry_for(const ms_migparted_config *cfg, int device)
{
    for (int i = 0; i < cfg->nentries; i++) {
        const ms_migparted_entry *e = &cfg->entries[i];
        if (e->all)
            return e;
        for (int k = 0; k < e->ndevices; k++)
            if (e->devices[k] == device)
                return e;
    }
    return NULL;
}

void ms_migparted_write_entry(FILE *f, const ms_gpu_model *m, int device, bool mig_enabled,
                              const ms_partition *p)
{
    fprintf(f, "    - devices: [%d]\n      mig-enabled: %s\n", device,
            mig_enabled ? "true" : "false");
    if (!mig_enabled)
        return;
    if (p->n == 0) {
        fprintf(f, "      mig-devices: {}\n");
        return;
    }
    fprintf(f, "      # placements:");
    for (int i = 0; i < p->n; i++)
        fprintf(f, " %s@%d", m->profiles[p->inst[i].profile].name, p->inst[i].start);
    fprintf(f, "\n      mig-devices:\n");
    /* One line per profile with its count, in the model's profile order. */
    for (int pr = 0; pr < m->nprofiles; pr++) {
        int count = 0;
        for (int i = 0; i < p->n; i++)
            count += p->inst[i].profile == pr;
        if (count)
            fprintf(f, "        \"%s\": %d\n", m->profiles[pr].name, count);
    }
}
