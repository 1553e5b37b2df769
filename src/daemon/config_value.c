/* config_value.c: a configuration value's parser and writer, one pair per kind, each reading
 * the key's row for its field, bounds and choices (as Redis's config.c types do). */
#include "config_value.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/offline.h"

static const char *const BOOLS[] = {"false", "true", NULL};

static void *field(const md_key_row *row, md_config *c) { return (char *)c + row->offset; }

static const void *cfield(const md_key_row *row, const md_config *c)
{
    return (const char *)c + row->offset;
}

static int bad(ms_error *err, const char *where, const md_key_row *row, const char *value,
               const char *why)
{
    return ms_error_set(err, MS_EINVAL, "%s: %s \"%.200s\": %s", where, row->name, value, why);
}

/* A bound as a person writes it: 3600, 0.5, 1e9 (not 1e+09). */
static void bound_text(char *buf, size_t len, double x)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%g", x);
    const char *e = strchr(raw, 'e');
    if (!e) {
        snprintf(buf, len, "%s", raw);
        return;
    }
    const char *digits = e + 1 + (e[1] == '+' || e[1] == '-');
    digits += strspn(digits, "0");
    snprintf(buf, len, "%.*se%s%s", (int)(e - raw), raw, e[1] == '-' ? "-" : "", digits);
}

/* x in as few digits as read back the same (15 do for what a person writes). */
static void real_text(char *buf, size_t len, double x)
{
    snprintf(buf, len, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, len, "%.17g", x);
}

/* "a, b or c" */
static void names_text(char *buf, size_t len, const char *const *names)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < len; i++) {
        const char *sep = !i ? "" : names[i + 1] ? ", " : " or ";
        used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, names[i]);
    }
}

static int choice(const char *const *names, const char *value)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], value))
            return i;
    return -1;
}

static int parse_int(const md_key_row *row, md_config *c, const char *v, const char *where,
                     ms_error *err)
{
    long x;
    if (!ms_parse_long(v, (long)row->lo, (long)row->hi, &x)) {
        char why[96];
        snprintf(why, sizeof why, "expected %s %.0f..%.0f",
                 row->kind == MD_VALUE_BYTES ? "bytes," : "an integer", row->lo, row->hi);
        return bad(err, where, row, v, why);
    }
    if (row->kind == MD_VALUE_BYTES)
        *(long long *)field(row, c) = x;
    else
        *(int *)field(row, c) = (int)x;
    return MS_OK;
}

static void text_int(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    if (row->kind == MD_VALUE_BYTES)
        snprintf(buf, len, "%lld", *(const long long *)cfield(row, c));
    else
        snprintf(buf, len, "%d", *(const int *)cfield(row, c));
}

/* A finite number in (lo, hi], the whole text; or "0" where the row turns off at zero. */
static int parse_real(const md_key_row *row, md_config *c, const char *v, const char *where,
                      ms_error *err)
{
    double *out = field(row, c);
    if (row->zero_off && !strcmp(v, "0")) {
        *out = 0;
        return MS_OK;
    }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(x) || !(x > row->lo) || x > row->hi) {
        char lo[32], hi[32], why[128];
        bound_text(lo, sizeof lo, row->lo);
        bound_text(hi, sizeof hi, row->hi);
        snprintf(why, sizeof why, "expected %s above %s, at most %s%s",
                 row->kind == MD_VALUE_SECONDS ? "seconds" : "a number", lo, hi,
                 row->zero_off ? ", or 0 (never)" : "");
        return bad(err, where, row, v, why);
    }
    *out = x;
    return MS_OK;
}

static void text_real(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    real_text(buf, len, *(const double *)cfield(row, c));
}

/* A choice's index is stored through an int: every enum of the configuration is one. */
_Static_assert(sizeof(md_backend) == sizeof(int) && sizeof(md_mode) == sizeof(int) &&
                   sizeof(md_log_level) == sizeof(int) && sizeof(md_on_stop) == sizeof(int) &&
                   sizeof(md_isolation) == sizeof(int),
               "the configuration's enums are int-sized");

