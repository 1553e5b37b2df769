/* cli_watch.h: a command's output drawn again and again (`migsched jobs --watch`): on a
 * terminal the screen is cleared and redrawn; elsewhere each snapshot follows the last
 * after an empty line, so that a pipe or a file gets them all. SIGINT and SIGTERM end it
 * between snapshots. */
#ifndef MIGSCHED_CLI_WATCH_H
#define MIGSCHED_CLI_WATCH_H

#define CLI_WATCH_DEFAULT_INTERVAL 2.0
#define CLI_WATCH_MIN_INTERVAL     0.1
#define CLI_WATCH_MAX_INTERVAL     86400.0

/* Calls draw(arg) every interval seconds (title heads each screen on a terminal) until
 * SIGINT or SIGTERM. A snapshot that fails has said why on stderr, and the next one is
 * tried all the same. Returns draw's status of the last snapshot (0 when it drew). */
int cli_watch(const char *title, double interval, int (*draw)(void *arg), void *arg);

#endif
