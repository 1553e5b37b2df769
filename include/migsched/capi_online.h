/* capi_online.h: the online simulator (paper 002) in libmigsched's flat C API: workloads of
 * jobs arriving over time, a simulation's options as `migsched online simulate` names
 * them, a run under a built-in policy or a placement callback of the caller's, and its
 * results. Conventions as in capi.h (0 or an ms_status code, msc_last_error, msc_free). */
#ifndef MIGSCHED_CAPI_ONLINE_H
#define MIGSCHED_CAPI_ONLINE_H

#include <stddef.h>
#include <stdint.h>

#include "migsched/capi.h"

typedef struct msc_online_workload msc_online_workload;
typedef struct msc_online_config msc_online_config;
typedef struct msc_online_result msc_online_result;

/* Slots a GPU's views of a placement callback have per GPU (idle[g * this + slot]). */
#define MSC_ONLINE_SLOTS 8

/* ---- Workloads: jobs with an arrival (s), a profile of the GPU model and work (s) ---- */
/* The trace CSV (`arrival,profile,work[,name]`); messages name the file and line. */
int msc_online_trace_read(const char *path, const ms_gpu_model *gpu, msc_online_workload **out);
int msc_online_trace_parse(const char *text, size_t len, const char *source,
                           const ms_gpu_model *gpu, msc_online_workload **out);
/* The Alibaba cluster-trace-gpu-v2023 pod list (`--alibaba`): limit > 0 keeps the first
 * limit one-GPU pods. */
int msc_online_alibaba_read(const char *path, const ms_gpu_model *gpu, int limit,
                            msc_online_workload **out);
/* `jobs` jobs of the generator drawn with seed (`--jobs --arrival-mean --mix --service
 * --service-times --seed`): mix NULL or "" for the default one, service "normal" or
 * "long", service_times "profile" or "flat" (NULL: the default); service_median <= 0 and
 * service_sigma < 0 keep the generator's 150 s and 0.6. */
int msc_online_generate(const ms_gpu_model *gpu, int jobs, double arrival_mean, const char *mix,
                        const char *service, const char *service_times, double service_median,
                        double service_sigma, uint64_t seed, msc_online_workload **out);
/* n jobs from arrays (arrivals not decreasing, profiles indices into gpu's, work >= 0);
 * names NULL, or n names (NULL entries: none). */
int msc_online_workload_from_arrays(const ms_gpu_model *gpu, int n, const double *arrival,
                                    const int *profile, const double *work,
                                    const char *const *names, msc_online_workload **out);
/* A copy whose arrivals lie `scale` times as far from the first one. */
int msc_online_workload_scaled(const msc_online_workload *w, double scale,
                               msc_online_workload **out);
void msc_online_workload_free(msc_online_workload *w);
int msc_online_workload_size(const msc_online_workload *w);
/* Copies the jobs into caller arrays of size() entries (any may be NULL). */
void msc_online_workload_jobs(const msc_online_workload *w, double *arrival, int *profile,
                              double *work);
/* Job i's name (NULL when it has none or i is out of range). */
const char *msc_online_workload_job_name(const msc_online_workload *w, int i);
/* {"gpu_model","jobs","skipped","skipped_multi_gpu","skipped_no_gpu","skipped_bad_time"} */
int msc_online_workload_describe(const msc_online_workload *w, char **json);
/* Offered load on `gpus` GPUs (ms_online_offered_load): compute-slice seconds of work
 * over the GPUs' slices times the arrivals' span. */
int msc_online_workload_load(const msc_online_workload *w, int gpus, double *load);
/* The trace CSV `--save-trace` writes. */
int msc_online_trace_write(const msc_online_workload *w, const char *path);

/* ---- A simulation's options ---- */
/* The CLI's defaults (policy frag, 4 GPUs, tau 0.4, kappa 0.05, migration cost-aware,
 * queue reserve after 7200 s, layout best). */
int msc_online_config_new(msc_online_config **out);
void msc_online_config_free(msc_online_config *c);
/* One option by the CLI's name and value: policy, gpus, tau, kappa, migration, balance,
 * dynamic (on|off: --no-migration, --no-balance, --no-dynamic), migration-cost,
 * migration-rule, queue, reserve-after, layout (best|packed|small-first|spread|grouped),
 * check, timeline (on|off: --check, a timeline kept for the timeline writers). */
int msc_online_config_set(msc_online_config *c, const char *key, const char *value);
/* The options as JSON, keyed by those names. */
int msc_online_config_describe(const msc_online_config *c, char **json);

/* ---- Runs ---- */
/* A placement policy of the caller's, asked where job `job` (of `profile`) goes at time
 * `now`; per GPU g < ngpus: the slots of instances holding a job, the slots and slices the
 * fragmentation cost counts as taken, the slots that cannot be destroyed now, the busy
 * compute slices, and idle[g * MSC_ONLINE_SLOTS + k], the profile of an idle instance
 * starting at slot k (-1: none). The arrays keep their addresses for the whole run.
 * Returns 0 with *gpu and *start set (placed), 1 (the job waits) or 2 (stop: the run fails
 * with MS_EINTR). An answer the rule forbids fails the run with MS_EINVAL. */
typedef int (*msc_online_place_fn)(void *arg, double now, int job, int profile, int ngpus,
                                   const uint32_t *job_slots, const uint32_t *frag_slots,
                                   const uint32_t *frag_slices, const uint32_t *locked_slots,
                                   const int32_t *load, const int8_t *idle, int *gpu, int *start);
/* Simulates w on c's GPUs of gpu (w's model) under c's policy, or under place when not
 * NULL (then with dynamic partitioning, migration off and queue fcfs-profile or fcfs). */
int msc_online_simulate(const msc_online_workload *w, const ms_gpu_model *gpu,
                        const msc_online_config *c, msc_online_place_fn place, void *arg,
                        msc_online_result **out);
void msc_online_result_free(msc_online_result *r);
int msc_online_result_size(const msc_online_result *r);
/* The summary `migsched online simulate --json` prints ("policy" is "callback" for a
 * placement callback), with "tpot_ms" by profile. */
int msc_online_result_summary(const msc_online_result *r, char **json);
/* Copies the per-job results into caller arrays of size() entries (any may be NULL):
 * start, end, the GPU each job finished on, its migrations. */
void msc_online_result_jobs(const msc_online_result *r, double *start, double *end, int *gpu,
                            int *migrations);
/* The files of `--csv`, `--timeline` and `--plot` (the last two need the option timeline
 * on); w is the workload the result is of. */
int msc_online_write_jobs_csv(const msc_online_result *r, const msc_online_workload *w,
                              const char *path);
int msc_online_write_timeline_csv(const msc_online_result *r, const char *path);
int msc_online_write_svg(const msc_online_result *r, const char *title, const char *path);

#endif
