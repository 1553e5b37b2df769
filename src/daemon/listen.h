/* listen.h: migschedd's listening sockets, made before the HTTP server takes them over
 * (MHD_OPTION_LISTEN_SOCKET): a Unix socket at a path (mode 0660; refused while a live
 * daemon answers on it, a stale one replaced), a TCP socket on a loopback address, or
 * listen-metrics' TCP socket on any address; and who is at the other end of a connection
 * accepted on one. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_LISTEN_H
#define MIGSCHED_DAEMON_LISTEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"

typedef struct md_listener {
    int fd;
    bool tcp;
    char path[108]; /* unix: the socket's path, removed by md_listener_close */
    dev_t dev;      /* unix: the socket file we made (an inode number alone may be reused */
    ino_t ino;      /* by the next daemon's socket), so that we never remove another's */
    struct timespec made;
} md_listener;

/* The other end of an accepted connection: on a Unix socket the peer process's uid and gid
 * (SO_PEERCRED, which the peer cannot forge), on TCP its address. */
typedef struct md_peer {
    bool tcp;
    uint32_t uid, gid;      /* unix */
    unsigned char addr[16]; /* tcp: IPv6, an IPv4 address as ::ffff:A.B.C.D */
} md_peer;

/* Binds and listens on l. Errors name the address (l->where) and the problem: a path
 * that is not a socket, a socket a live process accepts connections on (another daemon),
 * a port in use. */
int md_listener_open(const md_listen *l, md_listener *out, ms_error *err);
/* Closes the socket (if the HTTP server has not already) and removes the Unix socket file
 * when it is still the one this listener made. */
void md_listener_close(md_listener *l, bool fd_closed);

/* Who is at the other end of fd, a connection accepted on l. */
int md_listener_peer(const md_listener *l, int fd, md_peer *out, ms_error *err);
/* Whether a and b are one peer: one uid (their gids may differ), or one address. */
bool md_peer_same(const md_peer *a, const md_peer *b);
/* p as a log value: "uid:1000", "127.0.0.2", "::1". */
const char *md_peer_text(const md_peer *p, char *buf, size_t len);

#endif
