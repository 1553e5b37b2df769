/* fuzz_workload_common.h: what both workload fuzzers check on an input that parses:
 * whatever the writers produce reads back with the same number of tasks. */
#ifndef MIGSCHED_FUZZ_WORKLOAD_COMMON_H
#define MIGSCHED_FUZZ_WORKLOAD_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "migsched/workload.h"

typedef int (*fuzz_parse_fn)(const char *, size_t, const char *, const ms_gpu_model *,
                             ms_workload **, ms_error *);

/* Writes w in one format and reads it back; a failure is a bug, so abort(). */
static inline void fuzz_round_trip(const ms_workload *w, const ms_gpu_model *gpu, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    ms_error werr;
    int rc = json ? ms_workload_write_json(w, gpu, f, &werr)
                  : ms_workload_write_csv(w, gpu, f, &werr);
    fclose(f);
    if (rc == MS_OK) { /* JSON refuses names that are not UTF-8: not a bug */
        ms_workload *back = NULL;
        ms_error err;
        fuzz_parse_fn parse = json ? ms_workload_parse_json : ms_workload_parse_csv;
        if (parse(buf, len, "round-trip", gpu, &back, &err) != MS_OK) {
            fprintf(stderr, "round trip failed: %s\n%s\n", err.msg, buf);
            abort();
        }
        if (back->n != w->n)
            abort();
        ms_workload_free(back);
    }
    free(buf);
}

/* Parses data with no GPU, an A30 and an A100; round-trips whatever parses. */
static inline void fuzz_workload_input(const char *data, size_t size, fuzz_parse_fn parse)
{
    const ms_gpu_model *gpus[] = {NULL, ms_gpu_builtin("A30-24GB"), ms_gpu_builtin("A100-40GB")};
    for (int g = 0; g < 3; g++) {
        ms_workload *w = NULL;
        ms_error err;
        if (parse(data, size, "fuzz", gpus[g], &w, &err) != MS_OK)
            continue;
        if (gpus[g] && ms_workload_check_gpu(w, gpus[g], &err) != MS_OK)
            abort(); /* the reader promised every task fits the GPU */
        fuzz_round_trip(w, gpus[g], 0);
        fuzz_round_trip(w, gpus[g], 1);
        ms_workload_free(w);
    }
}

#endif
