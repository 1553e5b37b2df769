/* config.c: migschedd's configuration file and flags (Redis's config.c lifecycle: one table
 * of keys, each also a flag, each marked as changeable on SIGHUP or not). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migsched/io.h"
#include "migsched/offline.h"
#include "tokens.h"

static const struct {
    const char *name;
    bool reloadable;
} KEYS[MS_DAEMON_NKEYS] = {
    [MS_KEY_BACKEND] = {"backend", false},       [MS_KEY_GPU] = {"gpu", false},
    [MS_KEY_GPUS] = {"gpus", false},             [MS_KEY_DEVICES] = {"devices", false},
    [MS_KEY_LISTEN] = {"listen", false},         [MS_KEY_TOKEN_FILE] = {"token-file", true},
    [MS_KEY_DB] = {"db", false},                 [MS_KEY_INIT_STORE] = {"init-store", false},
    [MS_KEY_MODE] = {"mode", false},
    [MS_KEY_TIME_SCALE] = {"time-scale", true},  [MS_KEY_LOG_LEVEL] = {"log-level", true},
    [MS_KEY_ON_STOP] = {"on-stop", true},        [MS_KEY_BATCH_SIZE] = {"batch-size", true},
    [MS_KEY_BATCH_PERIOD] = {"batch-period", true}, [MS_KEY_BATCH_CONCAT] = {"batch-concat", true},
    [MS_KEY_QUEUE_LIMIT] = {"queue-limit", true},
    [MS_KEY_STOP_GRACE] = {"stop-grace", true},  [MS_KEY_TAU] = {"tau", true},
    [MS_KEY_LOG_DIR] = {"log-dir", false},       [MS_KEY_SLURM_RECONCILE] = {"slurm-reconcile", false},
    [MS_KEY_SLURM_GRES] = {"slurm-gres", false},
    [MS_KEY_HPC_JOB_MAPPING_DIR] = {"hpc-job-mapping-dir", false},
    [MS_KEY_ALLOW_ROOT_JOBS] = {"allow-root-jobs", false},
    [MS_KEY_ADMIN_GROUP] = {"admin-group", true}, [MS_KEY_SLURM_USER] = {"slurm-user", true},
    [MS_KEY_ISOLATION] = {"isolation", false},   [MS_KEY_DEV_DIR] = {"dev-dir", false},
    [MS_KEY_MIG_MINORS] = {"mig-minors", false}, [MS_KEY_CGROUP_ROOT] = {"cgroup-root", false},
    [MS_KEY_USER_QUEUE_LIMIT] = {"user-queue-limit", true},
    [MS_KEY_USER_QUEUE_BYTES] = {"user-queue-bytes", true},
    [MS_KEY_PEER_CONNECTIONS] = {"peer-connections", false},
    [MS_KEY_REQUEST_TIMEOUT] = {"request-timeout", false},
    [MS_KEY_MAX_ATTEMPTS] = {"max-attempts", false}, [MS_KEY_RETENTION] = {"retention", false},
};

static const char *const BACKENDS[] = {"nvml", "sim", NULL};
static const char *const MODES[] = {"online", "batch", NULL};
static const char *const LEVELS[] = {"debug", "info", "warn", "error", NULL};
static const char *const ON_STOP[] = {"wait", "requeue", NULL};
static const char *const BOOLS[] = {"false", "true", NULL};
static const char *const ISOLATIONS[] = {"devices", "none", NULL};

static const char DEFAULT_SOCKET[] = "/run/migschedd/migschedd.sock";

void ms_daemon_config_defaults(ms_daemon_config *c)
{
    memset(c, 0, sizeof *c);
    c->backend = MS_DAEMON_NVML;
    c->nlisten = 1;
    snprintf(c->listen[0].path, sizeof c->listen[0].path, "%s", DEFAULT_SOCKET);
    snprintf(c->db, sizeof c->db, "/var/lib/migschedd/migschedd.db");
    c->mode = MS_DAEMON_ONLINE;
    c->time_scale = 1;
    c->log_level = MS_LOG_INFO;
    c->on_stop = MS_ON_STOP_WAIT;
    c->batch_size = 16;
    c->batch_period = 60;
    c->batch_concat = MS_CONCAT_OVERLAP;
    c->queue_limit = 100000;
    c->stop_grace = 10;
    c->tau = 0.4;
    snprintf(c->log_dir, sizeof c->log_dir, "/var/log/migschedd");
    c->slurm_reconcile = 60;
    snprintf(c->slurm_gres, sizeof c->slurm_gres, "migslice");
    snprintf(c->slurm_user, sizeof c->slurm_user, "slurm");
    c->isolation = MS_ISOLATION_DEVICES;
    snprintf(c->dev_dir, sizeof c->dev_dir, "/dev");
    snprintf(c->mig_minors, sizeof c->mig_minors, "/proc/driver/nvidia-caps/mig-minors");
    c->user_queue_limit = 10000;
    c->user_queue_bytes = 16777216;
    c->peer_connections = 32;
    c->request_timeout = 10;
    c->max_attempts = 3;
    c->retention = 7 * 86400;
}

int ms_daemon_key_parse(const char *name)
{
    for (int k = 0; k < MS_DAEMON_NKEYS; k++)
        if (!strcmp(name, KEYS[k].name))
            return k;
    return -1;
}

const char *ms_daemon_key_name(int key)
{
    return key >= 0 && key < MS_DAEMON_NKEYS ? KEYS[key].name : "?";
}

bool ms_daemon_key_reloadable(int key)
{
    return key >= 0 && key < MS_DAEMON_NKEYS && KEYS[key].reloadable;
}

static int bad(ms_error *err, const char *where, const char *key, const char *value,
               const char *why)
{
    return ms_error_set(err, MS_EINVAL, "%s: %s \"%.200s\": %s", where, key, value, why);
}

static int choice(const char *const *names, const char *value)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], value))
            return i;
    return -1;
}

/* An integer in [lo, hi], the whole text. */
static bool parse_int(const char *s, long lo, long hi, int *out)
{
    long v;
    if (!ms_parse_long(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

/* A finite number in (0, hi], the whole text. */
static bool parse_positive(const char *s, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || !(v > 0) || v > hi)
        return false;
    *out = v;
    return true;
}

static int parse_devices(ms_daemon_config *c, const char *value, const char *where,
                         ms_error *err)
{
    char buf[512];
    if (strlen(value) >= sizeof buf)
        return bad(err, where, "devices", value, "too long");
    snprintf(buf, sizeof buf, "%s", value);
    c->ndevices = 0;
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int d;
        if (!parse_int(tok, 0, MS_DAEMON_MAX_DEVICES - 1, &d))
            return bad(err, where, "devices", value, "expected device indices 0..63 "
                                                     "separated by commas, e.g. 0,1");
        for (int i = 0; i < c->ndevices; i++)
            if (c->devices[i] == d)
                return bad(err, where, "devices", value, "a device is listed twice");
        c->devices[c->ndevices++] = d;
    }
    if (c->ndevices == 0 || value[strlen(value) - 1] == ',' || value[0] == ',' ||
        strstr(value, ",,"))
        return bad(err, where, "devices", value, "expected device indices separated by "
                                                 "commas, e.g. 0,1");
    return MS_OK;
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

static int parse_listen(ms_daemon_listen *l, const char *value, const char *where,
                        ms_error *err)
{
    memset(l, 0, sizeof *l);
    snprintf(l->where, sizeof l->where, "%s", where);
    if (!strncmp(value, "unix:", 5)) {
        if (!value[5] || strlen(value + 5) >= sizeof l->path)
            return bad(err, where, "listen", value, "the socket path must be 1 to 107 bytes");
        snprintf(l->path, sizeof l->path, "%s", value + 5);
        return MS_OK;
    }
    if (strncmp(value, "tcp:", 4))
        return bad(err, where, "listen", value, "expected unix:PATH or tcp:127.0.0.1:PORT");
    const char *h = value + 4, *colon;
    size_t hlen;
    if (*h == '[') { /* tcp:[::1]:PORT */
        const char *close = strchr(h, ']');
        if (!close || close[1] != ':')
            return bad(err, where, "listen", value, "expected tcp:[::1]:PORT");
        h++;
        hlen = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(h, ':');
        if (!colon)
            return bad(err, where, "listen", value, "expected tcp:HOST:PORT");
        hlen = (size_t)(colon - h);
    }
    if (hlen == 0 || hlen >= sizeof l->host)
        return bad(err, where, "listen", value, "expected tcp:HOST:PORT");
    memcpy(l->host, h, hlen);
    l->host[hlen] = '\0';
    if (!parse_int(colon + 1, 1, 65535, &l->port))
        return bad(err, where, "listen", value, "the port must be 1..65535");
    if (!loopback(l->host))
        return bad(err, where, "listen", value, "tcp listens only on a loopback address "
                                                "(127.0.0.1, ::1, localhost): the API has no "
                                                "TLS");
    l->tcp = true;
    return MS_OK;
}

/* A user or group name as useradd takes it (or none for the empty name). */
static int set_name(char *dst, size_t size, const char *value, const char *where,
                    const char *key, ms_error *err)
{
    if (!strcmp(value, "none")) {
        *dst = '\0';
        return MS_OK;
    }
    size_t n = strlen(value);
    if (!n || n >= size || value[0] == '-' ||
        strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
        return bad(err, where, key, value, "expected a user or group name ([A-Za-z0-9_.-], "
                   "at most 63 bytes, not starting with '-') or none");
    snprintf(dst, size, "%s", value);
    return MS_OK;
}

static int set_path(char *dst, const char *value, const char *where, const char *key,
                    ms_error *err)
{
    if (strlen(value) >= MS_DAEMON_PATH_LEN)
        return bad(err, where, key, value, "longer than 4095 bytes");
    snprintf(dst, MS_DAEMON_PATH_LEN, "%s", value);
    return MS_OK;
}

/* Sets the key's value; the source bookkeeping is ms_daemon_config_set's. */
static int set_value(ms_daemon_config *c, int k, const char *v, const char *w, ms_error *err)
{
    const char *name = KEYS[k].name;
    int i;
    switch (k) {
    case MS_KEY_BACKEND:
        if ((i = choice(BACKENDS, v)) < 0)
            return bad(err, w, name, v, "expected nvml or sim");
        c->backend = (ms_daemon_backend)i;
        return MS_OK;
    case MS_KEY_GPU:
        return set_path(c->gpu, v, w, name, err);
    case MS_KEY_GPUS:
        return parse_int(v, 1, MS_DAEMON_MAX_DEVICES, &c->gpus)
                   ? MS_OK : bad(err, w, name, v, "expected an integer 1..64");
    case MS_KEY_DEVICES:
        return parse_devices(c, v, w, err);
    case MS_KEY_LISTEN:
        if (c->nlisten == MS_DAEMON_MAX_LISTEN)
            return bad(err, w, name, v, "more than 8 listen addresses");
        if ((i = parse_listen(&c->listen[c->nlisten], v, w, err)))
            return i;
        c->nlisten++;
        return MS_OK;
    case MS_KEY_TOKEN_FILE:
        return set_path(c->token_file, v, w, name, err);
    case MS_KEY_DB:
        return set_path(c->db, v, w, name, err);
    case MS_KEY_MODE:
        if ((i = choice(MODES, v)) < 0)
            return bad(err, w, name, v, "expected online or batch");
        c->mode = (ms_daemon_mode)i;
        return MS_OK;
    case MS_KEY_TIME_SCALE:
        return parse_positive(v, 1e6, &c->time_scale)
                   ? MS_OK : bad(err, w, name, v, "expected a number above 0, at most 1e6");
    case MS_KEY_LOG_LEVEL:
        if ((i = choice(LEVELS, v)) < 0)
            return bad(err, w, name, v, "expected debug, info, warn or error");
        c->log_level = (ms_log_level)i;
        return MS_OK;
    case MS_KEY_ON_STOP:
        if ((i = choice(ON_STOP, v)) < 0)
            return bad(err, w, name, v, "expected wait or requeue");
        c->on_stop = (ms_on_stop)i;
        return MS_OK;
    case MS_KEY_BATCH_SIZE:
        return parse_int(v, 1, 100000, &c->batch_size)
                   ? MS_OK : bad(err, w, name, v, "expected an integer 1..100000");
    case MS_KEY_BATCH_PERIOD:
        return parse_positive(v, MS_TIME_MAX, &c->batch_period)
                   ? MS_OK : bad(err, w, name, v, "expected seconds above 0, at most 1e9");
    case MS_KEY_BATCH_CONCAT:
        if ((i = ms_concat_parse(v)) < 0)
            return bad(err, w, name, v, "expected trivial, reverse or overlap");
        c->batch_concat = i;
        return MS_OK;
    case MS_KEY_QUEUE_LIMIT:
        return parse_int(v, 1, 100000000, &c->queue_limit)
                   ? MS_OK : bad(err, w, name, v, "expected an integer 1..100000000");
    case MS_KEY_STOP_GRACE:
        return parse_positive(v, 3600, &c->stop_grace)
                   ? MS_OK : bad(err, w, name, v, "expected seconds above 0, at most 3600");
    case MS_KEY_LOG_DIR:
        return set_path(c->log_dir, v, w, name, err);
    case MS_KEY_TAU:
        return parse_positive(v, 1, &c->tau)
                   ? MS_OK : bad(err, w, name, v, "expected a number above 0, at most 1");
    case MS_KEY_SLURM_RECONCILE:
        if (!strcmp(v, "0")) {
            c->slurm_reconcile = 0;
            return MS_OK;
        }
        return parse_positive(v, 86400, &c->slurm_reconcile)
                   ? MS_OK : bad(err, w, name, v, "expected seconds above 0, at most 86400, "
                                                  "or 0 (never)");
    case MS_KEY_SLURM_GRES:
        /* A GRES name as slurm.conf takes it; it goes into no shell, but stays plain. */
        if (strlen(v) >= sizeof c->slurm_gres || strspn(v, "abcdefghijklmnopqrstuvwxyz"
                                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                           "0123456789_-") != strlen(v))
            return bad(err, w, name, v, "expected a GRES name ([A-Za-z0-9_-], at most 63 "
                                        "bytes) or none");
        snprintf(c->slurm_gres, sizeof c->slurm_gres, "%s", v);
        return MS_OK;
    case MS_KEY_HPC_JOB_MAPPING_DIR:
        return set_path(c->hpc_job_mapping_dir, v, w, name, err);
    case MS_KEY_INIT_STORE:
        if ((i = choice(BOOLS, v)) < 0)
            return bad(err, w, name, v, "expected true or false");
        c->init_store = i;
        return MS_OK;
    case MS_KEY_ALLOW_ROOT_JOBS:
        if ((i = choice(BOOLS, v)) < 0)
            return bad(err, w, name, v, "expected true or false");
        c->allow_root_jobs = i;
        return MS_OK;
    case MS_KEY_ADMIN_GROUP:
        return set_name(c->admin_group, sizeof c->admin_group, v, w, name, err);
    case MS_KEY_SLURM_USER:
        return set_name(c->slurm_user, sizeof c->slurm_user, v, w, name, err);
    case MS_KEY_ISOLATION:
        if ((i = choice(ISOLATIONS, v)) < 0)
            return bad(err, w, name, v, "expected devices or none");
        c->isolation = (ms_isolation)i;
        return MS_OK;
    case MS_KEY_DEV_DIR:
        return set_path(c->dev_dir, v, w, name, err);
    case MS_KEY_MIG_MINORS:
        return set_path(c->mig_minors, v, w, name, err);
    case MS_KEY_CGROUP_ROOT:
        /* Journalled with each job's cgroup name: absolute, no whitespace, room for both. */
        if (v[0] && strcmp(v, "none") && (v[0] != '/' || strpbrk(v, " \t\n\r")))
            return bad(err, w, name, v, "expected none or an absolute path without whitespace");
        if (strlen(v) > 160)
            return bad(err, w, name, v, "longer than 160 bytes");
        return set_path(c->cgroup_root, v, w, name, err);
    case MS_KEY_USER_QUEUE_LIMIT:
        return parse_int(v, 1, 100000000, &c->user_queue_limit)
                   ? MS_OK : bad(err, w, name, v, "expected an integer 1..100000000");
    case MS_KEY_USER_QUEUE_BYTES: {
        long b;
        if (!ms_parse_long(v, 65536, 1L << 40, &b))
            return bad(err, w, name, v, "expected bytes, 65536..1099511627776");
        c->user_queue_bytes = b;
        return MS_OK;
    }
    case MS_KEY_PEER_CONNECTIONS:
        return parse_int(v, 1, MS_DAEMON_CONNECTION_LIMIT, &c->peer_connections)
                   ? MS_OK : bad(err, w, name, v, "expected an integer 1..256");
    case MS_KEY_REQUEST_TIMEOUT:
        return parse_positive(v, 3600, &c->request_timeout)
                   ? MS_OK : bad(err, w, name, v, "expected seconds above 0, at most 3600");
    case MS_KEY_MAX_ATTEMPTS:
        return parse_int(v, 1, 1000, &c->max_attempts)
                   ? MS_OK : bad(err, w, name, v, "expected an integer 1..1000");
    case MS_KEY_RETENTION:
        return parse_positive(v, MS_TIME_MAX, &c->retention)
                   ? MS_OK : bad(err, w, name, v, "expected seconds above 0, at most 1e9");
    }
    return ms_error_set(err, MS_EINVAL, "%s: unknown key", w);
}

static bool from_flag(const char *where)
{
    return !strncmp(where, "--", 2);
}

int ms_daemon_config_set(ms_daemon_config *c, const char *key, const char *value,
                         const char *where, ms_error *err)
{
    int k = ms_daemon_key_parse(key);
    if (k < 0)
        return ms_error_set(err, MS_EINVAL, "%s: unknown key \"%.80s\" (see docs/daemon.md)",
                            where, key);
    if (!*value)
        return ms_error_set(err, MS_EINVAL, "%s: %s: missing value", where, key);
    const char *prev = c->where[k];
    bool prev_flag = from_flag(prev);
    if (k == MS_KEY_LISTEN) {
        /* The defaults, or the file's lines when the first flag comes, are replaced. */
        if (!*prev || (from_flag(where) && !prev_flag))
            c->nlisten = 0;
    } else if (*prev && prev_flag == from_flag(where)) {
        return ms_error_set(err, MS_EINVAL, "%s: %s is already set at %s", where, key, prev);
    }
    int rc = set_value(c, k, value, where, err);
    if (!rc)
        snprintf(c->where[k], sizeof c->where[k], "%s", where);
    return rc;
}

int ms_daemon_config_load(ms_daemon_config *c, const char *path, ms_error *err)
{
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    int lineno = 0;
    for (char *line = text, *next; line && !rc; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
            line[--n] = '\0';
        line += strspn(line, " \t");
        if (!*line || *line == '#')
            continue;
        char *value = line + strcspn(line, " \t");
        if (*value)
            *value++ = '\0';
        value += strspn(value, " \t");
        char where[MS_DAEMON_WHERE_LEN];
        snprintf(where, sizeof where, "%.140s:%d", path, lineno);
        rc = ms_daemon_config_set(c, line, value, where, err);
    }
    free(text);
    return rc;
}

int ms_daemon_config_from_args(ms_daemon_config *c, int argc, char **argv, ms_error *err)
{
    ms_daemon_config_defaults(c);
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config")) {
            if (i + 1 == argc)
                return ms_error_set(err, MS_EINVAL, "--config: missing file name");
            if (file)
                return ms_error_set(err, MS_EINVAL, "--config given twice");
            file = argv[++i];
        } else if (!strncmp(argv[i], "--config=", 9)) {
            if (file)
                return ms_error_set(err, MS_EINVAL, "--config given twice");
            file = argv[i] + 9;
        }
    }
    int rc;
    if (file && (rc = ms_daemon_config_load(c, file, err)))
        return rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--config")) {
            i++;
            continue;
        }
        if (!strncmp(a, "--config=", 9))
            continue;
        if (strncmp(a, "--", 2) || !a[2])
            return ms_error_set(err, MS_EINVAL, "unexpected argument \"%.80s\"", a);
        char key[64], where[MS_DAEMON_WHERE_LEN];
        const char *eq = strchr(a, '='), *value;
        size_t klen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (klen >= sizeof key)
            return ms_error_set(err, MS_EINVAL, "unknown flag \"%.80s\"", a);
        memcpy(key, a + 2, klen);
        key[klen] = '\0';
        if (ms_daemon_key_parse(key) < 0)
            return ms_error_set(err, MS_EINVAL, "unknown flag \"--%s\" (see docs/daemon.md)",
                                key);
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return ms_error_set(err, MS_EINVAL, "--%s: missing value", key);
        }
        snprintf(where, sizeof where, "--%s", key);
        if ((rc = ms_daemon_config_set(c, key, value, where, err)))
            return rc;
    }
    return MS_OK;
}

