/* http.c: migschedd's HTTP transport on libmicrohttpd: listeners, bodies, auth, responses.
 * What each route does is api.c's. */
#include "http.h"

#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "api.h"
#include "listen.h"
#include "log.h"
#include "migsched/io.h"

#define TOKEN_MAX 4096

struct server {
    ms_http *h;
    ms_listener l;
    struct MHD_Daemon *d;
};

struct ms_http {
    int n;
    struct server s[MS_DAEMON_MAX_LISTEN];
    ms_api api;
    pthread_mutex_t token_mu;   /* the token changes on SIGHUP */
    char token[TOKEN_MAX + 1];
    size_t token_len;
};

/* One request's state across MHD's calls: the body as it arrives, or why it is refused. */
struct conn {
    char *body;
    size_t len, cap;
    bool too_big;
    bool unauthorized;
};

/* The first line of the token file (config.c checked its shape and mode). */
static int load_token(ms_http *h, const char *path, ms_error *err)
{
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    size_t n = strcspn(text, "\r\n");
    if (n < 16 || n > TOKEN_MAX) {
        free(text);
        return ms_error_set(err, MS_EINVAL, "token-file %s: expected one line of 16 to 4096 "
                            "bytes", path);
    }
    pthread_mutex_lock(&h->token_mu);
    memcpy(h->token, text, n);
    h->token[n] = '\0';
    h->token_len = n;
    pthread_mutex_unlock(&h->token_mu);
    free(text);
    return MS_OK;
}

/* The time taken depends on the expected token's length only, never on where a guess
 * first differs. */
static bool authorized(ms_http *h, struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!a || strncasecmp(a, "Bearer ", 7))
        return false;
    a += 7;
    size_t glen = strlen(a);
    pthread_mutex_lock(&h->token_mu);
    unsigned char d = glen != h->token_len;
    for (size_t i = 0; i < h->token_len; i++)
        d |= (unsigned char)((i < glen ? a[i] : 0) ^ h->token[i]);
    bool ok = h->token_len > 0 && d == 0;
    pthread_mutex_unlock(&h->token_mu);
    return ok;
}

static enum MHD_Result send_response(struct MHD_Connection *c, ms_api_response *rs)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(rs->len, rs->body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(rs->body);
        return MHD_NO;
    }
    if (rs->content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
    if (rs->allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, rs->allow);
    if (*rs->location)
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, rs->location);
    if (rs->status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Bearer realm=\"migschedd\"");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = MHD_queue_response(c, rs->status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
    ms_api_response rs;
    memset(&rs, 0, sizeof rs);
    ms_api_error(&rs, status, msg);
    return send_response(c, &rs);
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    ms_api_request *rq = cls;
    if (rq->nargs == MS_API_MAX_ARGS) {
        rq->nargs++;  /* one over: too many */
        return MHD_NO;
    }
    rq->arg_key[rq->nargs] = key;
    rq->arg_value[rq->nargs++] = value;
    return MHD_YES;
}

static enum MHD_Result send_too_big(struct MHD_Connection *c)
{
    char msg[64];
    snprintf(msg, sizeof msg, "request body over %d bytes", MS_JOB_BODY_MAX);
    return send_error(c, 413, msg);
}

/* Appends to the body; past the limit the body is dropped and the rest discarded. */
static void take_body(struct conn *k, const char *data, size_t n)
{
    if (k->too_big || k->unauthorized)
        return;
    if (k->len + n > MS_JOB_BODY_MAX) {
        k->too_big = true;
        free(k->body);
        k->body = NULL;
        k->len = k->cap = 0;
        return;
    }
    if (k->len + n + 1 > k->cap) {
        size_t cap = k->cap ? k->cap : 1024;
        while (cap < k->len + n + 1)
            cap *= 2;
        char *b = realloc(k->body, cap);
        if (!b) {  /* treated as too big: the client gets an answer, not a crash */
            k->too_big = true;
            return;
        }
        k->body = b;
        k->cap = cap;
    }
    memcpy(k->body + k->len, data, n);
    k->len += n;
    k->body[k->len] = '\0';
}

/* Paths anyone who can connect may read: the page (it holds no data; it asks for the
 * token in the URL's #fragment, which browsers never send) and the liveness probe. */
static bool public_path(const char *url) { return !strcmp(url, "/") || !strcmp(url, "/healthz"); }

/* Who is calling: on the Unix socket the peer's credentials (SO_PEERCRED); on TCP the
 * token's holder is the daemon's own user. */
