/* listen.h: migschedd's listening sockets, made before the HTTP server takes them over
 * (MHD_OPTION_LISTEN_SOCKET): a Unix socket at a path (mode 0660; refused while a live
 * daemon answers on it, a stale one replaced) or a TCP socket on a loopback address.
 * Private to the daemon. */
#ifndef MIGSCHED_DAEMON_LISTEN_H
#define MIGSCHED_DAEMON_LISTEN_H

#include <sys/types.h>
#include <time.h>

#include "config.h"

typedef struct ms_listener {
    int fd;
    bool tcp;
    char path[108];   /* unix: the socket's path, removed by ms_listener_close */
    dev_t dev;        /* unix: the socket file we made (an inode number alone may be reused */
    ino_t ino;        /* by the next daemon's socket), so that we never remove another's */
    struct timespec made;
} ms_listener;

/* Binds and listens on l. Errors name the address (l->where) and the problem: a path
 * that is not a socket, a socket a live process accepts connections on (another daemon),
 * a port in use. */
int ms_listener_open(const ms_daemon_listen *l, ms_listener *out, ms_error *err);
/* Closes the socket (if the HTTP server has not already) and removes the Unix socket file
 * when it is still the one this listener made. */
void ms_listener_close(ms_listener *l, bool fd_closed);

#endif
