/* conns.h: the open connections of migschedd's listeners and who is on each (ms_peer): at
 * most peer-connections per peer (root on the Unix socket excepted: it is the SPANK plugin
 * in every Slurm task of the node, and may do anything anyway), and a deadline by which a
 * request's headers and body must have arrived, request-timeout seconds from the accept
 * (then from the end of the previous request on a kept-alive connection): a watchdog
 * thread shuts down a connection past its deadline however it trickles. Refusals and cuts
 * are logged at most once a minute per peer, with their counts. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_CONNS_H
#define MIGSCHED_DAEMON_CONNS_H

#include "listen.h"

typedef struct ms_conns ms_conns;
typedef struct ms_conn ms_conn;   /* one open connection */

/* Room for cap connections in all; starts the watchdog. */
int ms_conns_new(int cap, int per_peer, double timeout, ms_conns **out, ms_error *err);
/* Stops the watchdog; every connection must have been removed. */
void ms_conns_free(ms_conns *cs);

/* fd, accepted just now from peer: its entry, the deadline on. NULL when the peer has
 * per_peer connections open already (or there is no room): the caller closes fd. */
ms_conn *ms_conns_add(ms_conns *cs, int fd, const ms_peer *peer);
/* Before fd is closed. */
void ms_conns_remove(ms_conns *cs, ms_conn *c);
/* on: timeout seconds from now (the next request's headers and body must come by then);
 * off: no deadline (a whole request is being answered). */
void ms_conns_deadline(ms_conns *cs, ms_conn *c, bool on);
/* Seconds left before c's deadline (<= 0 once past; 1e9 when it has none). */
double ms_conns_left(ms_conns *cs, const ms_conn *c);
const ms_peer *ms_conn_peer(const ms_conn *c);

#endif
