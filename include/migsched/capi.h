/* capi.h: libmigsched's flat C API for programs in other languages (the Python package
 * migsched, through cffi): opaque handles, numbers, strings and arrays of numbers, so that
 * no caller lays out a struct. Every function here (msc_*) is stable: it keeps its name,
 * arguments and meaning for as long as the soname is libmigsched.so.0 (docs/python.md,
 * "Stability"). The capi headers are also the FFI's declarations (msc_cdef returns their
 * text), so they hold only what cffi parses: no macro but integer constants.
 *
 * Conventions: a function that can fail returns 0 or an ms_status code (error.h) and
 * leaves the message for msc_last_error; one that hands back an object or a string through
 * T **out sets *out to NULL when it fails. Strings handed back are the caller's, freed with
 * msc_free; handles are freed with their own _free. Composite results are JSON text. */
#ifndef MIGSCHED_CAPI_H
#define MIGSCHED_CAPI_H

#include <stddef.h>
#include <stdint.h>

typedef struct ms_gpu_model ms_gpu_model;
typedef struct ms_workload ms_workload;
typedef struct ms_schedule ms_schedule;

/* Compute sizes a task's times are given for: times[s - 1] is the time on s slices. */
#define MSC_MAX_SLICES 8

/* ---- The library ---- */
const char *msc_version(void); /* "0.1.0" */
/* The capi headers' text, the declarations an FFI loads (static storage). */
const char *msc_cdef(void);
/* The message of the calling thread's last failure ("" before any). */
const char *msc_last_error(void);
void msc_free(void *p);

/* ---- GPU models ---- */
int msc_gpu_builtin_count(void);
const char *msc_gpu_builtin_name(int i); /* NULL out of range */
/* A built-in name ("A100-40GB", "a100") or the path of a JSON model file. */
int msc_gpu_lookup(const char *name_or_path, ms_gpu_model **out);
/* A JSON model from text; source names it in messages. */
int msc_gpu_parse_json(const char *text, size_t len, const char *source, ms_gpu_model **out);
void msc_gpu_free(ms_gpu_model *g);
/* {"name","slots","slices","sizes":[..],"profiles":[{"name","slices","memory_gb",
 * "size_slots","starts":[..]}],"partitions":["4-2-1",..],"create_s":{"1":..},
 * "destroy_s":{..}} */
int msc_gpu_describe(const ms_gpu_model *g, char **json);

/* ---- Workloads ---- */
int msc_workload_new(ms_workload **out);
void msc_workload_free(ms_workload *w);
/* A task with MSC_MAX_SLICES times (INFINITY: cannot run on that size); command may be
 * NULL. Times must be positive or infinite and some size finite. */
int msc_workload_add(ms_workload *w, const char *name, const double *times, const char *command);
/* CSV or JSON text (JSON when it starts with '{'), checked against gpu when not NULL;
 * messages name source, the line or field. */
int msc_workload_parse(const char *text, size_t len, const char *source, const ms_gpu_model *gpu,
                       ms_workload **out);
int msc_workload_read(const char *path, const ms_gpu_model *gpu, ms_workload **out);
/* n tasks of the generator's presets ("MIXEDSCALING,WIDETIMES") drawn with seed, as
 * `migsched generate` draws them. */
int msc_workload_generate(const ms_gpu_model *gpu, const char *presets, int n, uint64_t seed,
                          ms_workload **out);
/* The preset names joined by commas (static storage). */
const char *msc_workload_preset_names(void);
int msc_workload_size(const ms_workload *w);
const char *msc_workload_task_name(const ms_workload *w, int i); /* NULL out of range */
/* Writes size x MSC_MAX_SLICES times, task-major, into times. */
void msc_workload_times(const ms_workload *w, double *times);
/* Every task can run on some size of gpu (and only on its sizes). */
int msc_workload_check(const ms_workload *w, const ms_gpu_model *gpu);
/* format "csv" or "json", as `migsched generate` writes them. */
int msc_workload_write(const ms_workload *w, const ms_gpu_model *gpu, const char *format,
                       char **text);

/* ---- Planning ---- */
/* The offline algorithm's names and summaries: [{"name","summary"},..]. */
int msc_algorithms(char **json);
/* Plans w on `gpus` GPUs of gpu with algo (`migsched schedule --algo`): batch tasks per
 * batch (0: one), seed, budget_ms (search and optimal; 0: their default), threads
 * (search), initial ("empty", "4-3", ...: --initial), model (the policy file of rl, or a
 * starting schedule of search; NULL: none), concat ("trivial", "reverse", "overlap";
 * NULL: the default). The plan is checked with the validator: an invalid one is an error. */
int msc_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus, const char *algo,
                 int batch, uint64_t seed, double budget_ms, int threads, const char *initial,
                 const char *model, const char *concat, ms_schedule **out);
void msc_schedule_free(ms_schedule *s);
/* migsched-schedule/1 JSON, the bytes `migsched schedule --json` writes (with
 * timings: the measured durations kept, as --timings). */
int msc_schedule_to_json(const ms_schedule *s, const ms_workload *w, int timings, char **json);
/* A plan file's text for the GPU (NULL: the model the file names must be built in). */
int msc_schedule_parse_json(const char *text, size_t len, const char *source,
                            const ms_gpu_model *gpu, ms_schedule **out);
/* The validator (DESIGN.md's rules) from initial (NULL: "empty"): [{"rule","message"},..],
 * empty when valid. A plan whose tasks are not w's is an error. */
int msc_schedule_validate(const ms_schedule *s, const ms_workload *w, const char *initial,
                          char **json);
/* {"makespan","baseline","l_bound","l_bound_paper","rho","p_opt","creations",
 * "destructions","reconfigurations","utilization","stats":{..}} */
int msc_schedule_metrics(const ms_schedule *s, const ms_workload *w, char **json);
/* The schedule drawn as SVG (`migsched plot`); title NULL: the algorithm's name. */
int msc_schedule_svg(const ms_schedule *s, const ms_workload *w, const char *title, char **svg);
/* {"baseline","l_bound","l_bound_paper"} of w on gpus GPUs from initial (NULL: empty). */
int msc_bounds(const ms_workload *w, const ms_gpu_model *gpu, int gpus, const char *initial,
               char **json);

/* ---- Line charts ---- */
/* nseries polylines, series k with n[k] points x[k][i], y[k][i], in the chart writer's
 * SVG (`migsched plot` of learning curves); NULL titles are left out. */
int msc_chart_svg(const char *title, const char *xlabel, const char *ylabel, int nseries,
                  const char *const *labels, const double *const *x, const double *const *y,
                  const int *n, char **svg);

#endif
