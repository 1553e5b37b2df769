/* conns.c: the listeners' open connections: per-peer limits and request deadlines. */
#include "conns.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"

#define NEVER     1e18
#define LOG_EVERY 60.0 /* seconds between two warnings about one peer */

struct md_conn {
    bool used;
    bool cut; /* shut down at its deadline */
    int fd;
    md_peer who;
    int peer;        /* index in peers */
    double deadline; /* NEVER when off */
};

/* A peer with connections open, or seen lately (kept for its warnings' times). */
struct peer {
    bool used;
    md_peer who;
    int open;
    unsigned refused, cut;             /* since the last warning of each */
    double refused_warned, cut_warned; /* when (-NEVER: never) */
    double seen;
};

struct md_conns {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t watchdog;
    bool stop;
    double wake; /* when the watchdog looks next (NEVER: when told) */
    int cap, per_peer;
    double timeout;
    struct md_conn *c;
    struct peer *p; /* cap of them: a peer has a connection or had one */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The peer's entry, made if needed in a free slot or over the one idle the longest. */
static int peer_of(md_conns *cs, const md_peer *who, double t)
{
    int empty = -1, idle = -1;
    for (int i = 0; i < cs->cap; i++) {
        const struct peer *p = &cs->p[i];
        if (!p->used) {
            if (empty < 0)
                empty = i;
        } else if (md_peer_same(&p->who, who)) {
            return i;
        } else if (!p->open && (idle < 0 || p->seen < cs->p[idle].seen)) {
            idle = i;
        }
    }
    int at = empty >= 0 ? empty : idle;
    if (at >= 0)
        cs->p[at] = (struct peer){
            .used = true, .who = *who, .refused_warned = -NEVER, .cut_warned = -NEVER, .seen = t};
    return at;
}

/* A warning about p, at most one a minute: what happened (count of it since the last). */
static void warn(struct peer *p, const char *event, unsigned *count, double *warned, double t,
                 const char *what, double n)
{
    (*count)++;
    if (t - *warned < LOG_EVERY)
        return;
    char who[64];
    md_log(MD_LOG_WARN, event, "peer=%s %s=%g count=%u", md_peer_text(&p->who, who, sizeof who),
           what, n, *count);
    *count = 0;
    *warned = t;
}

md_conn *md_conns_add(md_conns *cs, int fd, const md_peer *peer)
{
    double t = now();
    md_conn *c = NULL;
    pthread_mutex_lock(&cs->mu);
    int pi = peer_of(cs, peer, t);
    if (pi < 0)
        goto out; /* every slot holds a peer with connections: no room at all */
    struct peer *p = &cs->p[pi];
    p->seen = t;
    bool root = !peer->tcp && peer->uid == 0;
    if (p->open >= cs->per_peer && !root) {
        warn(p, "http.peer_limit", &p->refused, &p->refused_warned, t, "limit", cs->per_peer);
        goto out;
    }
    for (int i = 0; i < cs->cap && !c; i++)
        if (!cs->c[i].used)
            c = &cs->c[i];
    if (!c)
        goto out;
    *c = (struct md_conn){
        .used = true, .fd = fd, .who = *peer, .peer = pi, .deadline = t + cs->timeout};
    p->open++;
    if (c->deadline < cs->wake)
        pthread_cond_signal(&cs->cv);
out:
    pthread_mutex_unlock(&cs->mu);
    return c;
}

void md_conns_remove(md_conns *cs, md_conn *c)
{
    pthread_mutex_lock(&cs->mu);
    struct peer *p = &cs->p[c->peer];
    p->open--;
    p->seen = now();
    c->used = false;
    pthread_mutex_unlock(&cs->mu);
}

void md_conns_deadline(md_conns *cs, md_conn *c, bool on)
{
    pthread_mutex_lock(&cs->mu);
    c->deadline = on ? now() + cs->timeout : NEVER;
    if (c->deadline < cs->wake)
        pthread_cond_signal(&cs->cv);
    pthread_mutex_unlock(&cs->mu);
}

double md_conns_left(md_conns *cs, const md_conn *c)
{
    pthread_mutex_lock(&cs->mu);
    double left = c->deadline == NEVER ? 1e9 : c->deadline - now();
    if (c->cut)
        left = 0;
    pthread_mutex_unlock(&cs->mu);
    return left;
}

const md_peer *md_conn_peer(const md_conn *c) { return &c->who; }

/* Shuts down every connection past its deadline (its thread then reads the end and
 * closes it), then sleeps until the next deadline or a change. */
static void *watch(void *arg)
{
    md_conns *cs = arg;
    pthread_mutex_lock(&cs->mu);
    while (!cs->stop) {
        double t = now(), next = NEVER;
        for (int i = 0; i < cs->cap; i++) {
            md_conn *c = &cs->c[i];
            if (!c->used || c->cut || c->deadline == NEVER)
                continue;
            if (c->deadline > t) {
                if (c->deadline < next)
                    next = c->deadline;
                continue;
            }
            shutdown(c->fd, SHUT_RDWR);
            c->cut = true;
            struct peer *p = &cs->p[c->peer];
            warn(p, "http.request_timeout", &p->cut, &p->cut_warned, t, "seconds", cs->timeout);
        }
        cs->wake = next;
        if (next == NEVER) {
            pthread_cond_wait(&cs->cv, &cs->mu);
        } else {
            double at = next + 0.001; /* just past it, so that it is due when we wake */
            struct timespec ts = {.tv_sec = (time_t)at,
                                  .tv_nsec = (long)((at - (double)(time_t)at) * 1e9)};
            pthread_cond_timedwait(&cs->cv, &cs->mu, &ts);
        }
    }
    pthread_mutex_unlock(&cs->mu);
    return NULL;
}

int md_conns_new(int cap, int per_peer, double timeout, md_conns **out, ms_error *err)
{
    md_conns *cs = calloc(1, sizeof *cs);
    if (!cs || !(cs->c = calloc((size_t)cap, sizeof *cs->c)) ||
        !(cs->p = calloc((size_t)cap, sizeof *cs->p))) {
        if (cs)
            free(cs->c);
        free(cs);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cs->cap = cap;
    cs->per_peer = per_peer;
    cs->timeout = timeout;
    cs->wake = NEVER;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cs->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&cs->mu, NULL);
    int e = pthread_create(&cs->watchdog, NULL, watch, cs);
    if (e) {
        pthread_cond_destroy(&cs->cv);
        pthread_mutex_destroy(&cs->mu);
        free(cs->c);
        free(cs->p);
        free(cs);
        return ms_error_set(err, MS_EIO, "the connection watchdog did not start: %s", strerror(e));
    }
    *out = cs;
    return MS_OK;
}

void md_conns_free(md_conns *cs)
{
    if (!cs)
        return;
    pthread_mutex_lock(&cs->mu);
    cs->stop = true;
    pthread_cond_signal(&cs->cv);
    pthread_mutex_unlock(&cs->mu);
    pthread_join(cs->watchdog, NULL);
    pthread_cond_destroy(&cs->cv);
    pthread_mutex_destroy(&cs->mu);
    free(cs->c);
    free(cs->p);
    free(cs);
}
