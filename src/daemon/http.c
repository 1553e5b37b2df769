/* http.c: migschedd's HTTP transport on libmicrohttpd: listeners, who the caller is,
 * bodies, responses. What each route does is api.c's. */
#include "http.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "api.h"
#include "conns.h"
#include "listen.h"
#include "log.h"
#include "tokens.h"

struct server {
    md_http *h;
    md_listener l;
    bool metrics_only; /* listen-metrics: GET /metrics for anyone, nothing else */
    struct MHD_Daemon *d;
};

struct md_http {
    int n;
    struct server s[MD_MAX_LISTEN + 1]; /* the listen addresses, then listen-metrics' */
    md_api api;
    md_conns *conns;
    pthread_rwlock_t tokens_mu; /* the tokens change on SIGHUP */
    md_tokens *tokens;          /* NULL without a TCP listener */
};

/* One connection (MHD's socket context): its entry in conns and, on the Unix socket, its
 * peer's name once a request needed it. */
struct sock {
    md_conn *slot;
    bool named;
    char name[MD_USER_NAME_MAX];
    bool nul_in_url; /* the request's URL decoded to a NUL byte (until it completes) */
};

/* One request's state across MHD's calls: the body as it arrives, or why it is refused. */
struct conn {
    struct sock *sock;
    md_api_caller caller;
    char *body;
    size_t len, cap;
    bool too_big;
    bool early; /* answered before its body was read: the rest is drained */
};

/* The tokens of path, replacing the old ones only once the file has been read whole. */
static int load_tokens(md_http *h, const char *path, ms_error *err)
{
    md_tokens *t;
    int rc = md_tokens_read(path, &t, err);
    if (rc)
        return rc;
    pthread_rwlock_wrlock(&h->tokens_mu);
    md_tokens *old = h->tokens;
    h->tokens = t;
    pthread_rwlock_unlock(&h->tokens_mu);
    md_tokens_free(old);
    char q[MD_PATH_LEN + 8];
    md_log(MD_LOG_INFO, "http.tokens", "file=%s tokens=%d", md_log_quote(path, q, sizeof q),
           md_tokens_count(t));
    return MS_OK;
}

/* Who sent the request: on the Unix socket the peer (its name looked up once per
 * connection), on TCP the user whose token the Authorization header carries, if any. */
static md_api_caller caller_of(struct server *s, struct MHD_Connection *c, struct sock *k)
{
    md_api_caller who = {0};
    if (s->metrics_only) /* nobody: a token sent there is not even looked at */
        return who;
    if (!s->l.tcp) {
        const md_peer *p = md_conn_peer(k->slot);
        if (!k->named) {
            md_user_name(p->uid, k->name);
            k->named = true;
        }
        who = (md_api_caller){.authenticated = true, .uid = p->uid, .gid = p->gid};
        memcpy(who.name, k->name, sizeof who.name);
        return who;
    }
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!a || strncasecmp(a, "Bearer ", 7))
        return who;
    md_user u;
    pthread_rwlock_rdlock(&s->h->tokens_mu);
    bool ok = md_tokens_match(s->h->tokens, a + 7, strlen(a + 7), &u);
    pthread_rwlock_unlock(&s->h->tokens_mu);
    if (ok) {
        who = (md_api_caller){.authenticated = true, .uid = u.uid, .gid = u.gid};
        memcpy(who.name, u.name, sizeof who.name);
    }
    return who;
}

static enum MHD_Result send_response(struct MHD_Connection *c, md_api_response *rs)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(rs->len, rs->body,
                                                             MHD_RESPMEM_MUST_FREE);
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
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"migschedd\"");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ok = MHD_queue_response(c, rs->status, r);
    MHD_destroy_response(r);
    return ok;
}