static int parse_choice(const md_key_row *row, md_config *c, const char *v, const char *where,
                        ms_error *err)
{
    int i = choice(row->names, v);
    if (i < 0) {
        char names[160], why[176];
        names_text(names, sizeof names, row->names);
        snprintf(why, sizeof why, "expected %s", names);
        return bad(err, where, row, v, why);
    }
    *(int *)field(row, c) = i;
    return MS_OK;
}

static void text_choice(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s", row->names[*(const int *)cfield(row, c)]);
}

static int parse_bool(const md_key_row *row, md_config *c, const char *v, const char *where,
                      ms_error *err)
{
    int i = choice(BOOLS, v);
    if (i < 0)
        return bad(err, where, row, v, "expected true or false");
    *(bool *)field(row, c) = i;
    return MS_OK;
}

static void text_bool(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s", BOOLS[*(const bool *)cfield(row, c)]);
}

static int parse_concat(const md_key_row *row, md_config *c, const char *v, const char *where,
                        ms_error *err)
{
    int i = ms_concat_parse(v);
    if (i < 0) {
        const char *const names[] = {ms_concat_name(MS_CONCAT_TRIVIAL),
                                     ms_concat_name(MS_CONCAT_REVERSE),
                                     ms_concat_name(MS_CONCAT_OVERLAP), NULL};
        char text[96], why[112];
        names_text(text, sizeof text, names);
        snprintf(why, sizeof why, "expected %s", text);
        return bad(err, where, row, v, why);
    }
    *(int *)field(row, c) = i;
    return MS_OK;
}

static void text_concat(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ms_concat_name(*(const int *)cfield(row, c)));
}

static int parse_path(const md_key_row *row, md_config *c, const char *v, const char *where,
                      ms_error *err)
{
    if (strlen(v) >= row->size) {
        char why[48];
        snprintf(why, sizeof why, "longer than %zu bytes", row->size - 1);
        return bad(err, where, row, v, why);
    }
    snprintf(field(row, c), row->size, "%s", v);
    return MS_OK;
}

static void text_path(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s", (const char *)cfield(row, c));
}

/* A user or group name as useradd takes it (or none for the empty name). */
static int parse_name(const md_key_row *row, md_config *c, const char *v, const char *where,
                      ms_error *err)
{
    char *dst = field(row, c);
    if (!strcmp(v, "none")) {
        *dst = '\0';
        return MS_OK;
    }
    size_t n = strlen(v);
    if (!n || n >= row->size || v[0] == '-' ||
        strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n) {
        char why[128];
        snprintf(why, sizeof why,
                 "expected a %s name ([A-Za-z0-9_.-], at most %zu "
                 "bytes, not starting with '-') or none",
                 strstr(row->name, "node") ? "node" : "user or group", row->size - 1);
        return bad(err, where, row, v, why);
    }
    snprintf(dst, row->size, "%s", v);
    return MS_OK;
}

static void text_name(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    const char *name = cfield(row, c);
    snprintf(buf, len, "%s", *name ? name : "none");
}

/* A GRES name as slurm.conf takes it; it goes into no shell, but stays plain. */
static int parse_gres(const md_key_row *row, md_config *c, const char *v, const char *where,
                      ms_error *err)
{
    size_t n = strlen(v);
    if (n >= row->size ||
        strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n) {
        char why[96];
        snprintf(why, sizeof why,
                 "expected a GRES name ([A-Za-z0-9_-], at most %zu bytes) "
                 "or none",
                 row->size - 1);
        return bad(err, where, row, v, why);
    }
    snprintf(field(row, c), row->size, "%s", v);
    return MS_OK;
}

