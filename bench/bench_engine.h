/* bench_engine.h: opening migschedd's engine in-process for the bench_engine_* programs. */
#ifndef MIGSCHED_BENCH_ENGINE_H
#define MIGSCHED_BENCH_ENGINE_H

#include <stdio.h>

#include "engine.h"
#include "log.h"

/* The benchmarks' jobs are root's, as no limit of a user's queue bounds them. */
static const ms_job_owner ROOT = {.uid = 0, .gid = 0, .name = "root"};

/* Configures c from the defaults, root's jobs allowed and unbounded per user, and n (key,
 * value) pairs, opens the store and the engine; prints the error and returns 1 on
 * failure. */
static inline int bench_engine_open(ms_daemon_config *c, const char *const (*keys)[2], size_t n,
                                    const char *db, ms_store **st, ms_engine **e)
{
    ms_error err;
    ms_daemon_config_defaults(c);
    c->allow_root_jobs = true;
    c->user_queue_limit = 100000000;
    c->user_queue_bytes = 1LL << 40;
    for (size_t k = 0; k < n; k++)
        if (ms_daemon_config_set(c, keys[k][0], keys[k][1], "bench", &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
    ms_dlog_set_level(MS_LOG_ERROR);
    if (ms_daemon_config_check(c, &err) || ms_store_open(db, &c->model, st, &err) ||
        ms_engine_open(c, *st, e, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    return 0;
}

#endif