/* Where a key was set, for messages about a rule between keys. */
static const char *origin(const ms_daemon_config *c, int k)
{
    return *c->where[k] ? c->where[k] : "the defaults";
}

/* The token file exists, holds a token and is private to its owner. */
static int check_token_file(const ms_daemon_config *c, ms_error *err)
{
    const char *w = origin(c, MS_KEY_TOKEN_FILE);
    struct stat st;
    if (stat(c->token_file, &st))
        return ms_error_set(err, MS_EINVAL, "%s: token-file %s: %s", w, c->token_file,
                            strerror(errno));
    if (st.st_mode & 077)
        return ms_error_set(err, MS_EINVAL, "%s: token-file %s: readable by group or others "
                            "(chmod 600 it)", w, c->token_file);
    /* It says who every TCP caller is: whoever may write it may be anyone. */
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return ms_error_set(err, MS_EINVAL, "%s: token-file %s: owned by uid %u: it must be "
                            "owned by root or uid %u", w, c->token_file, (unsigned)st.st_uid,
                            (unsigned)geteuid());
    ms_tokens *t;
    int rc = ms_tokens_read(c->token_file, &t, err);
    if (rc) {
        ms_error_prefix(err, "%s: token-file", w);
        return rc;
    }
    ms_tokens_free(t);
    return MS_OK;
}

