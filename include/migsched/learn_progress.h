/* learn_progress.h: reading training progress logs. */
#ifndef MIGSCHED_LEARN_PROGRESS_H
#define MIGSCHED_LEARN_PROGRESS_H

#include <stddef.h>

#include "migsched/error.h"

/* ---- Training progress logs: the lines `migsched train` and `migsched hier train` print
 * on stderr ("steps N/TOTAL ... cpu X s ... p_opt P% ..." or "... throughput T on ..."),
 * each optionally prefixed "UNIXTIME cpu=SECONDS " by a wrapper that logs the process's CPU
 * time. Other lines are skipped; a "resuming FILE at N steps" line drops the points past N
 * (lost with their process) and, unless it says ", cpu X s" (the checkpoint carried the
 * count), continues the CPU axis from the last point. ---- */
typedef struct ms_progress_point {
    long steps;
    double cpu;        /* CPU seconds over the log's runs; NAN when the line has none */
    double p_opt;      /* PPO lines (%), else NAN */
    double throughput; /* DQN lines, else NAN */
    int line;          /* in the log, for messages */
} ms_progress_point;

typedef struct ms_progress_log {
    ms_progress_point *pts;
    int n;
} ms_progress_log;

/* Fails naming the file and line on a malformed number, steps that go back without a
 * resume, or a log with no progress line; nothing is kept on error. */
int ms_progress_log_read(const char *path, ms_progress_log *out, ms_error *err);
int ms_progress_log_parse(const char *buf, size_t len, const char *source, ms_progress_log *out,
                          ms_error *err);
void ms_progress_log_fini(ms_progress_log *log);

#endif
