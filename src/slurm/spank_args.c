/* spank_args.c: the plugin's arguments and the --mig option's value. */
#include "spank_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NAME=PATH into buf: absolute and fitting. */
static int path_arg(const char *a, size_t skip, char *buf, size_t len, char *err, size_t errlen)
{
    const char *p = a + skip;
    if (p[0] != '/' || strlen(p) >= len) {
        snprintf(err, errlen, "%.80s: expected an absolute path of at most %zu bytes", a, len - 1);
        return -1;
    }
    snprintf(buf, len, "%s", p);
    return 0;
}

/* gpu_model=NAME[,NAME...]: built-in models, each kept once. */
static int models_arg(const char *a, msp_conf *out, char *err, size_t errlen)
{
    char list[256];
    snprintf(list, sizeof list, "%s", a + 10);
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const ms_gpu_model *m = ms_gpu_builtin(name);
        if (!m) {
            char names[256] = "";
            for (int i = 0; i < ms_gpu_builtin_count(); i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                         ms_gpu_builtin_at(i)->name);
            snprintf(err, errlen, "%.80s: unknown GPU model \"%.40s\" (built-in: %s)", a, name,
                     names);
            return -1;
        }
        int k = 0;
        while (k < out->nmodels && strcmp(out->models[k], m->name))
            k++;
        if (k < out->nmodels)
            continue;
        if (out->nmodels == MSP_MAX_MODELS) {
            snprintf(err, errlen, "%.80s: more than %d GPU models", a, MSP_MAX_MODELS);
            return -1;
        }
        snprintf(out->models[out->nmodels++], MS_NAME_LEN, "%s", m->name);
    }
    if (!out->nmodels) {
        snprintf(err, errlen, "%.80s: expected gpu_model=NAME[,NAME...] (e.g. A100-40GB)", a);
        return -1;
    }
    return 0;
}

int msp_parse_args(int argc, char *const argv[], msp_conf *out, char *err, size_t errlen)
{
    snprintf(out->socket, sizeof out->socket, "%s", MSP_DEFAULT_SOCKET);
    out->timeout = MSP_DEFAULT_TIMEOUT;
    out->isolate = true;
    out->note = NULL;
    out->requeue_exit = 0;
    out->nmodels = 0;
    snprintf(out->dev_dir, sizeof out->dev_dir, "%s", MS_DEFAULT_DEV_DIR);
    snprintf(out->mig_minors, sizeof out->mig_minors, "%s", MS_DEFAULT_MIG_MINORS);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "dev_dir=", 8)) {
            if (path_arg(a, 8, out->dev_dir, sizeof out->dev_dir, err, errlen))
                return -1;
        } else if (!strncmp(a, "mig_minors=", 11)) {
            if (path_arg(a, 11, out->mig_minors, sizeof out->mig_minors, err, errlen))
                return -1;
        } else if (!strncmp(a, "isolation=", 10)) {
            if (strcmp(a + 10, "devices") && strcmp(a + 10, "none")) {
                snprintf(err, errlen, "%.80s: expected isolation=devices or isolation=none", a);
                return -1;
            }
            out->isolate = !strcmp(a + 10, "devices");
        } else if (!strncmp(a, "socket=", 7)) {
            const char *p = a + 7;
            if (p[0] != '/' || strlen(p) >= sizeof out->socket) {
                snprintf(err, errlen,
                         "%s: expected an absolute socket path of at most %d "
                         "bytes",
                         a, MSP_SOCKET_LEN - 1);
                return -1;
            }
            snprintf(out->socket, sizeof out->socket, "%s", p);
        } else if (!strncmp(a, "gpu_model=", 10)) {
            if (models_arg(a, out, err, errlen))
                return -1;
        } else if (!strncmp(a, "requeue_exit=", 13)) {
            long v;
            char *end;
            errno = 0;
            v = strtol(a + 13, &end, 10);
            if (end == a + 13 || *end || errno || v < 1 || v > 255) {
                snprintf(err, errlen, "%.80s: expected an exit status 1..255", a);
                return -1;
            }
            out->requeue_exit = (int)v;
        } else if (!strncmp(a, "timeout=", 8)) {
            char *end;
            errno = 0;
            double t = strtod(a + 8, &end);
            if (end == a + 8 || *end || errno || !isfinite(t) || !(t > 0) || t > 86400) {
                snprintf(err, errlen, "%s: expected seconds above 0, at most 86400", a);
                return -1;
            }
            out->timeout = t;
        } else {
            snprintf(err, errlen,
                     "unknown argument \"%.80s\" (socket=PATH, timeout=SECONDS, "
                     "isolation=devices|none, dev_dir=PATH, mig_minors=PATH, requeue_exit=N, "
                     "gpu_model=NAME[,NAME...])",
                     a);
            return -1;
        }
    }
    return 0;
}

int msp_parse_mig(const char *value, char *body, size_t bodylen, char *err, size_t errlen)
{
    size_t n = value ? strlen(value) : 0;
    if (n == 0) {
        snprintf(err, errlen,
                 "--mig needs a profile (e.g. 3g.20gb) or a number of compute "
                 "slices (e.g. 3)");
        return -1;
    }
    if (strspn(value, "0123456789") == n) {
        long s = n <= 2 ? strtol(value, NULL, 10) : 0;
        if (s < 1 || s > 7) {
            snprintf(err, errlen, "--mig=%.40s: a number of compute slices is 1..7", value);
            return -1;
        }
        snprintf(body, bodylen, "{\"slices\": %ld}", s);
        return 0;
    }
    /* A profile name: <slices>g.<memory>gb with an optional +me; migschedd knows which its
     * GPU model has. Only these characters reach the JSON text. */
    const char *g = strchr(value, 'g');
    if (n > 32 || strspn(value, "0123456789g.b+me") != n || !g || g == value || g[1] != '.') {
        snprintf(err, errlen,
                 "--mig=%.40s: expected a MIG profile such as 1g.5gb or 3g.20gb, "
                 "or a number of compute slices 1..7",
                 value);
        return -1;
    }
    snprintf(body, bodylen, "{\"profile\": \"%s\"}", value);
    return 0;
}

int msp_body_user(char *body, size_t bodylen, const char *user, char *err, size_t errlen)
{
    size_t n = strlen(user), len = strlen(body);
    /* Only these characters reach the JSON text (a name as useradd makes it). */
    if (!n || n > 64 ||
        strspn(user, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-") != n) {
        snprintf(err, errlen,
                 "the job's user name \"%.64s\" is not one migsched takes "
                 "([A-Za-z0-9._-], at most 64 bytes)",
                 user);
        return -1;
    }
    if (len < 2 || body[len - 1] != '}' || len + n + 12 > bodylen) {
        snprintf(err, errlen, "no room for the job's user in the allocation's request");
        return -1;
    }
    snprintf(body + len - 1, bodylen - len + 1, ", \"user\": \"%s\"}", user);
    return 0;
}