static void fill_caller(struct server *s, struct MHD_Connection *c, ms_api_caller *out)
{
    memset(out, 0, sizeof *out);
    if (s->l.tcp) {
        if (!authorized(s->h, c))
            return;
        out->uid = geteuid();
        out->gid = getegid();
    } else {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (!ci || getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
            return;
        out->uid = cred.uid;
        out->gid = cred.gid;
    }
    out->authenticated = true;
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (!getpwuid_r(out->uid, &pw, buf, sizeof buf, &res) && res &&
        strlen(pw.pw_name) < sizeof out->name)
        snprintf(out->name, sizeof out->name, "%s", pw.pw_name);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    struct server *s = cls;
    struct conn *k = *con_cls;
    if (!k) {
        if (!(k = calloc(1, sizeof *k)))
            return MHD_NO;
        *con_cls = k;
        /* A refused request's body is read and dropped (take_body), not answered at once: a
         * reply before the upload ends makes the server close a socket with unread data,
         * and the reset can destroy the reply before the client reads it. */
        k->unauthorized = s->l.tcp && !public_path(url) && !authorized(s->h, c);
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        k->too_big = cl && strtoull(cl, NULL, 10) > MS_JOB_BODY_MAX;
        return MHD_YES;
    }
    if (*upload_size) {
        take_body(k, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (k->unauthorized)
        return send_error(c, 401, "missing or wrong bearer token (Authorization: Bearer "
                                  "<the token-file's token>)");
    if (k->too_big)
        return send_too_big(c);
    ms_api_request rq = {.method = method, .path = url, .body = k->body, .len = k->len};
    fill_caller(s, c, &rq.caller);
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &rq);
    if (rq.nargs > MS_API_MAX_ARGS)
        return send_error(c, 400, "too many query arguments");
    ms_api_response rs;
    ms_api_handle(&s->h->api, &rq, &rs);
    ms_dlog(MS_LOG_DEBUG, "http.request", "method=%s path=%s status=%u", method, url, rs.status);
    return send_response(c, &rs);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    struct conn *k = *con_cls;
    if (k) {
        free(k->body);
        free(k);
    }
    *con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512], q[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    ms_dlog(MS_LOG_WARN, "http.error", "msg=%s", ms_dlog_quote(msg, q, sizeof q));
}

int ms_http_open(const ms_daemon_config *c, ms_http **out, ms_error *err)
{
    ms_http *h = calloc(1, sizeof *h);
    if (!h)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    pthread_mutex_init(&h->token_mu, NULL);
    int rc = MS_OK;
    bool tcp = false;
    for (int i = 0; i < c->nlisten && !rc; i++) {
        h->s[i].h = h;
        if (!(rc = ms_listener_open(&c->listen[i], &h->s[i].l, err)))
            h->n++;
        tcp |= c->listen[i].tcp;
    }
    if (!rc && tcp)
        rc = load_token(h, c->token_file, err);
    if (rc) {
        ms_http_close(h);
        return rc;
    }
    *out = h;
    return MS_OK;
}

int ms_http_start(ms_http *h, ms_engine *e, const ms_gpu_model *m, const char *slurm_gres,
                  ms_error *err)
{
    h->api.engine = e;
    h->api.model = m;
    h->api.slurm_gres = slurm_gres;
    if (gethostname(h->api.hostname, sizeof h->api.hostname - 1))
        snprintf(h->api.hostname, sizeof h->api.hostname, "localhost");
    for (int i = 0; i < h->n; i++) {
        struct server *s = &h->s[i];
        s->d = MHD_start_daemon(
            MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                MHD_USE_ERROR_LOG,
            0, NULL, NULL, handle, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
            MHD_OPTION_LISTEN_SOCKET, s->l.fd,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned)MS_HTTP_CONNECTION_LIMIT,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)MS_HTTP_TIMEOUT_SECONDS,
            MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
        if (!s->d)
            return ms_error_set(err, MS_EIO, "listen %s: the HTTP server did not start",
                                s->l.tcp ? "tcp" : s->l.path);
    }
    return MS_OK;
}

int ms_http_reload(ms_http *h, const ms_daemon_config *next, ms_error *err)
{
    for (int i = 0; i < h->n; i++)
        if (h->s[i].l.tcp)
            return load_token(h, next->token_file, err);
    return MS_OK;
}

void ms_http_close(ms_http *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->n; i++) {
        struct server *s = &h->s[i];
        if (s->d)
            MHD_stop_daemon(s->d);  /* closes the listening socket it was given */
        ms_listener_close(&s->l, s->d != NULL);
    }
    pthread_mutex_destroy(&h->token_mu);
    free(h);
}
