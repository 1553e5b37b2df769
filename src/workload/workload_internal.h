/* workload_internal.h: helpers shared by the workload readers (not public API). */
#ifndef MIGSCHED_WORKLOAD_INTERNAL_H
#define MIGSCHED_WORKLOAD_INTERNAL_H

#include <stdint.h>
#include <stddef.h>

#include "migsched/workload.h"

/* Set of task names with the position each was first seen at (a CSV line or a JSON
 * task index); open addressing, so duplicate checks stay linear in the input size. */
typedef struct wl_name_set {
    size_t cap, n;
    struct wl_name_slot {
        uint64_t hash;   /* of key: compared before the strings, kept when growing */
        const char *key; /* borrowed: the strings must outlive the set; NULL: free */
        long where;
    } * slot; /* one cache line touched per probe */
} wl_name_set;

void wl_name_set_init(wl_name_set *s);
void wl_name_set_free(wl_name_set *s);
/* Room for n names without rehashing (each rehash moves every key to a random slot: at
 * 10^6 names, cache misses); -1 when out of memory. */
int wl_name_set_reserve(wl_name_set *s, size_t n);
/* Inserts name; returns 1 and fills *first when it was already there, 0 when added,
 * -1 when out of memory. */
int wl_name_set_add(wl_name_set *s, const char *name, long where, long *first);
/* Starts loading the slot where name's probe begins, so that a reader can parse the rest
 * of the record while the (random, at 10^6 names uncached) slot comes in. */
void wl_name_set_prefetch(const wl_name_set *s, const char *name);

/* Fills t with copies of the strings (command and cwd may be NULL) and the times
 * (MS_MAX_SLICES + 1 entries); -1 (t holds nothing to free) when out of memory. */
int wl_task_init(ms_task *t, const char *name, const double *time, const char *command,
                 const char *cwd);
/* Frees the strings of tasks t[0..n) (not the array). */
void wl_tasks_free(ms_task *t, size_t n);
/* Room for n tasks in w without growing; -1 when out of memory. */
int wl_reserve(ms_workload *w, size_t n);

/* ms_workload_parse_csv with the rows split in two and parsed on two threads when they
 * hold at least split_min bytes (SIZE_MAX: never): the same workload or error either way. */
int wl_parse_csv(const char *text, size_t len, const char *source, const ms_gpu_model *gpu,
                 size_t split_min, ms_workload **out, ms_error *err);

/* Parses a time field: a positive finite decimal number, inf/infinity (any case) or
 * empty text (both mean cannot run). On failure returns -1 and sets *why. */
int wl_parse_time(const char *text, double *out, const char **why);

/* Writes a printable, shortened copy of text into buf for error messages. */
const char *wl_quote(const char *text, char *buf, size_t len);

/* "1,2,3,4,7": the GPU's compute sizes, for messages. */
const char *wl_sizes_text(const ms_gpu_model *gpu, char *buf, size_t len);

/* Whether the task has a finite time on some size (the GPU's sizes, or any when gpu is
 * NULL). */
int wl_task_fits(const double *time, const ms_gpu_model *gpu);

/* The sizes a writer puts out: the GPU's, or (gpu NULL) every size some task can run
 * on. Returns how many. */
int wl_columns(const ms_workload *w, const ms_gpu_model *gpu, int size[MS_MAX_SLICES]);

/* Shortest "%.Ng" text (N = 15..17) that reads back as exactly x. */
void wl_format_double(double x, char *buf, size_t len);

#endif
