/* daemon_client.h: what `migsched submit`, `jobs`, `cancel` and `status` share: a libcurl
 * connection to migschedd (its Unix socket or http://127.0.0.1:PORT with a bearer token),
 * requests with a deadline and JSON object replies, and the daemon's errors printed
 * escaped as "migsched: CMD: <the daemon's error> (HTTP STATUS)". */
#ifndef MIGSCHED_CLI_DAEMON_CLIENT_H
#define MIGSCHED_CLI_DAEMON_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The daemon's default socket (docs/daemon.md, listen). */
#define CLI_DEFAULT_CONNECT "unix:/run/migschedd/migschedd.sock"
/* How long one request may take (connecting, sending, the whole reply) unless
 * cli_client_timeout says otherwise, and the most it may be set to. */
#define CLI_DEFAULT_TIMEOUT 30
#define CLI_MAX_TIMEOUT 86400

typedef struct cli_client cli_client;

/* --connect unix:PATH | http://HOST:PORT (NULL: the default socket) and --token-file
 * (http only). Returns NULL after printing the problem; *usage is set when it was bad
 * usage (exit 2) rather than a failure (exit 1). */
cli_client *cli_client_open(const char *cmd, const char *connect, const char *token_file,
                            bool *usage);
void cli_client_close(cli_client *c);

/* One request (body NULL for none). On an HTTP status below 400 with a JSON object fills
 * *reply with it (a new reference) and returns 0; else prints "migsched: CMD: " and the
 * daemon's error with its status (or that it cannot be reached or did not answer in time,
 * naming the socket or address; or what is wrong with the reply) and returns 1. *status
 * (may be NULL) gets the HTTP status, 0 when nothing was received. */
int cli_client_call(cli_client *c, const char *method, const char *path, const char *body,
                    json_t **reply, long *status);

/* The errno of the last call's failed connection (ECONNREFUSED: nothing listens on the
 * socket; ENOENT: the socket file is gone), 0 when it connected or failed otherwise. */
long cli_client_connect_errno(const cli_client *c);

/* Checks a reply's shape: 0 when o has every field the caller relies on, else 1 with the
 * first that does not, and why, in msg (len bytes). */
typedef int cli_reply_check(json_t *o, char *msg, size_t len);

/* cli_client_call, then check (its complaint printed as a malformed reply, naming the
 * request and the daemon). */
int cli_client_call_checked(cli_client *c, const char *method, const char *path,
                            const char *body, cli_reply_check *check, json_t **reply);

/* From now on a call's error goes into buf (len bytes, NUL-terminated) instead of stderr
 * (the SPANK plugin reports it through Slurm). */
void cli_client_capture_errors(cli_client *c, char *buf, size_t len);

/* Each call from now on fails after this many seconds (above 0):
 * connecting, sending and receiving the whole reply, however slowly it comes. */
void cli_client_timeout(cli_client *c, double seconds);

/* --timeout S: true with *seconds, else false after printing the problem (bad usage). */
bool cli_client_parse_timeout(const char *cmd, const char *arg, double *seconds);

/* Prints "migsched: CMD: " and the message (for the commands' own errors). */
void cli_client_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The common flags of the client commands, for their --help texts. */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)
#define CLI_CLIENT_FLAGS_HELP                                                              \
    "  --connect unix:PATH | http://127.0.0.1:PORT   the daemon (default " CLI_DEFAULT_CONNECT \
    ")\n"                                                                                  \
    "  --token-file FILE   the bearer token for http:// (the daemon's token-file)\n"        \
    "  --timeout S         give up on a request after S seconds (default "       \
    CLI_STR(CLI_DEFAULT_TIMEOUT) ")\n"

#endif
