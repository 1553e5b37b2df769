/* client_conf.c: the client commands' settings from their flags, the environment and the
 * client configuration file, above the connection (client.c). */
#include "migsched/client_conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "migsched/io.h"

bool ms_client_conf_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    /* The XDG base directory rule: a relative XDG_CONFIG_HOME is ignored. */
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/migsched/client.conf", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.config/migsched/client.conf", home);
    else
        return false;
    return n > 0 && (size_t)n < len;
}

static char *trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* One `key = value` into out; seen: the keys met so far (bits). */
static int conf_line(const char *path, int line, char *text, unsigned *seen, ms_client_conf *out,
                     ms_error *err)
{
    enum { CONNECT, TOKEN_FILE, TIMEOUT, NKEYS };
    static const char *const KEYS[NKEYS] = {"connect", "token-file", "timeout"};
    char *eq = strchr(text, '=');
    if (!eq)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%d: expected key = value (connect, token-file, "
                            "timeout) or a # comment",
                            path, line);
    *eq = '\0';
    char *key = trim(text), *value = trim(eq + 1);
    int k = 0;
    while (k < NKEYS && strcmp(key, KEYS[k]))
        k++;
    if (k == NKEYS)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%d: unknown key \"%.40s\" (connect, token-file, "
                            "timeout)",
                            path, line, key);
    if (*seen & 1u << k)
        return ms_error_set(err, MS_EINVAL, "%s:%d: %s is set twice", path, line, key);
    *seen |= 1u << k;
    if (!*value)
        return ms_error_set(err, MS_EINVAL, "%s:%d: %s: no value", path, line, key);
    if (k == CONNECT) {
        if (!ms_client_connect_valid(value))
            return ms_error_set(err, MS_EINVAL,
                                "%s:%d: connect: expected unix:PATH or "
                                "http://127.0.0.1:PORT, not \"%.80s\"",
                                path, line, value);
        snprintf(out->connect, sizeof out->connect, "%s", value);
    } else if (k == TOKEN_FILE) {
        const char *home = getenv("HOME");
        bool tilde = !strncmp(value, "~/", 2);
        int n = tilde && home && home[0] == '/'
                    ? snprintf(out->token_file, sizeof out->token_file, "%s/%s", home, value + 2)
                    : snprintf(out->token_file, sizeof out->token_file, "%s", value);
        if ((tilde && !(home && home[0] == '/')) || (!tilde && value[0] != '/') || n < 0 ||
            (size_t)n >= sizeof out->token_file)
            return ms_error_set(err, MS_EINVAL,
                                "%s:%d: token-file: expected an absolute path "
                                "or ~/PATH, not \"%.80s\"",
                                path, line, value);
    } else if (!ms_client_timeout_valid(value, &out->timeout)) {
        return ms_error_set(err, MS_EINVAL,
                            "%s:%d: timeout: expected seconds in (0, %d], not "
                            "\"%.40s\"",
                            path, line, MS_CLIENT_MAX_TIMEOUT, value);
    }
    return MS_OK;
}

int ms_client_conf_read(const char *path, ms_client_conf *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    /* No file, or one this user cannot even see (a HOME left over from root, as after
       setpriv or su without -l): no settings. A file seen but unreadable is an error. */
    if (stat(path, &st) && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
        return MS_OK;
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc) /* a NUL byte too: ms_read_file takes text only */
        return rc;
    unsigned seen = 0;
    int line = 1;
    /* Lines one by one, counted across the empty ones that strtok would skip. */
    for (char *p = text, *nl; !rc && p; p = nl ? nl + 1 : NULL, line++) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        char *t = trim(p);
        if (*t && *t != '#')
            rc = conf_line(path, line, t, &seen, out, err);
    }
    free(text);
    return rc;
}

/* An environment variable's value; NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

ms_client *ms_client_open_configured(const char *cmd, const ms_client_flags *flags, bool *usage)
{
    *usage = true;
    const char *connect = flags->connect ? flags->connect : env("MIGSCHED_CONNECT");
    const char *token = flags->token_file ? flags->token_file : env("MIGSCHED_TOKEN_FILE");
    if (!flags->connect && connect && !ms_client_connect_valid(connect)) {
        ms_client_error(cmd,
                        "MIGSCHED_CONNECT: expected unix:PATH or http://127.0.0.1:PORT, not "
                        "\"%.80s\"",
                        connect);
        return NULL;
    }
    ms_client_conf conf = {0};
    char path[MS_CLIENT_PATH_LEN];
    ms_error err;
    if ((!connect || !token || !(flags->timeout > 0)) && ms_client_conf_path(path, sizeof path) &&
        ms_client_conf_read(path, &conf, &err)) {
        ms_client_error(cmd, "%s", err.msg);
        return NULL;
    }
    if (!connect && conf.connect[0])
        connect = conf.connect;
    if (!token && conf.token_file[0])
        token = conf.token_file;
    /* A token set for TCP does not stand in the way of the socket. */
    if (!flags->token_file && !(connect && !strncmp(connect, "http://", 7)))
        token = NULL;
    double timeout = flags->timeout > 0 ? flags->timeout
                     : conf.timeout > 0 ? conf.timeout
                                        : MS_CLIENT_DEFAULT_TIMEOUT;
    ms_client *c = ms_client_open(cmd, connect, token, usage);
    if (c)
        ms_client_timeout(c, timeout);
    return c;
}
