/* bench_engine_batch.c: migschedd's batch mode joining batches: the same stream of 3
 * batches of 16 jobs, submitted at once, with batch-concat trivial, reverse and overlap:
 * the joint plan's makespan (task-seconds) and the makespan carried out (last end - first
 * start of the jobs, in real seconds x time-scale; sim at time-scale 50). Two streams: the
 * Rodinia jobs (data/rodinia_a30_8tasks.csv, each task twice per batch) on one A30-24GB,
 * and 48 generated jobs (preset MIXEDSCALING,NARROWTIMES, seed 1) on one A100-40GB.
 * In-process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_engine.h"
#include "bench_util.h"
#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

#define BATCHES   3
#define PER_BATCH 16
#define SCALE     50

/* One job's JSON: its times at the sizes it can run at. */
static void job_json(const ms_workload *w, const ms_gpu_model *m, int t, char *buf, size_t len)
{
    int n = snprintf(buf, len, "{\"name\": \"%s\", \"command\": [\"true\"], \"times\": {",
                     w->tasks[t].name);
    const char *sep = "";
    for (int k = 0; k < m->nsizes; k++) {
        double v = w->tasks[t].time[m->sizes[k]];
        if (isfinite(v)) {
            n += snprintf(buf + n, len - (size_t)n, "%s\"%d\": %.17g", sep, m->sizes[k], v);
            sep = ", ";
        }
    }
    snprintf(buf + n, len - (size_t)n, "}}");
}

static int bench(const char *gpu, const char *concat, const ms_workload *w)
{
    char dir[] = "/tmp/migsched-bench-batch-XXXXXX", db[64], cmd[96];
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    snprintf(db, sizeof db, "%s/jobs.db", dir);
    md_config c;
    ms_error err;
    char scale[16];
    snprintf(scale, sizeof scale, "%d", SCALE);
    const char *const keys[][2] = {{"backend", "sim"},
                                   {"gpu", gpu},
                                   {"gpus", "1"},
                                   {"db", db},
                                   {"log-level", "error"},
                                   {"mode", "batch"},
                                   {"batch-size", "16"},
                                   {"batch-period", "1000"},
                                   {"batch-concat", concat},
                                   {"time-scale", scale}};
    md_store *st;
    md_engine *e;
    if (bench_engine_open(&c, keys, sizeof keys / sizeof *keys, db, &st, &e))
        return 1;
    int total = BATCHES * PER_BATCH, failed = 0;
    for (int i = 0; i < total; i++) {
        char text[512];
        job_json(w, &c.model, i % w->n, text, sizeof text);
        md_job_spec s;
        json_t *out;
        if (md_job_spec_parse(text, strlen(text), &c.model, &s, &err) ||
            md_engine_submit(e, &s, &ROOT, &out, &err) != MD_ENGINE_OK) {
            fprintf(stderr, "bench_engine_batch: %s\n", err.msg);
            failed++;
            continue;
        }
        json_decref(out);
    }
    md_job *jobs = NULL;
    size_t n = 0;
    for (int tries = 0; tries < 2400; tries++) { /* at most 10 minutes */
        md_store_free_jobs(jobs, n);
        jobs = NULL;
        if (md_store_list_jobs(st, MD_JOB_DONE, &jobs, &n, &err) || n == (size_t)total - failed)
            break;
        usleep(250000);
    }
    char *plan = NULL;
    md_engine_plan(e, &plan, &err);
    md_engine_stop(e, &err);
    md_engine_close(e);
    double first = INFINITY, last = 0;
    for (size_t i = 0; i < n; i++) {
        first = fmin(first, jobs[i].started);
        last = fmax(last, jobs[i].ended);
    }
    ms_schedule *s = NULL;
    double planned = NAN;
    if (plan && !ms_schedule_parse_json(plan, strlen(plan), "plan", &c.model, &s, &err))
        planned = ms_schedule_makespan(s);
    printf("%-10s %-8s %4zu jobs  planned makespan %8.2f s  carried out %8.2f s\n", gpu, concat, n,
           planned, (last - first) * SCALE);
    ms_schedule_free(s);
    free(plan);
    md_store_free_jobs(jobs, n);
    md_store_close(st);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) != 0 || failed || n != (size_t)total;
}

int main(void)
{
    ms_workload *rodinia, *gen;
    ms_error err;
    const ms_gpu_model *a100 = ms_gpu_builtin("A100-40GB");
    ms_gen_params params;
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    if (ms_workload_read(MIGSCHED_SOURCE_DIR "/data/rodinia_a30_8tasks.csv",
                         ms_gpu_builtin("A30-24GB"), &rodinia, &err) ||
        ms_gen_preset(a100, "MIXEDSCALING,NARROWTIMES", &params, &err) ||
        ms_generate(a100, &params, BATCHES * PER_BATCH, &rng, &gen, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    printf("bench_engine_batch: %d batches of %d jobs submitted at once, 1 GPU (sim, "
           "time-scale %d)\n",
           BATCHES, PER_BATCH, SCALE);
    int rc = 0;
    for (int k = 0; k < 3; k++)
        rc |= bench("A30-24GB", (const char *[]){"trivial", "reverse", "overlap"}[k], rodinia);
    for (int k = 0; k < 3; k++)
        rc |= bench("A100-40GB", (const char *[]){"trivial", "reverse", "overlap"}[k], gen);
    ms_workload_free(rodinia);
    ms_workload_free(gen);
    return rc;
}
