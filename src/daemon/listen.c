/* listen.c: migschedd's listening sockets (Unix, loopback TCP, the metrics-only TCP one) and
 * their peers. */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define BACKLOG 256

static int fail(int fd, ms_error *err, const md_listen *l, const char *what)
{
    int e = errno;
    if (fd >= 0)
        close(fd);
    return ms_error_set(err, MS_EIO, "%s: %s %s: %s: %s", *l->where ? l->where : "default",
                        l->metrics_only ? "listen-metrics" : "listen", l->tcp ? l->host : l->path,
                        what, strerror(e));
}

/* An existing socket file: a daemon still accepting on it keeps it; a stale one (nobody
 * accepts: ECONNREFUSED) is removed. Anything but a socket is never removed. */
static int clear_stale(const md_listen *l, ms_error *err)
{
    const char *w = *l->where ? l->where : "default";
    struct stat st;
    if (lstat(l->path, &st)) {
        if (errno == ENOENT)
            return MS_OK;
        return ms_error_set(err, MS_EIO, "%s: listen unix:%s: %s", w, l->path, strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode))
        return ms_error_set(err, MS_EINVAL, "%s: listen unix:%s: exists and is not a socket", w,
                            l->path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ms_error_set(err, MS_EIO, "socket: %s", strerror(errno));
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", l->path);
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (rc == 0)
        return ms_error_set(err, MS_EBUSY,
                            "%s: listen unix:%s: another migschedd is "
                            "listening there",
                            w, l->path);
    if (e != ECONNREFUSED)
        return ms_error_set(err, MS_EIO, "%s: listen unix:%s: %s", w, l->path, strerror(e));
    if (unlink(l->path) && errno != ENOENT)
        return ms_error_set(err, MS_EIO, "%s: listen unix:%s: removing the stale socket: %s", w,
                            l->path, strerror(errno));
    return MS_OK;
}

static int open_unix(const md_listen *l, md_listener *out, ms_error *err)
{
    int rc = clear_stale(l, err);
    if (rc)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(-1, err, l, "socket");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", l->path);
    /* The socket is born 0666: every local user may connect, since each request is
     * authorized by its caller's uid (SO_PEERCRED), not by the file's mode. Listeners are
     * made before any thread starts, so the process-wide umask is safe to change here. */
    mode_t old = umask(0111);
    int b = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (b)
        return fail(fd, err, l, "bind");
    struct stat st;
    if (stat(l->path, &st) || listen(fd, BACKLOG)) {
        rc = fail(fd, err, l, "listen");
        unlink(l->path);
        return rc;
    }
    out->fd = fd;
    out->dev = st.st_dev;
    out->ino = st.st_ino;
    out->made = st.st_ctim;
    snprintf(out->path, sizeof out->path, "%s", l->path);
    return MS_OK;
}

static int open_tcp(const md_listen *l, md_listener *out, ms_error *err)
{
    char port[16];
    snprintf(port, sizeof port, "%d", l->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *ai;
    int g = getaddrinfo(l->host, port, &hints, &ai);
    if (g)
        return ms_error_set(err, MS_EINVAL, "%s: %s%s:%d: %s", l->where,
                            l->metrics_only ? "listen-metrics " : "listen tcp:", l->host, l->port,
                            gai_strerror(g));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, BACKLOG)) {
        freeaddrinfo(ai);
        return fail(fd, err, l, "bind");
    }
    freeaddrinfo(ai);
    out->fd = fd;
    return MS_OK;
}

int md_listener_open(const md_listen *l, md_listener *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    out->tcp = l->tcp;
    return l->tcp ? open_tcp(l, out, err) : open_unix(l, out, err);
}

void md_listener_close(md_listener *l, bool fd_closed)
{
    if (l->fd >= 0 && !fd_closed)
        close(l->fd);
    l->fd = -1;
    struct stat st;
    if (!l->tcp && *l->path && !lstat(l->path, &st) && st.st_dev == l->dev && st.st_ino == l->ino &&
        st.st_ctim.tv_sec == l->made.tv_sec && st.st_ctim.tv_nsec == l->made.tv_nsec)
        unlink(l->path);
    *l->path = '\0';
}

int md_listener_peer(const md_listener *l, int fd, md_peer *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    out->tcp = l->tcp;
    if (!l->tcp) {
        struct ucred cr;
        socklen_t n = sizeof cr;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &n))
            return ms_error_set(err, MS_EIO, "SO_PEERCRED: %s", strerror(errno));
        out->uid = cr.uid;
        out->gid = cr.gid;
        return MS_OK;
    }
    struct sockaddr_storage sa;
    socklen_t n = sizeof sa;
    if (getpeername(fd, (struct sockaddr *)&sa, &n))
        return ms_error_set(err, MS_EIO, "getpeername: %s", strerror(errno));
    if (sa.ss_family == AF_INET6) {
        memcpy(out->addr, &((struct sockaddr_in6 *)&sa)->sin6_addr, 16);
    } else if (sa.ss_family == AF_INET) {
        out->addr[10] = out->addr[11] = 0xff;
        memcpy(out->addr + 12, &((struct sockaddr_in *)&sa)->sin_addr, 4);
    } else {
        return ms_error_set(err, MS_EIO, "a TCP peer of address family %d", sa.ss_family);
    }
    return MS_OK;
}

bool md_peer_same(const md_peer *a, const md_peer *b)
{
    if (a->tcp != b->tcp)
        return false;
    return a->tcp ? !memcmp(a->addr, b->addr, sizeof a->addr) : a->uid == b->uid;
}

const char *md_peer_text(const md_peer *p, char *buf, size_t len)
{
    static const unsigned char V4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    char a[INET6_ADDRSTRLEN] = "?";
    if (!p->tcp)
        snprintf(buf, len, "uid:%u", (unsigned)p->uid);
    else if (!memcmp(p->addr, V4, sizeof V4))
        snprintf(buf, len, "%s", inet_ntop(AF_INET, p->addr + 12, a, sizeof a) ? a : "?");
    else
        snprintf(buf, len, "%s", inet_ntop(AF_INET6, p->addr, a, sizeof a) ? a : "?");
    return buf;
}
