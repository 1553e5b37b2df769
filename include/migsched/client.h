/* client.h: the client of migschedd that `migsched submit`, `jobs`, `cancel` and `status`
 * and the SPANK plugin share: a libcurl connection to migschedd (its Unix socket or
 * http://127.0.0.1:PORT with a bearer token), requests with a deadline and JSON object
 * replies, and the daemon's errors printed escaped as "migsched: CMD: <the daemon's error>
 * (HTTP STATUS)". */
#ifndef MIGSCHED_CLIENT_H
#define MIGSCHED_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The daemon's default socket (docs/daemon.md, listen). */
#define MS_CLIENT_DEFAULT_CONNECT "unix:/run/migschedd/migschedd.sock"
/* How long one request may take (connecting, sending, the whole reply) unless
 * ms_client_timeout says otherwise, and the most it may be set to. */
#define MS_CLIENT_DEFAULT_TIMEOUT 30
#define MS_CLIENT_MAX_TIMEOUT     86400

/* The longest --connect taken, its NUL included. */
#define MS_CLIENT_CONNECT_LEN 200

typedef struct ms_client ms_client;

/* Whether connect is unix:PATH (a socket path that fits) or http://... */
bool ms_client_connect_valid(const char *connect);

/* --connect unix:PATH | http://HOST:PORT (NULL: the default socket) and --token-file
 * (http only). Returns NULL after printing the problem; *usage is set when it was bad
 * usage (exit 2) rather than a failure (exit 1). */
ms_client *ms_client_open(const char *cmd, const char *connect, const char *token_file,
                          bool *usage);
void ms_client_close(ms_client *c);

/* One request (body NULL for none). On an HTTP status below 400 with a JSON object fills
 * *reply with it (a new reference) and returns 0; else prints "migsched: CMD: " and the
 * daemon's error with its status (or that it cannot be reached or did not answer in time,
 * naming the socket or address; or what is wrong with the reply) and returns 1. *status
 * (may be NULL) gets the HTTP status, 0 when nothing was received. */
int ms_client_call(ms_client *c, const char *method, const char *path, const char *body,
                   json_t **reply, long *status);

/* The errno of the last call's failed connection (ECONNREFUSED: nothing listens on the
 * socket; ENOENT: the socket file is gone), 0 when it connected or failed otherwise. */
long ms_client_connect_errno(const ms_client *c);

/* Whether the last call's connection was closed, or reset, before a reply came (the
 * daemon ended during the request; a timeout is not this). */
bool ms_client_dropped(const ms_client *c);

/* Checks a reply's shape: 0 when o has every field the caller relies on, else 1 with the
 * first that does not, and why, in msg (len bytes). */
typedef int ms_client_reply_check(json_t *o, char *msg, size_t len);

/* ms_client_call, then check (its complaint printed as a malformed reply, naming the
 * request and the daemon). */
int ms_client_call_checked(ms_client *c, const char *method, const char *path, const char *body,
                           ms_client_reply_check *check, json_t **reply);

/* From now on a call's error goes into buf (len bytes, NUL-terminated) instead of stderr
 * (the SPANK plugin reports it through Slurm). */
void ms_client_capture_errors(ms_client *c, char *buf, size_t len);

/* Each call from now on fails after this many seconds (above 0):
 * connecting, sending and receiving the whole reply, however slowly it comes. */
void ms_client_timeout(ms_client *c, double seconds);

/* Whether arg is a timeout in seconds, (0, MS_CLIENT_MAX_TIMEOUT]: true with *seconds. */
bool ms_client_timeout_valid(const char *arg, double *seconds);
/* --timeout S: true with *seconds, else false after printing the problem (bad usage). */
bool ms_client_parse_timeout(const char *cmd, const char *arg, double *seconds);

/* Prints "migsched: CMD: " and the message (for the commands' own errors). */
void ms_client_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
