/* hier_fit.h: the co-run model of hier.h held against measured MPS-inside-MIG runs: measured
 * profiles (each process's throughput with 1..N identical MPS processes in each MIG size),
 * the model's prediction for them, and the least-squares fit of each job's T, s, m and of the
 * global gamma, with its error in sample and in leave-one-model-out cross-validation
 * (docs/hier.md, "Fitting the model to measurements"). */
#ifndef MIGSCHED_HIER_FIT_H
#define MIGSCHED_HIER_FIT_H

#include <stddef.h>

#include "migsched/error.h"
#include "migsched/hier.h"

#define MS_HIER_FIT_MAX_PROCS 8
/* MIG sizes of the A100-80GB measurements (compute slices) and their memory slices of 8. */
#define MS_HIER_FIT_NSIZES 5
extern const int ms_hier_fit_sizes[MS_HIER_FIT_NSIZES];      /* 1 2 3 4 7 */
extern const int ms_hier_fit_mem_slices[MS_HIER_FIT_NSIZES]; /* 1 2 4 4 8 */
/* The index of a MIG size in the tables above; -1 if it is none of them. */
int ms_hier_fit_size_index(int slices);

/* One measured run: `procs` identical processes of job `job` in a MIG instance of `slices`
 * compute slices, each at `rate` per second. */
typedef struct ms_hier_obs {
    int job;
    int slices, procs;
    double rate;
    long line; /* where it was read */
} ms_hier_obs;

/* A job is one model (one file) at one batch size, named "<model>_b<batch>". */
typedef struct ms_hier_fit_job {
    char name[MS_HIER_NAME_LEN];
    int model; /* index into models: the unit left out in cross-validation */
    int batch;
    long line; /* its first row in its model's file */
} ms_hier_fit_job;

typedef struct ms_hier_obs_set {
    size_t n_models, n_jobs, n;
    char (*models)[MS_HIER_NAME_LEN];
    char **files; /* per model: the file it was read from */
    ms_hier_fit_job *jobs;
    ms_hier_obs *obs;
} ms_hier_obs_set;

/* Appends one measured profile file, CSV with the header `Mig instance,Batch size,Workload
 * Number,Throughput,Latency`; the model's name is the file's base name without ".csv". A row
 * of zero throughput (did not fit in memory) is skipped. Errors name file, line and field;
 * on failure set is left as it was. */
int ms_hier_obs_read(ms_hier_obs_set *set, const char *path, ms_error *err);
void ms_hier_obs_fini(ms_hier_obs_set *set);

/* The model's rate (per second) of each of `procs` identical copies of p sharing a MIG
 * instance of `slices` compute slices (memory slices from the table above) through default
 * MPS: hier.h's model for identical jobs, which all finish together (one phase). */
double ms_hier_fit_rate(const ms_hier_params *par, const ms_hier_profile *p, int slices, int procs);

/* The fit: per job, T (solo), s and m from its one-process runs (c = 1); then gamma and the
 * serial width (hier.h) from the
 * multi-process runs of the jobs whose model is not left out. A job with one-process runs in
 * fewer than 3 MIG sizes is not identified (fitted[j] = 0) and takes no part. */
typedef struct ms_hier_fit_result {
    ms_hier_params par;
    size_t n_jobs;
    ms_hier_profile *jobs; /* per job of the set: name, solo, serial, mem, cache, t_1gpc */
    int *fitted;
} ms_hier_fit_result;

/* Fits on every model except `leave_out` (-1: none). A global of fix (gamma, serial_width)
 * that is >= 0 is fixed to that value, one < 0 is fitted (the serial width within [0, 1]:
 * it then never slows a job alone, so the one-process fit does not depend on it). */
int ms_hier_fit(const ms_hier_obs_set *set, int leave_out, ms_hier_params fix,
                ms_hier_fit_result *out, ms_error *err);
void ms_hier_fit_result_fini(ms_hier_fit_result *r);

/* Mean absolute relative error of the rate by MIG size (rows) and process count (columns,
 * index procs - 1), with the count of runs in each cell. */
typedef struct ms_hier_fit_errors {
    double sum[MS_HIER_FIT_NSIZES][MS_HIER_FIT_MAX_PROCS];
    int n[MS_HIER_FIT_NSIZES][MS_HIER_FIT_MAX_PROCS];
} ms_hier_fit_errors;

/* Adds the errors of fit r on the runs of set whose model is `model` (-1: every model). */
void ms_hier_fit_errors_add(const ms_hier_obs_set *set, const ms_hier_fit_result *r, int model,
                            ms_hier_fit_errors *e);

/* Errors in sample (fit on all, judged on all) and in leave-one-model-out cross-validation
 * (each model judged by the fit on the others, with its own one-process runs for its T, s,
 * m), and the fit on all models. */
int ms_hier_fit_cv(const ms_hier_obs_set *set, ms_hier_params fix, ms_hier_fit_result *all,
                   ms_hier_fit_errors *in_sample, ms_hier_fit_errors *cv, ms_error *err);

/* The fit to a measured co-run table (docs/hier.md's setup,jobs,times): each job of the
 * table gets s and m (T stays its catalogue solo time: the table holds sets of 2 or more
 * jobs only; c = 1), and gamma is fitted unless fix_gamma >= 0 (then fixed to it); the
 * serial width stays the table's (ms_hier_corun_params); out holds
 * every catalogue job, fitted[j] = 1 for those in the table. in_sample: the mean absolute
 * relative error of the co-run times by layout (ms_hier_layout) and set size (index c - 1).
 * cv (NULL: not computed): leaving one job out, each job's times predicted by a fit on the
 * rows without it (gamma and the other jobs' s, m); its own s, m stay its catalogue values,
 * since every row holding it is a co-run of it. Each time is judged once in both. */
typedef struct ms_hier_corun_errors {
    double sum[3][MS_HIER_MAX_C];
    int n[3][MS_HIER_MAX_C];
} ms_hier_corun_errors;
int ms_hier_fit_corun(const ms_hier_catalog *cat, const ms_hier_corun *table, double fix_gamma,
                      ms_hier_fit_result *out, ms_hier_corun_errors *in_sample,
                      ms_hier_corun_errors *cv, ms_error *err);

#endif