/* The access log's line for a request answered with status. */
static void log_request(const char *method, const char *url, unsigned status,
                        const md_api_caller *who)
{
    if (md_log_get_level() > MD_LOG_DEBUG)
        return;
    char qm[64], qu[600], qn[140], uid[16] = "-";
    if (who->authenticated)
        snprintf(uid, sizeof uid, "%" PRIu32, who->uid);
    md_log(MD_LOG_DEBUG, "http.request", "method=%s path=%s status=%u user=%s uid=%s",
           md_log_quote(method, qm, sizeof qm), md_log_quote(url, qu, sizeof qu), status,
           who->authenticated ? md_log_quote(who->name, qn, sizeof qn) : "-", uid);
}

/* rs as the 413 of a body over the limit. */
static void too_big(md_api_response *rs)
{
    char msg[64];
    snprintf(msg, sizeof msg, "request body over %d bytes", MD_JOB_BODY_MAX);
    memset(rs, 0, sizeof *rs);
    md_api_error(rs, 413, msg);
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    md_api_request *rq = cls;
    if (rq->nargs == MD_API_MAX_ARGS) {
        rq->nargs++; /* one over: too many */
        return MHD_NO;
    }
    rq->arg_key[rq->nargs] = key;
    rq->arg_value[rq->nargs++] = value;
    return MHD_YES;
}

