/* bench_engine.h: opening migschedd's engine in-process for the bench_engine_* programs. */
#ifndef MIGSCHED_BENCH_ENGINE_H
#define MIGSCHED_BENCH_ENGINE_H

#include <stdio.h>

#include "engine.h"
#include "log.h"

/* The benchmarks' jobs are root's, as no limit of a user's queue bounds them. */
static const md_job_owner ROOT = {.uid = 0, .gid = 0, .name = "root"};

/* Configures c from the defaults, root's jobs allowed and unbounded per user, and n (key,
 * value) pairs, opens the store and the engine; prints the error and returns 1 on
 * failure. */
static inline int bench_engine_open(md_config *c, const char *const (*keys)[2], size_t n,
                                    const char *db, md_store **st, md_engine **e)
{
    ms_error err;
    md_config_defaults(c);
    c->allow_root_jobs = true;
    c->user_queue_limit = 100000000;
    c->user_queue_bytes = 1LL << 40;
    for (size_t k = 0; k < n; k++)
        if (md_config_set(c, keys[k][0], keys[k][1], "bench", &err))
            return fprintf(stderr, "%s\n", err.msg), 1;
    md_log_set_level(MD_LOG_ERROR);
    if (md_config_check(c, &err) || md_store_open(db, &c->model, st, &err) ||
        md_engine_open(c, *st, e, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    return 0;
}

#endif
