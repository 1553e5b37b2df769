/* log.h: migschedd's log: one logfmt line per event on stderr, key=value pairs, each key
 * once ("ts=2026-11-23T21:53:53.123Z level=info event=job.start id=7 gpu=0 profile=3g.20gb"),
 * values with blanks, quotes or '=' quoted. Lines from concurrent threads never interleave;
 * a line over 4 KiB loses its last pairs, not its syntax (it ends "truncated=true").
 * Private to the daemon; tests/daemon/logfmt_check.py checks every line the daemon tests
 * see. */
#ifndef MIGSCHED_DAEMON_LOG_H
#define MIGSCHED_DAEMON_LOG_H

#include <stddef.h>

#include "config.h"

/* Lines below level are dropped (SIGHUP may change it). */
void md_log_set_level(md_log_level level);
md_log_level md_log_get_level(void);

/* One event: `event` names it ("job.start"); fmt ("key=%d key2=%s ...", may be "") gives
 * the pairs, none named ts, level or event. A value that may hold blanks, quotes or '='
 * (a job name, an error message, a path) goes through md_log_quote first. */
void md_log(md_log_level level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* s as one log value: unchanged when it is a non-empty run of printable characters without
 * blanks, quotes, backslashes or '='; else in double quotes with those and control
 * characters escaped (\" \\ \n \xHH). Truncated to fit buf (n >= 8). Returns buf. */
const char *md_log_quote(const char *s, char *buf, size_t n);

#endif
