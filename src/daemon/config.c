/* config.c: migschedd's configuration file and flags over it (Redis's config.c lifecycle),
 * the rules between keys, SIGHUP's check and the file written back; each key's own value
 * is its row's (config_keys.c) and config_value.c's. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_keys.h"
#include "migsched/exec_backend.h"
#include "migsched/io.h"
#include "tokens.h"

static bool from_flag(const char *where) { return !strncmp(where, "--", 2); }

int md_config_set(md_config *c, const char *key, const char *value, const char *where,
                  ms_error *err)
{
    int k = md_key_parse(key);
    if (k < 0)
        return ms_error_set(err, MS_EINVAL, "%s: unknown key \"%.80s\" (see docs/daemon.md)", where,
                            key);
    if (!*value)
        return ms_error_set(err, MS_EINVAL, "%s: %s: missing value", where, key);
    const char *prev = c->where[k];
    bool prev_flag = from_flag(prev);
    if (k == MD_KEY_LISTEN) {
        /* The defaults, or the file's lines when the first flag comes, are replaced. */
        if (!*prev || (from_flag(where) && !prev_flag))
            c->nlisten = 0;
    } else if (*prev && prev_flag == from_flag(where)) {
        return ms_error_set(err, MS_EINVAL, "%s: %s is already set at %s", where, key, prev);
    }
    int rc = md_value_parse(&md_keys[k], c, value, where, err);
    if (!rc)
        snprintf(c->where[k], sizeof c->where[k], "%s", where);
    return rc;
}

int md_config_load(md_config *c, const char *path, ms_error *err)
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
        char where[MD_WHERE_LEN];
        snprintf(where, sizeof where, "%.140s:%d", path, lineno);
        rc = md_config_set(c, line, value, where, err);
    }
    free(text);
    return rc;
}

int md_config_from_args(md_config *c, int argc, char **argv, ms_error *err)
{
    md_config_defaults(c);
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
    if (file && (rc = md_config_load(c, file, err)))
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
        char key[64], where[MD_WHERE_LEN];
        const char *eq = strchr(a, '='), *value;
        size_t klen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (klen >= sizeof key)
            return ms_error_set(err, MS_EINVAL, "unknown flag \"%.80s\"", a);
        memcpy(key, a + 2, klen);
        key[klen] = '\0';
        if (md_key_parse(key) < 0)
            return ms_error_set(err, MS_EINVAL, "unknown flag \"--%s\" (see docs/daemon.md)", key);
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return ms_error_set(err, MS_EINVAL, "--%s: missing value", key);
        }
        snprintf(where, sizeof where, "--%s", key);
        if ((rc = md_config_set(c, key, value, where, err)))
            return rc;
    }
    return MS_OK;
}

/* Where a key was set, for messages about a rule between keys. */
static const char *origin(const md_config *c, int k)
{
    return *c->where[k] ? c->where[k] : "the defaults";
}

/* The token file exists, holds a token and is private to its owner. */
static int check_token_file(const md_config *c, ms_error *err)
{
    const char *w = origin(c, MD_KEY_TOKEN_FILE);
    struct stat st;
    if (stat(c->token_file, &st))
        return ms_error_set(err, MS_EINVAL, "%s: token-file %s: %s", w, c->token_file,
                            strerror(errno));
    if (st.st_mode & 077)
        return ms_error_set(err, MS_EINVAL,
                            "%s: token-file %s: readable by group or others "
                            "(chmod 600 it)",
                            w, c->token_file);
    /* It says who every TCP caller is: whoever may write it may be anyone. */
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return ms_error_set(err, MS_EINVAL,
                            "%s: token-file %s: owned by uid %u: it must be "
                            "owned by root or uid %u",
                            w, c->token_file, (unsigned)st.st_uid, (unsigned)geteuid());
    md_tokens *t;
    int rc = md_tokens_read(c->token_file, &t, err);
    if (rc) {
        ms_error_prefix(err, "%s: token-file", w);
        return rc;
    }
    md_tokens_free(t);
    return MS_OK;
}

/* A db not given: the service's while listen is the default; else beside the first unix
 * socket, named after it, so that daemons started by hand on other sockets never share a
 * store (and a test's daemon never writes the service's). */
static int default_db(md_config *c, ms_error *err)
{
    if (*c->where[MD_KEY_DB] ||
        (c->nlisten == 1 && !c->listen[0].tcp && !strcmp(c->listen[0].path, MD_DEFAULT_SOCKET)))
        return MS_OK;
    for (int i = 0; i < c->nlisten; i++)
        if (!c->listen[i].tcp) {
            snprintf(c->db, sizeof c->db, "%s.db", c->listen[i].path);
            return MS_OK;
        }
    return ms_error_set(err, MS_EINVAL,
                        "%s: listen tcp:%s:%d alone: give the db (no unix "
                        "socket to name it after)",
                        c->listen[0].where, c->listen[0].host, c->listen[0].port);
}

