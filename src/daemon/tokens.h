/* tokens.h: migschedd's token file, the bearer tokens of its TCP clients: `USER TOKEN`
 * lines (blank lines and `#` comments allowed), USER a local user (its uid and primary gid
 * looked up when the file is read), TOKEN 16 to 4096 printable bytes without blanks, each
 * token listed once (a user may have several). A guess is compared with every token, in
 * time that depends on the tokens' count and lengths only. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_TOKENS_H
#define MIGSCHED_DAEMON_TOKENS_H

#include <stdbool.h>
#include <stddef.h>

#include "passwd.h"

#define MS_TOKEN_MIN 16
#define MS_TOKEN_MAX 4096

typedef struct ms_tokens ms_tokens;

/* Reads the file at path (its mode is the configuration's check): at least one token.
 * Errors name PATH:LINE and never quote a token. */
int ms_tokens_read(const char *path, ms_tokens **out, ms_error *err);
void ms_tokens_free(ms_tokens *t);
int ms_tokens_count(const ms_tokens *t);

/* Whether guess (len bytes) is one of t's tokens, and if so whose (*who). */
bool ms_tokens_match(const ms_tokens *t, const char *guess, size_t len, ms_user *who);

#endif
