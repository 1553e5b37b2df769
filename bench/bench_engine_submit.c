/* bench_engine_submit.c: migschedd's engine: durable submissions per second (each caller
 * returns once its job is committed with synchronous=FULL) from 1, 8 and 32 concurrent
 * threads, which group commit turns into shared transactions. In-process: the HTTP layer
 * and the socket come on top (their own benchmark). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_engine.h"
#include "bench_util.h"

typedef struct worker {
    md_engine *e;
    const ms_gpu_model *m;
    int n, failed;
} worker;

static void *submit(void *arg)
{
    worker *w = arg;
    static const char job[] = "{\"name\": \"b\", \"command\": [\"true\"], "
                              "\"profile\": \"7g.80gb\", \"seconds\": 1e6}";
    for (int i = 0; i < w->n; i++) {
        md_job_spec s;
        json_t *out;
        ms_error err;
        if (md_job_spec_parse(job, sizeof job - 1, w->m, &s, &err) ||
            md_engine_submit(w->e, &s, &ROOT, &out, &err) != MD_ENGINE_OK) {
            w->failed++;
            continue;
        }
        json_decref(out);
    }
    return NULL;
}

static int bench(int threads, int total)
{
    char dir[] = "/tmp/migsched-bench-engine-XXXXXX", db[64], cmd[96];
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    snprintf(db, sizeof db, "%s/jobs.db", dir);
    md_config c;
    const char *const keys[][2] = {{"backend", "sim"},
                                   {"gpu", "H100-80GB"},
                                   {"gpus", "1"},
                                   {"db", db},
                                   {"log-level", "error"}};
    md_store *st;
    md_engine *e;
    if (bench_engine_open(&c, keys, sizeof keys / sizeof *keys, db, &st, &e))
        return 1;
    worker w[64];
    pthread_t th[64];
    double t0 = bench_now();
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){e, &c.model, total / threads, 0};
        pthread_create(&th[t], NULL, submit, &w[t]);
    }
    int failed = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
        failed += w[t].failed;
    }
    double dt = bench_now() - t0;
    int n = total / threads * threads;
    printf("engine submit  %2d threads %6d jobs %7.3f s %8.0f submissions/s%s\n", threads, n, dt,
           n / dt, failed ? "  (some failed)" : "");
    md_engine_close(e); /* no stop: the one long job stays running, as after a crash */
    md_store_close(st);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) != 0 || failed;
}

int main(void)
{
    int rc = bench(1, 500);
    rc |= bench(8, 4000);
    rc |= bench(32, 8000);
    return rc;
}