/* Appends to the body; past the limit the body is dropped and the rest discarded. */
static void take_body(struct conn *k, const char *data, size_t n)
{
    if (k->too_big)
        return;
    if (k->len + n > MD_JOB_BODY_MAX) {
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
        if (!b) { /* treated as too big: the client gets an answer, not a crash */
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

/* What anyone who can connect may read: the page (it holds no data; it asks for the token
 * in the URL's #fragment, which browsers never send) and the liveness probe. */
static bool public_request(const char *method, const char *url)
{
    return !strcmp(method, "GET") && (!strcmp(url, "/") || !strcmp(url, "/healthz"));
}

/* Whether the request announces a body (a length over 0, or chunks). */
static bool has_body(struct MHD_Connection *c)
{
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    return (cl && strtoull(cl, NULL, 10) > 0) ||
           MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

struct framing {
    int lengths, encodings;
};

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    struct framing *f = cls;
    f->lengths += !strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH);
    f->encodings += !strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    return MHD_YES;
}

/* Why the request's framing or URL is ambiguous (NULL: it is not). Two lengths, or a length
 * beside chunks, are read one way here and maybe another by a proxy in front (request
 * smuggling); a NUL would cut the path short of what the client sent. */
static const char *ambiguous(struct MHD_Connection *c, const struct sock *sk)
{
    struct framing f = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
    if (f.lengths > 1)
        return "more than one Content-Length header: the body's length is ambiguous";
    if (f.encodings > 1)
        return "more than one Transfer-Encoding header";
    if (f.encodings && f.lengths)
        return "Transfer-Encoding and Content-Length together: the body's length is ambiguous";
    if (sk->nul_in_url)
        return "a NUL byte (%00) in the URL";
    return NULL;
}

/* libmicrohttpd's decoding of the path and of each query key and value, noting a NUL. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *uri)
{
    size_t n = MHD_http_unescape(uri);
    if (strlen(uri) != n) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
            c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        struct sock *sk = ci ? ci->socket_context : NULL;
        if (sk)
            sk->nul_in_url = true;
    }
    return n;
}

/* The first call, once the headers are in: who is asking, and whether the request is
 * refused before its body is read (an ambiguous request; no credentials; an announced
 * length over the limit). */
static enum MHD_Result begin(const struct server *s, struct MHD_Connection *c, const char *url,
                             const char *method, struct conn *k)
{
    md_api_response rs;
    memset(&rs, 0, sizeof rs);
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *why = ambiguous(c, k->sock);
    if (why)
        md_api_error(&rs, 400, why);
    else if (!s->metrics_only && !k->caller.authenticated && !public_request(method, url))
        md_api_error(&rs, 401,
                     "missing or wrong bearer token (Authorization: Bearer <a token "
                     "of the token-file>)");
    else if (cl && strtoull(cl, NULL, 10) > MD_JOB_BODY_MAX)
        too_big(&rs);
    else
        return MHD_YES;
    k->early = has_body(c);
    log_request(method, url, rs.status, &k->caller);
    return send_response(c, &rs);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    struct server *s = cls;
    struct conn *k = *con_cls;
    if (!k) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
            c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        struct sock *sk = ci ? ci->socket_context : NULL;
        if (!sk || !(k = calloc(1, sizeof *k)))
            return MHD_NO;
        k->sock = sk;
        k->caller = caller_of(s, c, sk);
        *con_cls = k;
        return begin(s, c, url, method, k);
    }
    if (*upload_size) {
        take_body(k, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    /* The whole request is in: answering it has no deadline (a submission may wait for
     * its group commit). */
    md_conns_deadline(s->h->conns, k->sock->slot, false);
    md_api_request rq = {
        .caller = k->caller, .method = method, .path = url, .body = k->body, .len = k->len};
    md_api_response rs;
    if (k->too_big) {
        too_big(&rs);
    } else {
        MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &rq);
        if (rq.nargs > MD_API_MAX_ARGS) {
            memset(&rs, 0, sizeof rs);
            md_api_error(&rs, 400, "too many query arguments");
        } else if (s->metrics_only) {
            md_api_handle_metrics_only(&s->h->api, &rq, &rs);
        } else {
            md_api_handle(&s->h->api, &rq, &rs);
        }
    }
    log_request(method, url, rs.status, &rq.caller);
    enum MHD_Result ok = send_response(c, &rs);
    /* The answer must be read within request-timeout: a client that reads it a byte at a
     * time would otherwise hold the connection for good. */
    md_conns_deadline(s->h->conns, k->sock->slot, true);
    return ok;
}

/* After an answer sent before the body was read: our side is shut for writing (the client
 * sees the answer, then the end) and what the client still sends is read and dropped
 * until it closes or the deadline passes. Closing with unread data would make the kernel
 * reset the connection, and a reset can destroy the answer before the client reads it. */
static void drain(md_conns *cs, const struct sock *sk, int fd)
{
    char scrap[4096];
    shutdown(fd, SHUT_WR);
    for (;;) {
        double left = md_conns_left(cs, sk->slot);
        if (left <= 0)
            return;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int r = poll(&pf, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
        if (r < 0)
            return;
        if (r == 0)
            continue;
        ssize_t n = recv(fd, scrap, sizeof scrap, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return;
    }
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    struct server *s = cls;
    struct conn *k = *con_cls;
    if (k) {
        if (k->early && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
            const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
                c, MHD_CONNECTION_INFO_CONNECTION_FD);
            if (ci)
                drain(s->h->conns, k->sock, ci->connect_fd);
        }
        /* A kept-alive connection's next request: its own deadline, its own URL. */
        md_conns_deadline(s->h->conns, k->sock->slot, true);
        k->sock->nul_in_url = false;
        free(k->body);
        free(k);
    }
    *con_cls = NULL;
}

/* A connection accepted (in the server's listening thread) or closed (its thread joined,
 * its socket still open): it joins or leaves conns; one over its peer's limit, or whose
 * peer cannot be told, is shut down at once. */
static void notify(void *cls, struct MHD_Connection *c, void **socket_context,
                   enum MHD_ConnectionNotificationCode code)
{
    struct server *s = cls;
    struct sock *sk = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (sk) {
            md_conns_remove(s->h->conns, sk->slot);
            free(sk);
        }
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c,
                                                                 MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return;
    int fd = ci->connect_fd;
    md_peer who;
    ms_error err = {0};
    char q[MS_ERR_LEN + 64];
    if (md_listener_peer(&s->l, fd, &who, &err)) {
        md_log(MD_LOG_WARN, "http.peer_unknown", "error=%s", md_log_quote(err.msg, q, sizeof q));
        shutdown(fd, SHUT_RDWR);
        return;
    }
    if (!(sk = calloc(1, sizeof *sk)) || !(sk->slot = md_conns_add(s->h->conns, fd, &who))) {
        free(sk);
        shutdown(fd, SHUT_RDWR);
        return;
    }
    *socket_context = sk;
}

/* libmicrohttpd's own messages. Those about one client's connection ending mid-request
 * (every cut at a deadline makes one) are for debugging: a slow client must not flood the
 * log; conns.c warns about such peers once a minute. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512], q[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    bool client = !strncmp(msg, "Connection socket is closed", 27) ||
                  !strncmp(msg, "Connection was closed", 21);
    md_log(client ? MD_LOG_DEBUG : MD_LOG_WARN, "http.error", "msg=%s",
           md_log_quote(msg, q, sizeof q));
}

int md_http_open(const md_config *c, md_http **out, ms_error *err)
{
    md_http *h = calloc(1, sizeof *h);
    if (!h)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    pthread_rwlock_init(&h->tokens_mu, NULL);
    bool metrics = c->listen_metrics.port > 0;
    /* The metrics listener shares the per-peer limits and deadlines: a scraper that opens
     * connections or trickles is cut like any client, and never starves the API. */
    int rc = md_conns_new((c->nlisten + metrics) * MD_HTTP_CONNECTION_LIMIT, c->peer_connections,
                          c->request_timeout, &h->conns, err);
    bool tcp = false;
    for (int i = 0; i < c->nlisten + metrics && !rc; i++) {
        const md_listen *l = i < c->nlisten ? &c->listen[i] : &c->listen_metrics;
        h->s[i].h = h;
        h->s[i].metrics_only = l->metrics_only;
        if (!(rc = md_listener_open(l, &h->s[i].l, err)))
            h->n++;
        tcp |= l->tcp && !l->metrics_only;
    }
    if (!rc && tcp)
        rc = load_tokens(h, c->token_file, err);
    if (rc) {
        md_http_close(h);
        return rc;
    }
    *out = h;
    return MS_OK;
}

int md_http_start(md_http *h, md_engine *e, const ms_gpu_model *m, const char *slurm_gres,
                  ms_error *err)
{
    h->api.engine = e;
    h->api.model = m;
    h->api.slurm_gres = slurm_gres;
    if (gethostname(h->api.hostname, sizeof h->api.hostname - 1))
        snprintf(h->api.hostname, sizeof h->api.hostname, "localhost");
    for (int i = 0; i < h->n; i++) {
        struct server *s = &h->s[i];
        s->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                    MHD_USE_POLL | MHD_USE_ERROR_LOG,
                                0, NULL, NULL, handle, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
                                MHD_OPTION_LISTEN_SOCKET, s->l.fd, MHD_OPTION_CONNECTION_LIMIT,
                                (unsigned)MD_HTTP_CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
                                (unsigned)MD_HTTP_TIMEOUT_SECONDS, MHD_OPTION_NOTIFY_CONNECTION,
                                notify, s, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                                MHD_OPTION_UNESCAPE_CALLBACK, unescape, s, MHD_OPTION_END);
        if (!s->d)
            return ms_error_set(err, MS_EIO, "listen %s: the HTTP server did not start",
                                s->metrics_only ? "metrics"
                                : s->l.tcp      ? "tcp"
                                                : s->l.path);
    }
    return MS_OK;
}

int md_http_reload(md_http *h, const md_config *next, ms_error *err)
{
    return h->tokens ? load_tokens(h, next->token_file, err) : MS_OK;
}

void md_http_close(md_http *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->n; i++) {
        struct server *s = &h->s[i];
        if (s->d)
            MHD_stop_daemon(s->d); /* closes the listening socket it was given */
        md_listener_close(&s->l, s->d != NULL);
    }
    md_conns_free(h->conns);
    md_tokens_free(h->tokens);
    pthread_rwlock_destroy(&h->tokens_mu);
    free(h);
}
