/* conns.h: the open connections of migschedd's listeners and who is on each (md_peer): at
 * most peer-connections per peer (root on the Unix socket excepted: it is the SPANK plugin
 * in every Slurm task of the node, and may do anything anyway), and a deadline by which a
 * request's headers and body must have arrived, request-timeout seconds from the accept
 * (then from the end of the previous request on a kept-alive connection): a watchdog
 * thread shuts down a connection past its deadline however it trickles. Refusals and cuts
 * are logged at most once a minute per peer, with their counts. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_CONNS_H
#define MIGSCHED_DAEMON_CONNS_H

#include "listen.h"

typedef struct md_conns md_conns;
typedef struct md_conn md_conn; /* one open connection */

/* Room for cap connections in all; starts the watchdog. */
int md_conns_new(int cap, int per_peer, double timeout, md_conns **out, ms_error *err);
/* Stops the watchdog; every connection must have been removed. */
void md_conns_free(md_conns *cs);

/* fd, accepted just now from peer: its entry, the deadline on. NULL when the peer has
 * per_peer connections open already (or there is no room): the caller closes fd. */
md_conn *md_conns_add(md_conns *cs, int fd, const md_peer *peer);
/* Before fd is closed. */
void md_conns_remove(md_conns *cs, md_conn *c);
/* on: timeout seconds from now (the next request's headers and body must come by then);
 * off: no deadline (a whole request is being answered). */
void md_conns_deadline(md_conns *cs, md_conn *c, bool on);
/* Seconds left before c's deadline (<= 0 once past; 1e9 when it has none). */
double md_conns_left(md_conns *cs, const md_conn *c);
const md_peer *md_conn_peer(const md_conn *c);

#endif