/* A db not given: the service's while listen is the default; else beside the first unix
 * socket, named after it, so that daemons started by hand on other sockets never share a
 * store (and a test's daemon never writes the service's). */
static int default_db(ms_daemon_config *c, ms_error *err)
{
    if (*c->where[MS_KEY_DB] || (c->nlisten == 1 && !c->listen[0].tcp &&
                                 !strcmp(c->listen[0].path, DEFAULT_SOCKET)))
        return MS_OK;
    for (int i = 0; i < c->nlisten; i++)
        if (!c->listen[i].tcp) {
            snprintf(c->db, sizeof c->db, "%s.db", c->listen[i].path);
            return MS_OK;
        }
    return ms_error_set(err, MS_EINVAL, "%s: listen tcp:%s:%d alone: give the db (no unix "
                        "socket to name it after)", c->listen[0].where, c->listen[0].host,
                        c->listen[0].port);
}

int ms_daemon_config_check(ms_daemon_config *c, ms_error *err)
{
    c->has_model = false;
    if (c->backend == MS_DAEMON_SIM) {
        if (!*c->gpu || !c->gpus)
            return ms_error_set(err, MS_EINVAL, "%s: backend sim needs gpu MODEL and gpus N",
                                origin(c, MS_KEY_BACKEND));
        if (c->ndevices)
            return ms_error_set(err, MS_EINVAL, "%s: devices is for backend nvml (backend sim "
                                "at %s)", c->where[MS_KEY_DEVICES], origin(c, MS_KEY_BACKEND));
    } else {
        if (!c->ndevices)
            return ms_error_set(err, MS_EINVAL, "%s: backend nvml needs devices (e.g. 0,1)",
                                origin(c, MS_KEY_BACKEND));
        if (c->gpus)
            return ms_error_set(err, MS_EINVAL, "%s: gpus is for backend sim (nvml uses "
                                "devices)", c->where[MS_KEY_GPUS]);
        if (*c->where[MS_KEY_TIME_SCALE])
            return ms_error_set(err, MS_EINVAL, "%s: time-scale is for backend sim",
                                c->where[MS_KEY_TIME_SCALE]);
    }
    if (c->mode != MS_DAEMON_BATCH)
        for (int k = MS_KEY_BATCH_SIZE; k <= MS_KEY_BATCH_CONCAT; k++)
            if (*c->where[k])
                return ms_error_set(err, MS_EINVAL, "%s: %s goes with mode batch (mode is "
                                    "online)", c->where[k], KEYS[k].name);
    for (int i = 0; i < c->nlisten; i++)
        if (c->listen[i].tcp && !*c->token_file)
            return ms_error_set(err, MS_EINVAL, "%s: listen tcp:%s:%d needs a token-file "
                                "(clients send its token as a bearer token)",
                                c->listen[i].where, c->listen[i].host, c->listen[i].port);
    int rc;
    if (*c->token_file && (rc = check_token_file(c, err)))
        return rc;
    if ((rc = default_db(c, err)))
        return rc;
    if (*c->gpu) {
        if ((rc = ms_gpu_lookup(c->gpu, &c->model, err))) {
            ms_error_prefix(err, "%s: gpu", origin(c, MS_KEY_GPU));
            return rc;
        }
        c->has_model = true;
    }
    return MS_OK;
}

