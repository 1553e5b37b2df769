/* client.c: the connection to migschedd of the client commands and the SPANK plugin, on
 * libcurl. */
#include "migsched/client.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "migsched/escape.h"
#include "migsched/io.h"

/* The largest reply taken: a page of 1,000 jobs with their specs is well below it, and a
 * daemon that sends without end is stopped here rather than by the memory running out. */
#define MAX_REPLY_MIB 256

struct ms_client {
    const char *cmd;
    CURL *curl;
    struct curl_slist *headers;
    char base[256];  /* "http://localhost" for a socket, else the URL given */
    char where[160]; /* unix:PATH or the URL, for messages */
    char *buf;       /* the reply being received */
    size_t len, cap;
    bool oom, too_big;
    char *errbuf; /* ms_client_capture_errors: a call's error goes here */
    size_t errlen;
    double timeout;     /* seconds, for messages */
    long connect_errno; /* the last call's failed connect(2), else 0 */
    bool dropped;       /* the last call's connection closed before a reply */
};

static void verror(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "migsched: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void ms_client_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
}

void ms_client_capture_errors(ms_client *c, char *buf, size_t len)
{
    c->errbuf = buf;
    c->errlen = len;
}

void ms_client_timeout(ms_client *c, double seconds)
{
    /* Whole milliseconds, rounded up: curl takes 0 for no limit at all. */
    long ms = (long)ceil(seconds * 1000);
    c->timeout = seconds;
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, ms);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, ms);
}

bool ms_client_timeout_valid(const char *arg, double *seconds)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !(v > 0 && v <= MS_CLIENT_MAX_TIMEOUT))
        return false;
    *seconds = v;
    return true;
}

bool ms_client_parse_timeout(const char *cmd, const char *arg, double *seconds)
{
    if (!ms_client_timeout_valid(arg, seconds)) {
        ms_client_error(cmd,
                        "--timeout: expected a number of seconds in (0, %d], not "
                        "\"%.40s\"",
                        MS_CLIENT_MAX_TIMEOUT, arg);
        return false;
    }
    return true;
}

/* A call's error: into the capture buffer when there is one, else on stderr. */
__attribute__((format(printf, 2, 3))) static void call_error(ms_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (c->errbuf)
        vsnprintf(c->errbuf, c->errlen, fmt, ap);
    else
        verror(c->cmd, fmt, ap);
    va_end(ap);
}

static size_t on_data(char *p, size_t size, size_t n, void *cls)
{
    ms_client *c = cls;
    size_t k = size * n;
    if (c->len + k > (size_t)MAX_REPLY_MIB << 20) {
        c->too_big = true;
        return 0; /* aborts the transfer */
    }
    if (c->len + k + 1 > c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4096;
        while (cap < c->len + k + 1)
            cap *= 2;
        char *b = realloc(c->buf, cap);
        if (!b) {
            c->oom = true;
            return 0; /* aborts the transfer */
        }
        c->buf = b;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, p, k);
    c->len += k;
    c->buf[c->len] = '\0';
    return k;
}

/* A token file others may read or write is refused, as ssh refuses such a key: the token
 * is a password. */