/* Journalled with each job's cgroup name: absolute, no whitespace, room for both. */
static int parse_cgroup(const md_key_row *row, md_config *c, const char *v, const char *where,
                        ms_error *err)
{
    if (v[0] && strcmp(v, "none") && (v[0] != '/' || strpbrk(v, " \t\n\r")))
        return bad(err, where, row, v, "expected none or an absolute path without whitespace");
    if (strlen(v) > row->hi) {
        char why[48];
        snprintf(why, sizeof why, "longer than %.0f bytes", row->hi);
        return bad(err, where, row, v, why);
    }
    return parse_path(row, c, v, where, err);
}

static int parse_devices(const md_key_row *row, md_config *c, const char *v, const char *where,
                         ms_error *err)
{
    char buf[512];
    if (strlen(v) >= sizeof buf)
        return bad(err, where, row, v, "too long");
    snprintf(buf, sizeof buf, "%s", v);
    c->ndevices = 0;
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long d;
        if (!ms_parse_long(tok, (long)row->lo, (long)row->hi, &d)) {
            char why[96];
            snprintf(why, sizeof why,
                     "expected device indices %.0f..%.0f separated by "
                     "commas, e.g. 0,1",
                     row->lo, row->hi);
            return bad(err, where, row, v, why);
        }
        for (int i = 0; i < c->ndevices; i++)
            if (c->devices[i] == d)
                return bad(err, where, row, v, "a device is listed twice");
        c->devices[c->ndevices++] = (int)d;
    }
    if (c->ndevices == 0 || v[strlen(v) - 1] == ',' || v[0] == ',' || strstr(v, ",,"))
        return bad(err, where, row, v, "expected device indices separated by commas, e.g. 0,1");
    return MS_OK;
}