/* x in as few digits as read back the same (15 do for what a person writes). */
static void real_text(char *buf, size_t len, double x)
{
    snprintf(buf, len, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, len, "%.17g", x);
}

/* A key's value as the file format writes it (listen: every address, '\n'-separated). */
static void value_text(const ms_daemon_config *c, int k, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    switch (k) {
    case MS_KEY_BACKEND: snprintf(buf, len, "%s", BACKENDS[c->backend]); break;
    case MS_KEY_GPU: snprintf(buf, len, "%s", c->gpu); break;
    case MS_KEY_GPUS: snprintf(buf, len, "%d", c->gpus); break;
    case MS_KEY_DEVICES:
        for (int i = 0; i < c->ndevices && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "",
                                     c->devices[i]);
        break;
    case MS_KEY_LISTEN:
        for (int i = 0; i < c->nlisten && used < len; i++) {
            const ms_daemon_listen *l = &c->listen[i];
            const char *sep = i ? "\n" : "";
            if (!l->tcp)
                used += (size_t)snprintf(buf + used, len - used, "%sunix:%s", sep, l->path);
            else if (strchr(l->host, ':'))
                used += (size_t)snprintf(buf + used, len - used, "%stcp:[%s]:%d", sep, l->host,
                                         l->port);
            else
                used += (size_t)snprintf(buf + used, len - used, "%stcp:%s:%d", sep, l->host,
                                         l->port);
        }
        break;
    case MS_KEY_TOKEN_FILE: snprintf(buf, len, "%s", c->token_file); break;
    case MS_KEY_DB: snprintf(buf, len, "%s", c->db); break;
    case MS_KEY_MODE: snprintf(buf, len, "%s", MODES[c->mode]); break;
    case MS_KEY_TIME_SCALE: real_text(buf, len, c->time_scale); break;
    case MS_KEY_LOG_LEVEL: snprintf(buf, len, "%s", LEVELS[c->log_level]); break;
    case MS_KEY_ON_STOP: snprintf(buf, len, "%s", ON_STOP[c->on_stop]); break;
    case MS_KEY_BATCH_SIZE: snprintf(buf, len, "%d", c->batch_size); break;
    case MS_KEY_BATCH_PERIOD: real_text(buf, len, c->batch_period); break;
    case MS_KEY_BATCH_CONCAT: snprintf(buf, len, "%s", ms_concat_name(c->batch_concat)); break;
    case MS_KEY_QUEUE_LIMIT: snprintf(buf, len, "%d", c->queue_limit); break;
    case MS_KEY_STOP_GRACE: real_text(buf, len, c->stop_grace); break;
    case MS_KEY_TAU: real_text(buf, len, c->tau); break;
    case MS_KEY_LOG_DIR: snprintf(buf, len, "%s", c->log_dir); break;
    case MS_KEY_SLURM_RECONCILE: real_text(buf, len, c->slurm_reconcile); break;
    case MS_KEY_SLURM_GRES: snprintf(buf, len, "%s", c->slurm_gres); break;
    case MS_KEY_HPC_JOB_MAPPING_DIR: snprintf(buf, len, "%s", c->hpc_job_mapping_dir); break;
    case MS_KEY_ALLOW_ROOT_JOBS: snprintf(buf, len, "%s", BOOLS[c->allow_root_jobs]); break;
    case MS_KEY_INIT_STORE: snprintf(buf, len, "%s", BOOLS[c->init_store]); break;
    case MS_KEY_ADMIN_GROUP:
        snprintf(buf, len, "%s", *c->admin_group ? c->admin_group : "none");
        break;
    case MS_KEY_SLURM_USER:
        snprintf(buf, len, "%s", *c->slurm_user ? c->slurm_user : "none");
        break;
    case MS_KEY_ISOLATION: snprintf(buf, len, "%s", ISOLATIONS[c->isolation]); break;
    case MS_KEY_DEV_DIR: snprintf(buf, len, "%s", c->dev_dir); break;
    case MS_KEY_MIG_MINORS: snprintf(buf, len, "%s", c->mig_minors); break;
    case MS_KEY_CGROUP_ROOT: snprintf(buf, len, "%s", c->cgroup_root); break;
    case MS_KEY_USER_QUEUE_LIMIT: snprintf(buf, len, "%d", c->user_queue_limit); break;
    case MS_KEY_USER_QUEUE_BYTES: snprintf(buf, len, "%lld", c->user_queue_bytes); break;
    case MS_KEY_PEER_CONNECTIONS: snprintf(buf, len, "%d", c->peer_connections); break;
    case MS_KEY_REQUEST_TIMEOUT: real_text(buf, len, c->request_timeout); break;
    case MS_KEY_MAX_ATTEMPTS: snprintf(buf, len, "%d", c->max_attempts); break;
    case MS_KEY_RETENTION: real_text(buf, len, c->retention); break;
    }
}