int md_config_check(md_config *c, ms_error *err)
{
    c->has_model = false;
    if (c->backend == MD_SIM) {
        if (!*c->gpu || !c->gpus)
            return ms_error_set(err, MS_EINVAL, "%s: backend sim needs gpu MODEL and gpus N",
                                origin(c, MD_KEY_BACKEND));
        if (c->ndevices)
            return ms_error_set(err, MS_EINVAL,
                                "%s: devices is for backend nvml (backend sim "
                                "at %s)",
                                c->where[MD_KEY_DEVICES], origin(c, MD_KEY_BACKEND));
    } else {
        if (!c->ndevices)
            return ms_error_set(err, MS_EINVAL, "%s: backend nvml needs devices (e.g. 0,1)",
                                origin(c, MD_KEY_BACKEND));
        if (c->gpus)
            return ms_error_set(err, MS_EINVAL,
                                "%s: gpus is for backend sim (nvml uses "
                                "devices)",
                                c->where[MD_KEY_GPUS]);
        if (*c->sim_state)
            return ms_error_set(err, MS_EINVAL, "%s: sim-state is for backend sim",
                                c->where[MD_KEY_SIM_STATE]);
        if (*c->where[MD_KEY_TIME_SCALE])
            return ms_error_set(err, MS_EINVAL, "%s: time-scale is for backend sim",
                                c->where[MD_KEY_TIME_SCALE]);
    }
    if (c->mode != MD_BATCH)
        for (int k = 0; k < MD_NKEYS; k++)
            if (md_keys[k].batch_only && *c->where[k])
                return ms_error_set(err, MS_EINVAL,
                                    "%s: %s goes with mode batch (mode is "
                                    "online)",
                                    c->where[k], md_keys[k].name);
    for (int i = 0; i < c->nlisten; i++)
        if (c->listen[i].tcp && !*c->token_file)
            return ms_error_set(err, MS_EINVAL,
                                "%s: listen tcp:%s:%d needs a token-file "
                                "(clients send its token as a bearer token)",
                                c->listen[i].where, c->listen[i].host, c->listen[i].port);
    int rc;
    if (*c->token_file && (rc = check_token_file(c, err)))
        return rc;
    if ((rc = default_db(c, err)))
        return rc;
    if (*c->gpu) {
        if ((rc = ms_gpu_lookup(c->gpu, &c->model, err))) {
            ms_error_prefix(err, "%s: gpu", origin(c, MD_KEY_GPU));
            return rc;
        }
        c->has_model = true;
    }
    if (*c->sim_state && c->gpus > MS_RUN_MAX_GPUS)
        return ms_error_set(err, MS_EINVAL, "%s: sim-state holds at most %d GPUs (gpus is %d)",
                            c->where[MD_KEY_SIM_STATE], MS_RUN_MAX_GPUS, c->gpus);
    if (*c->sim_state && !ms_gpu_builtin(c->gpu))
        return ms_error_set(err, MS_EINVAL,
                            "%s: sim-state needs gpu to name a built-in model (a state file "
                            "holds built-in models only)",
                            c->where[MD_KEY_SIM_STATE]);
    return MS_OK;
}

#define VALUE_LEN (MD_MAX_LISTEN * 160 + MD_PATH_LEN)

int md_config_reload_check(const md_config *cur, const md_config *next, ms_error *err)
{
    char a[VALUE_LEN], b[VALUE_LEN];
    for (int k = 0; k < MD_NKEYS; k++) {
        if (md_keys[k].reloadable)
            continue;
        md_value_text(&md_keys[k], cur, a, sizeof a);
        md_value_text(&md_keys[k], next, b, sizeof b);
        if (strcmp(a, b))
            return ms_error_set(err, MS_EINVAL,
                                "%s: %s cannot change while migschedd runs "
                                "(restart it); kept the running configuration",
                                origin(next, k), md_keys[k].name);
    }
    return MS_OK;
}

void md_config_write(const md_config *c, FILE *f)
{
    char v[VALUE_LEN];
    for (int k = 0; k < MD_NKEYS; k++) {
        md_value_text(&md_keys[k], c, v, sizeof v);
        /* Only what md_config_check accepts back: no key foreign to the backend
         * or mode. */
        bool skip = !*v || (k == MD_KEY_GPUS && !c->gpus) ||
                    (k == MD_KEY_TIME_SCALE && c->backend != MD_SIM) ||
                    (md_keys[k].batch_only && c->mode != MD_BATCH);
        if (skip)
            continue;
        for (char *line = v, *nl; line; line = nl) {
            if ((nl = strchr(line, '\n')))
                *nl++ = '\0';
            fprintf(f, "%s %s\n", md_keys[k].name, line);
        }
    }
}
