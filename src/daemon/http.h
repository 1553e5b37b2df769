/* http.h: migschedd's HTTP server on libmicrohttpd: one server per listener (thread per
 * connection, so a submission waiting for its group commit never holds up others; per-peer
 * limits and request deadlines from conns.h, so a slow client cannot either), the caller
 * of each request (the peer's uid and gid on the Unix socket, a token's user on TCP, nobody
 * on the metrics-only listener), refusals before the body is read (no credentials: 401; an
 * announced length over MD_JOB_BODY_MAX: 413), bodies, then api.c's routes (the metrics-only
 * listener's: GET /metrics alone). Private to the daemon. */
#ifndef MIGSCHED_DAEMON_HTTP_H
#define MIGSCHED_DAEMON_HTTP_H

#include "engine.h"

#define MD_HTTP_CONNECTION_LIMIT MD_CONNECTION_LIMIT
#define MD_HTTP_TIMEOUT_SECONDS  30 /* idle while an answer is sent: the connection is closed */

typedef struct md_http md_http;

/* Opens every listener of c and reads the token file when one is TCP. Done before the
 * engine opens, so a second daemon started on the same socket stops here. */
int md_http_open(const md_config *c, md_http **out, ms_error *err);
/* Starts serving requests on the listeners with the engine (jobs are parsed against m;
 * slurm_gres: md_api's). */
int md_http_start(md_http *h, md_engine *e, const ms_gpu_model *m, const char *slurm_gres,
                  ms_error *err);
/* SIGHUP: reads next's token file (the old tokens stay on an error). */
int md_http_reload(md_http *h, const md_config *next, ms_error *err);
/* Stops the servers (their threads joined: no engine call is in flight after it), closes
 * the listeners and removes the Unix socket files they made. */
void md_http_close(md_http *h);

#endif