#define VALUE_LEN (MS_DAEMON_MAX_LISTEN * 160 + MS_DAEMON_PATH_LEN)

int ms_daemon_config_reload_check(const ms_daemon_config *cur, const ms_daemon_config *next,
                                  ms_error *err)
{
    char a[VALUE_LEN], b[VALUE_LEN];
    for (int k = 0; k < MS_DAEMON_NKEYS; k++) {
        if (KEYS[k].reloadable)
            continue;
        value_text(cur, k, a, sizeof a);
        value_text(next, k, b, sizeof b);
        if (strcmp(a, b))
            return ms_error_set(err, MS_EINVAL, "%s: %s cannot change while migschedd runs "
                                "(restart it); kept the running configuration",
                                origin(next, k), KEYS[k].name);
    }
    return MS_OK;
}

void ms_daemon_config_write(const ms_daemon_config *c, FILE *f)
{
    char v[VALUE_LEN];
    for (int k = 0; k < MS_DAEMON_NKEYS; k++) {
        value_text(c, k, v, sizeof v);
        /* Only what ms_daemon_config_check accepts back: no key foreign to the backend
         * or mode. */
        bool skip = !*v || (k == MS_KEY_GPUS && !c->gpus) ||
                    (k == MS_KEY_TIME_SCALE && c->backend != MS_DAEMON_SIM) ||
                    (k >= MS_KEY_BATCH_SIZE && k <= MS_KEY_BATCH_CONCAT &&
                     c->mode != MS_DAEMON_BATCH);
        if (skip)
            continue;
        for (char *line = v, *nl; line; line = nl) {
            if ((nl = strchr(line, '\n')))
                *nl++ = '\0';
            fprintf(f, "%s %s\n", KEYS[k].name, line);
        }
    }
}
