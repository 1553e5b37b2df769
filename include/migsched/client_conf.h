/* client_conf.h: where the client commands find migschedd when their flags do not say.
 * Each of the daemon's address, the token file and the timeout comes from the first of:
 * the flag (--connect, --token-file, --timeout), the environment (MIGSCHED_CONNECT,
 * MIGSCHED_TOKEN_FILE), the client configuration file ($XDG_CONFIG_HOME/migsched/client.conf,
 * else ~/.config/migsched/client.conf), the default. The file holds `key = value` lines
 * (connect, token-file, timeout), blank lines and `#` comments (docs/daemon.md,
 * "Clients"). */
#ifndef MIGSCHED_CLIENT_CONF_H
#define MIGSCHED_CLIENT_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/client.h"
#include "migsched/error.h"

#define MS_CLIENT_PATH_LEN 4096

/* What the configuration file sets ("" or 0 where it is silent). */
typedef struct ms_client_conf {
    char connect[MS_CLIENT_CONNECT_LEN];
    char token_file[MS_CLIENT_PATH_LEN]; /* absolute; "~/" in the file is $HOME */
    double timeout;
} ms_client_conf;

/* The configuration file's path into buf: under $XDG_CONFIG_HOME when that is an absolute
 * path, else under $HOME/.config. Returns false when neither can be had. */
bool ms_client_conf_path(char *buf, size_t len);

/* Reads the file at path into *out; a file that does not exist sets nothing. Returns 0, or
 * an error code with "PATH:LINE: what is wrong" in err (an unknown or repeated key, a line
 * without '=', an empty or bad value). */
int ms_client_conf_read(const char *path, ms_client_conf *out, ms_error *err);

/* The flags a command was given: NULL or 0 where not given. */
typedef struct ms_client_flags {
    const char *connect, *token_file;
    double timeout;
} ms_client_flags;

/* ms_client_open and ms_client_timeout with each setting from the flag, the environment,
 * the configuration file or the default, in that order. A token file that does not come
 * from the flag is used only with an http:// address. NULL after printing the problem;
 * *usage as ms_client_open says (a bad environment variable or file line is bad usage). */
ms_client *ms_client_open_configured(const char *cmd, const ms_client_flags *flags, bool *usage);

#endif