static void text_devices(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    (void)row;
    size_t used = 0;
    for (int i = 0; i < c->ndevices && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", c->devices[i]);
}

/* A loopback address: 127.0.0.0/8, ::1 or "localhost". */
static bool loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (!strcmp(host, "localhost"))
        return true;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* hp ("HOST:PORT" or "[IPV6]:PORT", the end of value) into l's host and port; messages
 * quote the whole value. */
static int parse_host_port(const md_key_row *row, md_listen *l, const char *value, const char *hp,
                           const char *where, ms_error *err)
{
    const char *h = hp, *colon;
    size_t hlen;
    if (*h == '[') { /* [::1]:PORT */
        const char *close = strchr(h, ']');
        if (!close || close[1] != ':')
            return bad(err, where, row, value, "expected [IPV6]:PORT");
        h++;
        hlen = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(h, ':');
        if (!colon)
            return bad(err, where, row, value, "expected HOST:PORT");
        hlen = (size_t)(colon - h);
    }
    if (hlen == 0 || hlen >= sizeof l->host)
        return bad(err, where, row, value, "expected HOST:PORT");
    memcpy(l->host, h, hlen);
    l->host[hlen] = '\0';
    long port;
    if (!ms_parse_long(colon + 1, 1, 65535, &port))
        return bad(err, where, row, value, "the port must be 1..65535");
    l->port = (int)port;
    return MS_OK;
}

static int parse_address(const md_key_row *row, md_listen *l, const char *value, const char *where,
                         ms_error *err)
{
    memset(l, 0, sizeof *l);
    snprintf(l->where, sizeof l->where, "%s", where);
    if (!strncmp(value, "unix:", 5)) {
        if (!value[5] || strlen(value + 5) >= sizeof l->path)
            return bad(err, where, row, value, "the socket path must be 1 to 107 bytes");
        snprintf(l->path, sizeof l->path, "%s", value + 5);
        return MS_OK;
    }
    if (strncmp(value, "tcp:", 4))
        return bad(err, where, row, value, "expected unix:PATH or tcp:127.0.0.1:PORT");
    int rc = parse_host_port(row, l, value, value + 4, where, err);
    if (rc)
        return rc;
    if (!loopback(l->host))
        return bad(err, where, row, value,
                   "tcp listens only on a loopback address "
                   "(127.0.0.1, ::1, localhost): the API has no TLS "
                   "(listen-metrics serves /metrics on any address)");
    l->tcp = true;
    return MS_OK;
}

static int parse_listen(const md_key_row *row, md_config *c, const char *v, const char *where,
                        ms_error *err)
{
    if (c->nlisten == MD_MAX_LISTEN) {
        char why[48];
        snprintf(why, sizeof why, "more than %d listen addresses", MD_MAX_LISTEN);
        return bad(err, where, row, v, why);
    }
    int rc = parse_address(row, &c->listen[c->nlisten], v, where, err);
    if (!rc)
        c->nlisten++;
    return rc;
}

/* HOST:PORT, or [IPV6]:PORT, after prefix. */
static size_t text_host_port(const md_listen *l, const char *prefix, char *buf, size_t len)
{
    const char *fmt = strchr(l->host, ':') ? "%s[%s]:%d" : "%s%s:%d";
    int n = snprintf(buf, len, fmt, prefix, l->host, l->port);
    return n < 0 ? 0 : (size_t)n;
}

static void text_listen(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    (void)row;
    size_t used = 0;
    for (int i = 0; i < c->nlisten && used < len; i++) {
        const md_listen *l = &c->listen[i];
        const char *sep = i ? "\n" : "";
        if (!l->tcp) {
            used += (size_t)snprintf(buf + used, len - used, "%sunix:%s", sep, l->path);
        } else {
            used += (size_t)snprintf(buf + used, len - used, "%s", sep);
            if (used < len)
                used += text_host_port(l, "tcp:", buf + used, len - used);
        }
    }
}

/* listen-metrics: one TCP address, any host (it serves /metrics and nothing else), or
 * none. */
static int parse_listen_metrics(const md_key_row *row, md_config *c, const char *v,
                                const char *where, ms_error *err)
{
    md_listen *l = &c->listen_metrics;
    memset(l, 0, sizeof *l);
    if (!strcmp(v, "none"))
        return MS_OK;
    int rc = parse_host_port(row, l, v, v, where, err);
    if (rc) {
        memset(l, 0, sizeof *l);
        return rc;
    }
    snprintf(l->where, sizeof l->where, "%s", where);
    l->tcp = l->metrics_only = true;
    return MS_OK;
}

static void text_listen_metrics(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    (void)row;
    if (c->listen_metrics.port)
        text_host_port(&c->listen_metrics, "", buf, len);
    else
        snprintf(buf, len, "none");
}

typedef int (*parse_fn)(const md_key_row *, md_config *, const char *, const char *, ms_error *);
typedef void (*text_fn)(const md_key_row *, const md_config *, char *, size_t);

static const struct {
    parse_fn parse;
    text_fn text;
} KINDS[MD_VALUE_NKINDS] = {
    [MD_VALUE_INT] = {parse_int, text_int},
    [MD_VALUE_BYTES] = {parse_int, text_int},
    [MD_VALUE_NUMBER] = {parse_real, text_real},
    [MD_VALUE_SECONDS] = {parse_real, text_real},
    [MD_VALUE_CHOICE] = {parse_choice, text_choice},
    [MD_VALUE_BOOL] = {parse_bool, text_bool},
    [MD_VALUE_CONCAT] = {parse_concat, text_concat},
    [MD_VALUE_PATH] = {parse_path, text_path},
    [MD_VALUE_NAME] = {parse_name, text_name},
    [MD_VALUE_GRES] = {parse_gres, text_path},
    [MD_VALUE_CGROUP] = {parse_cgroup, text_path},
    [MD_VALUE_DEVICES] = {parse_devices, text_devices},
    [MD_VALUE_LISTEN] = {parse_listen, text_listen},
    [MD_VALUE_METRICS_LISTEN] = {parse_listen_metrics, text_listen_metrics},
};

int md_value_parse(const md_key_row *row, md_config *c, const char *text, const char *where,
                   ms_error *err)
{
    return KINDS[row->kind].parse(row, c, text, where, err);
}

void md_value_text(const md_key_row *row, const md_config *c, char *buf, size_t len)
{
    buf[0] = '\0';
    KINDS[row->kind].text(row, c, buf, len);
}
