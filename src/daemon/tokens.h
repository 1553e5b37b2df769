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

#define MD_TOKEN_MIN 16
#define MD_TOKEN_MAX 4096

typedef struct md_tokens md_tokens;

/* Reads the file at path (its mode is the configuration's check): at least one token.
 * Errors name PATH:LINE and never quote a token. */
int md_tokens_read(const char *path, md_tokens **out, ms_error *err);
void md_tokens_free(md_tokens *t);
int md_tokens_count(const md_tokens *t);

/* Whether guess (len bytes) is one of t's tokens, and if so whose (*who). */
bool md_tokens_match(const md_tokens *t, const char *guess, size_t len, md_user *who);

#endif