static int token_file_private(const ms_client *c, const char *path)
{
    struct stat st;
    if (stat(path, &st)) {
        ms_client_error(c->cmd, "cannot read the token file %s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(st.st_mode)) {
        ms_client_error(c->cmd, "the token file %s is not a regular file", path);
        return 1;
    }
    if (st.st_mode & 077) {
        ms_client_error(c->cmd,
                        "the token file %s is open to others (mode %04o): it must be readable "
                        "by its owner only (chmod 600 %s)",
                        path, (unsigned)(st.st_mode & 07777), path);
        return 1;
    }
    return 0;
}

/* "Authorization: Bearer TOKEN" from the token file, which holds one line and nothing
 * else: the token alone (a user's own file), or `USER TOKEN` (that user's line of the
 * daemon's token-file, never the whole file). */
static int token_header(ms_client *c, const char *path)
{
    ms_error err;
    char *text;
    size_t len;
    if (token_file_private(c, path))
        return 1;
    if (ms_read_file(path, &text, &len, &err)) {
        ms_client_error(c->cmd, "%s", err.msg);
        return 1;
    }
    char *rest = text + strcspn(text, "\r\n");
    bool more = rest[strspn(rest, " \t\r\n")] != '\0';
    *rest = '\0';
    char *save;
    const char *first = strtok_r(text, " \t", &save);
    const char *second = first ? strtok_r(NULL, " \t", &save) : NULL;
    if (!first || more || (second && strtok_r(NULL, " \t", &save))) {
        free(text);
        ms_client_error(c->cmd, "%s: expected only the token (or one USER TOKEN line), on one line",
                        path);
        return 1;
    }
    const char *token = second ? second : first;
    size_t hn = strlen(token) + 32;
    char *h = malloc(hn);
    if (h)
        snprintf(h, hn, "Authorization: Bearer %s", token);
    free(text);
    struct curl_slist *l = h ? curl_slist_append(c->headers, h) : NULL;
    free(h);
    if (!l) {
        ms_client_error(c->cmd, "out of memory");
        return 1;
    }
    c->headers = l;
    return 0;
}

bool ms_client_connect_valid(const char *connect)
{
    if (strlen(connect) >= MS_CLIENT_CONNECT_LEN)
        return false;
    if (!strncmp(connect, "unix:", 5))
        return connect[5] && strlen(connect + 5) < 108; /* sockaddr_un's sun_path */
    return !strncmp(connect, "http://", 7);
}

ms_client *ms_client_open(const char *cmd, const char *connect, const char *token_file, bool *usage)
{
    *usage = false;
    if (!connect)
        connect = MS_CLIENT_DEFAULT_CONNECT;
    bool unix_sock = !strncmp(connect, "unix:", 5);
    if (!ms_client_connect_valid(connect)) {
        ms_client_error(cmd,
                        "--connect: expected unix:PATH or http://127.0.0.1:PORT, not "
                        "\"%.80s\"",
                        connect);
        *usage = true;
        return NULL;
    }
    if (token_file && unix_sock) {
        ms_client_error(cmd, "--token-file goes with --connect http://... (the Unix socket "
                             "relies on its file mode)");
        *usage = true;
        return NULL;
    }
    ms_client *c = calloc(1, sizeof *c);
    if (!c || curl_global_init(CURL_GLOBAL_DEFAULT) || !(c->curl = curl_easy_init())) {
        ms_client_error(cmd, "cannot initialise libcurl");
        free(c);
        return NULL;
    }
    c->cmd = cmd;
    snprintf(c->where, sizeof c->where, "%s", connect);
    if (unix_sock) {
        curl_easy_setopt(c->curl, CURLOPT_UNIX_SOCKET_PATH, connect + 5);
        snprintf(c->base, sizeof c->base, "http://localhost");
    } else {
        snprintf(c->base, sizeof c->base, "%s", connect);
        size_t n = strlen(c->base);
        if (n > 7 && c->base[n - 1] == '/')
            c->base[n - 1] = '\0';
    }
    struct curl_slist *l = curl_slist_append(NULL, "Content-Type: application/json");
    c->headers = l ? curl_slist_append(l, "Expect:") : NULL; /* no 100-continue round trip */
    if (!c->headers || (token_file && token_header(c, token_file))) {
        if (!c->headers)
            ms_client_error(cmd, "out of memory");
        ms_client_close(c);
        return NULL;
    }
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http");
    ms_client_timeout(c, MS_CLIENT_DEFAULT_TIMEOUT);
    return c;
}

void ms_client_close(ms_client *c)
{
    if (!c)
        return;
    curl_slist_free_all(c->headers);
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->buf);
    free(c);
}

