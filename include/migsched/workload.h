/* workload.h: tasks with per-size times, CSV/JSON readers and writers, synthetic
 * generator (paper 000 6.3, paper 001 5.1.2) with named presets. */
#ifndef MIGSCHED_WORKLOAD_H
#define MIGSCHED_WORKLOAD_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/rng.h"

typedef struct ms_task {
    char *name;
    /* time[s]: seconds on an instance of s compute slices; INFINITY = cannot run there.
     * Index 0 is unused. */
    double time[MS_MAX_SLICES + 1];
    char *command; /* optional (NULL): what `migsched run` executes */
    char *cwd;     /* optional (NULL) */
} ms_task;

typedef struct ms_workload {
    int n;
    int cap;
    ms_task *tasks;
    char gpu[MS_NAME_LEN]; /* GPU named by a JSON workload, "" if none */
} ms_workload;

ms_workload *ms_workload_new(void);
void ms_workload_free(ms_workload *w);
/* Copies name/command/cwd; time has MS_MAX_SLICES + 1 entries. */
int ms_workload_add(ms_workload *w, const char *name, const double *time, const char *command,
                    const char *cwd, ms_error *err);
/* A workload holding tasks [from, from + count) of w (for batches). */
ms_workload *ms_workload_slice(const ms_workload *w, int from, int count);

/* Readers. gpu may be NULL (then any size 1..MS_MAX_SLICES is accepted); with a gpu,
 * sizes not of the GPU and tasks that fit no size of the GPU are errors. Messages name
 * the source, the line (CSV) or field (JSON) and the problem; nothing is half-loaded. */
int ms_workload_parse_csv(const char *text, size_t len, const char *source, const ms_gpu_model *gpu,
                          ms_workload **out, ms_error *err);
int ms_workload_parse_json(const char *text, size_t len, const char *source,
                           const ms_gpu_model *gpu, ms_workload **out, ms_error *err);
/* By content: JSON if the first non-blank byte is '{', CSV otherwise. */
int ms_workload_read(const char *path, const ms_gpu_model *gpu, ms_workload **out, ms_error *err);

/* Writers: the GPU's sizes as columns; INFINITY is written as inf. MS_EIO "cannot write the
 * workload" when f fails; JSON: MS_EINVAL for a task whose strings are not UTF-8. */
int ms_workload_write_csv(const ms_workload *w, const ms_gpu_model *gpu, FILE *f, ms_error *err);
int ms_workload_write_json(const ms_workload *w, const ms_gpu_model *gpu, FILE *f, ms_error *err);

/* Every task can run on some size of the GPU. */
int ms_workload_check_gpu(const ms_workload *w, const ms_gpu_model *gpu, ms_error *err);
/* Smallest s minimising s * time[s] over the GPU's sizes (INFINITY if none). */
double ms_task_min_area(const ms_task *t, const ms_gpu_model *gpu, int *best_size);

/* Synthetic generator (paper 000 6.3). p[s] = share of tasks that scale well up to size s
 * (over the GPU's sizes), p_sup = share starting super-linear, times on one slice uniform
 * in [tmin, tmax]. */
typedef struct ms_gen_params {
    double p[MS_MAX_SLICES + 1];
    double p_sup;
    double tmin, tmax;
    double p_stop; /* per-slice chance a memory-bound task turns compute-bound (0.3) */
    /* Pathological tasks (paper 001 6.7; presets PATHO4, PATHO2, PATHOMIX): when any
     * share is set, every task is one, a share patho[b] of them fastest at size b with 3
     * slices only slightly slower (2-8 %) and no gain above b. Needs a 3-slice size. */
    double patho[MS_MAX_SLICES + 1];
    /* Tasks in class order (by the size they scale well up to, super-linear ones first),
     * as paper 001's authors' dataset script writes them, instead of shuffled; the shuffle
     * is drawn either way, so a seed gives the same tasks in both orders. */
    bool class_order;
} ms_gen_params;

/* Fills params from a comma-separated preset list ("MIXEDSCALING,WIDETIMES"); later
 * presets override the fields they set. Returns MS_EINVAL for an unknown preset. */
int ms_gen_preset(const ms_gpu_model *gpu, const char *presets, ms_gen_params *out, ms_error *err);
/* Names of the presets, NULL-terminated. */
const char *const *ms_gen_preset_names(void);
int ms_generate(const ms_gpu_model *gpu, const ms_gen_params *params, int n, ms_rng *rng,
                ms_workload **out, ms_error *err);
/* How ms_generate splits n tasks: count[s] tasks scale well up to size s (footnote 8 of
 * paper 000: floors, then one more to the size farthest below n * p[s] until they sum to
 * n), of which sup[s] start super-linear (floor of p_sup * count[s]; none for the
 * smallest size). Checks params like ms_generate. */
int ms_gen_class_counts(const ms_gpu_model *gpu, const ms_gen_params *params, int n,
                        int count[MS_MAX_SLICES + 1], int sup[MS_MAX_SLICES + 1], ms_error *err);

#endif
