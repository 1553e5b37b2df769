/* cli_watch.c: redrawing a command's output at an interval until SIGINT or SIGTERM. */
#include "cli_watch.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

/* Sleeps seconds, or less when a stop signal comes. */
static void pause_for(double seconds)
{
    struct timespec left = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    while (!stop_signal && nanosleep(&left, &left) && errno == EINTR)
        ;
}

int cli_watch(const char *title, double interval, int (*draw)(void *arg), void *arg)
{
    /* No SA_RESTART: the signal cuts the sleep short. */
    struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    bool tty = isatty(STDOUT_FILENO);
    int rc = 0;
    for (bool first = true; !stop_signal; first = false) {
        if (tty) {
            char now[64];
            time_t t = time(NULL);
            strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S", localtime(&t));
            printf("\033[H\033[2J%s   every %g s   %s\n\n", title, interval, now);
        } else if (!first) {
            putchar('\n');
        }
        rc = draw(arg);
        fflush(stdout);
        if (ferror(stdout))
            break; /* nobody reads any more: main says so */
        pause_for(interval);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