/* An error reply without {"error": "..."}: its status and how its body began. */
static void bare_error(ms_client *c, const char *method, const char *path, long code)
{
    enum { SHOWN = 80 };
    char began[MS_ESCAPED_LEN(SHOWN) + 32] = "an empty reply";
    if (c->len) {
        char esc[MS_ESCAPED_LEN(SHOWN)];
        snprintf(began, sizeof began, "the reply began \"%s\"",
                 ms_escape(c->buf, c->len < SHOWN ? c->len : SHOWN, esc, sizeof esc));
    }
    call_error(c, "%s %s: HTTP %ld from migschedd at %s without an error message (%s)", method,
               path, code, c->where, began);
}

int ms_client_call(ms_client *c, const char *method, const char *path, const char *body,
                   json_t **reply, long *status)
{
    c->len = 0;
    c->oom = c->too_big = false;
    c->connect_errno = 0;
    c->dropped = false;
    if (status)
        *status = 0;
    *reply = NULL;
    char *url = malloc(strlen(c->base) + strlen(path) + 1);
    if (!url) {
        call_error(c, "out of memory");
        return 1;
    }
    strcat(strcpy(url, c->base), path);
    curl_easy_setopt(c->curl, CURLOPT_URL, url);
    curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    } else {
        curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
    }
    CURLcode rc = curl_easy_perform(c->curl);
    free(url);
    if (rc == CURLE_COULDNT_CONNECT)
        curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &c->connect_errno);
    c->dropped = rc == CURLE_GOT_NOTHING || rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR;
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        call_error(c, "%s %s: no complete reply from migschedd at %s within %g s (the timeout)",
                   method, path, c->where, c->timeout);
        return 1;
    }
    if (rc != CURLE_OK) {
        if (c->oom)
            call_error(c, "out of memory reading the daemon's reply");
        else if (c->too_big)
            call_error(c, "%s %s: the reply of migschedd at %s is over %d MiB", method, path,
                       c->where, MAX_REPLY_MIB);
        else
            call_error(c, "cannot reach migschedd at %s: %s", c->where, curl_easy_strerror(rc));
        return 1;
    }
    long code = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
    if (status)
        *status = code;
    json_error_t je;
    json_t *o = c->len ? json_loadb(c->buf, c->len, 0, &je) : NULL;
    if (code >= 400) {
        json_t *msg = json_object_get(o, "error");
        char esc[MS_ESCAPED_LEN(MS_ERR_LEN)];
        if (json_is_string(msg))
            call_error(c, "%s (HTTP %ld)",
                       ms_escape(json_string_value(msg), json_string_length(msg), esc, sizeof esc),
                       code);
        else
            bare_error(c, method, path, code);
        json_decref(o);
        return 1;
    }
    if (!o) {
        char esc[MS_ESCAPED_LEN(sizeof je.text)];
        call_error(
            c, "%s %s: the reply of migschedd at %s is not JSON (%s)", method, path, c->where,
            c->len ? ms_escape(je.text, strlen(je.text), esc, sizeof esc) : "an empty reply");
        return 1;
    }
    if (!json_is_object(o)) {
        call_error(c, "%s %s: migschedd at %s sent a malformed reply: expected a JSON object",
                   method, path, c->where);
        json_decref(o);
        return 1;
    }
    *reply = o;
    return 0;
}

long ms_client_connect_errno(const ms_client *c) { return c->connect_errno; }

bool ms_client_dropped(const ms_client *c) { return c->dropped; }

int ms_client_call_checked(ms_client *c, const char *method, const char *path, const char *body,
                           ms_client_reply_check *check, json_t **reply)
{
    if (ms_client_call(c, method, path, body, reply, NULL))
        return 1;
    char msg[MS_ERR_LEN];
    if (!check(*reply, msg, sizeof msg))
        return 0;
    call_error(c, "%s %s: migschedd at %s sent a malformed reply: %s", method, path, c->where, msg);
    json_decref(*reply);
    *reply = NULL;
    return 1;
}
