/* daemon_client.h: what `migsched submit`, `jobs`, `cancel` and `status` share: a libcurl
 * connection to migschedd (its Unix socket or http://127.0.0.1:PORT with a bearer token),
 * requests with JSON replies, and the daemon's errors printed as
 * "migsched: CMD: <the daemon's error>". */
#ifndef MIGSCHED_CLI_DAEMON_CLIENT_H
#define MIGSCHED_CLI_DAEMON_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The daemon's default socket (docs/daemon.md, listen). */
#define CLI_DEFAULT_CONNECT "unix:/run/migschedd/migschedd.sock"

typedef struct cli_client cli_client;

/* --connect unix:PATH | http://HOST:PORT (NULL: the default socket) and --token-file
 * (http only). Returns NULL after printing the problem; *usage is set when it was bad
 * usage (exit 2) rather than a failure (exit 1). */
cli_client *cli_client_open(const char *cmd, const char *connect, const char *token_file,
                            bool *usage);
void cli_client_close(cli_client *c);

/* One request (body NULL for none). On an HTTP status below 400 fills *reply with the
 * parsed JSON (a new reference) and returns 0; else prints "migsched: CMD: " and the
 * daemon's error (or that it cannot be reached, naming the socket or address) and returns
 * 1. *status (may be NULL) gets the HTTP status, 0 when nothing was received. */
int cli_client_call(cli_client *c, const char *method, const char *path, const char *body,
                    json_t **reply, long *status);

/* From now on a call's error goes into buf (len bytes, NUL-terminated) instead of stderr
 * (the SPANK plugin reports it through Slurm). */
void cli_client_capture_errors(cli_client *c, char *buf, size_t len);

/* Each call from now on fails after this long (the plugin must not hang a Slurm task on a
 * stuck daemon; the commands wait as long as it takes). */
void cli_client_timeout(cli_client *c, double seconds);

/* Prints "migsched: CMD: " and the message (for the commands' own errors). */
void cli_client_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The common flags of the client commands, for their --help texts. */
#define CLI_CLIENT_FLAGS_HELP                                                              \
    "  --connect unix:PATH | http://127.0.0.1:PORT   the daemon (default " CLI_DEFAULT_CONNECT \
    ")\n"                                                                                  \
    "  --token-file FILE   the bearer token for http:// (the daemon's token-file)\n"

#endif
