/* bench_workload_io.c: time to generate, write and read workloads of growing size; the
 * per-task cost staying flat shows the readers are linear (no quadratic duplicate check). */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "migsched/workload.h"

/* Writes w in one format, reads it back; returns (write s, read s, bytes). */
static void round_trip(const ms_workload *w, const ms_gpu_model *gpu, int json, double *tw,
                       double *tr, size_t *bytes)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, bytes);
    double t0 = bench_now();
    ms_error err;
    if (json ? ms_workload_write_json(w, gpu, f, &err) : ms_workload_write_csv(w, gpu, f, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        abort();
    }
    fclose(f);
    double t1 = bench_now();
    ms_workload *back = NULL;
    int rc = json ? ms_workload_parse_json(buf, *bytes, "bench", gpu, &back, &err)
                  : ms_workload_parse_csv(buf, *bytes, "bench", gpu, &back, &err);
    if (rc || back->n != w->n) {
        fprintf(stderr, "bench: %s\n", err.msg);
        abort();
    }
    *tw = t1 - t0;
    *tr = bench_now() - t1;
    ms_workload_free(back);
    free(buf);
}

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_gen_params p;
    ms_gen_preset(gpu, "MIXEDSCALING,WIDETIMES", &p, NULL);
    const int sizes[] = {10000, 50000, 250000};
    double prev_csv = 0;
    printf("bench_workload_io (A100-40GB, MIXEDSCALING,WIDETIMES)\n");
    printf("%8s %9s %10s %10s %10s %9s %10s %10s %9s\n", "tasks", "gen_s", "csv_MB", "csv_wr_s",
           "csv_rd_s", "us/task", "json_wr_s", "json_rd_s", "us/task");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        ms_rng rng;
        ms_rng_seed(&rng, 1);
        ms_workload *w = NULL;
        double t0 = bench_now();
        if (ms_generate(gpu, &p, n, &rng, &w, NULL))
            abort();
        double gen = bench_now() - t0, cw, cr, jw, jr;
        size_t cbytes, jbytes;
        round_trip(w, gpu, 0, &cw, &cr, &cbytes);
        round_trip(w, gpu, 1, &jw, &jr, &jbytes);
        printf("%8d %9.3f %10.1f %10.3f %10.3f %9.2f %10.3f %10.3f %9.2f\n", n, gen, cbytes / 1e6,
               cw, cr, cr / n * 1e6, jw, jr, jr / n * 1e6);
        if (prev_csv > 0)
            printf("%8s csv read time ratio to previous size: %.2f (tasks ratio %.1f)\n", "",
                   cr / prev_csv, (double)n / sizes[i - 1]);
        prev_csv = cr;
        ms_workload_free(w);
    }
    return 0;
}
