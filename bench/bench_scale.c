/* bench_scale.c: `migsched schedule --json` end to end by workload size:
 * read the CSV, plan with search (the default: its starting schedules, FAR among them,
 * then 10 ms of local search), validate, write the JSON, for n = 10^3 .. 10^6 tasks
 * (MIXEDSCALING,WIDETIMES on an A100-40GB, generated here and written to a temporary CSV);
 * FAR alone is timed too. Each size runs in its own process so that its peak RSS is its
 * own. Prints wall and CPU seconds per step and the growth from the previous size; asserts
 * nothing. A first argument caps n (e.g. 100000), a second is search's --threads (default
 * 1; its starting schedules use at least two threads on two CPUs, as do the reader and the
 * writer at 10^6, so a step's CPU seconds can exceed its wall seconds). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "migsched/offline.h"

typedef struct step {
    double wall, cpu;
} step;

static void start(step *s)
{
    s->wall = bench_clock(CLOCK_MONOTONIC);
    s->cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

static void stop(step *s)
{
    s->wall = bench_clock(CLOCK_MONOTONIC) - s->wall;
    s->cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - s->cpu;
}

static void die(const char *what, const ms_error *err)
{
    fprintf(stderr, "bench_scale: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

/* One size, in a child process: prints one line and writes its total CPU seconds to fd. */
static void run_size(const ms_gpu_model *gpu, int n, int threads, int fd_total)
{
    char csv[] = "/tmp/migsched-bench-XXXXXX", out[] = "/tmp/migsched-bench-XXXXXX";
    int fd = mkstemp(csv), fo = mkstemp(out);
    if (fd < 0 || fo < 0)
        die("mkstemp", NULL);
    close(fo);
    FILE *f = fdopen(fd, "w");
    ms_workload *gen = bench_generate_seeded("bench_scale", gpu, "MIXEDSCALING,WIDETIMES", n, 7);
    ms_error err = {0};
    if (!f || ms_workload_write_csv(gen, gpu, f, &err) || fclose(f))
        die("writing the workload", err.msg[0] ? &err : NULL);
    ms_workload_free(gen);
    ms_workload *w = NULL;
    ms_schedule *s = NULL, *far = NULL;
    step rd, fplan, plan, val, wr;
    start(&rd);
    if (ms_workload_read(csv, gpu, &w, &err))
        die(csv, &err);
    stop(&rd);
    start(&fplan);
    if (ms_offline_schedule("far", w, gpu, 1, NULL, &far, &err))
        die("far", &err);
    stop(&fplan);
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    opt.search.threads = threads;
    start(&plan);
    if (ms_offline_schedule("search", w, gpu, 1, &opt, &s, &err))
        die("search", &err);
    stop(&plan);
    start(&val);
    int bad = ms_schedule_validate(s, w, NULL);
    stop(&val);
    if (bad)
        die("the plan is invalid", NULL);
    start(&wr);
    ms_schedule_drop_timings(s);
    FILE *o = fopen(out, "w");
    if (!o || ms_schedule_write_json(s, w, o, &err) || fclose(o))
        die(out, &err);
    stop(&wr);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double total = rd.wall + plan.wall + val.wall + wr.wall;
    double total_cpu = rd.cpu + plan.cpu + val.cpu + wr.cpu;
    printf("  %8d %7.3f (%6.3f) %7.3f (%6.3f) %7.3f (%6.3f) %7.3f (%6.3f) %7.3f (%6.3f)"
           " %7.3f (%6.3f) %8.1f %6.0f\n",
           n, rd.wall, rd.cpu, fplan.wall, fplan.cpu, plan.wall, plan.cpu, val.wall, val.cpu,
           wr.wall, wr.cpu, total, total_cpu, ru.ru_maxrss / 1024.0,
           ms_schedule_stat(far, "allocations"));
    fflush(stdout);
    if (write(fd_total, &total_cpu, sizeof total_cpu) != sizeof total_cpu)
        die("writing to the parent", NULL);
    ms_schedule_free(far);
    ms_schedule_free(s);
    ms_workload_free(w);
    unlink(csv);
    unlink(out);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1000, 10000, 100000, 300000, 1000000};
    long cap = argc > 1 ? atol(argv[1]) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    double load = -1;
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf", &load) != 1)
            load = -1;
        fclose(la);
    }
    printf("bench_scale: read CSV, plan with search, validate, write JSON on %s, "
           "MIXEDSCALING,WIDETIMES, seed 7, search --threads %d (load average %.2f)\n",
           gpu->name, threads, load);
    printf("  seconds wall (cpu) per step; total = read + search + validate + write (what "
           "`schedule --json` does); FAR alone beside; peak RSS; FAR's allocations\n");
    printf("  %8s %16s %16s %16s %16s %16s %16s %8s %6s\n", "n", "read", "FAR alone", "search",
           "validate", "write", "total", "RSS MiB", "alloc");
    fflush(stdout);
    double prev = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && sizes[i] <= cap; i++) {
        int fds[2];
        if (pipe(fds))
            die("pipe", NULL);
        pid_t pid = fork();
        if (pid < 0)
            die("fork", NULL);
        if (pid == 0) {
            close(fds[0]);
            run_size(gpu, sizes[i], threads, fds[1]);
            _exit(0);
        }
        close(fds[1]);
        double total = 0;
        int st;
        bool got = read(fds[0], &total, sizeof total) == sizeof total;
        close(fds[0]);
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || !got)
            die("a size failed", NULL);
        if (prev > 0) /* the curve: n log n would be a little over the ratio of n */
            printf("  %8s total cpu x%.1f for n x%.3g\n", "", total / prev,
                   (double)sizes[i] / sizes[i - 1]);
        fflush(stdout); /* before the next fork copies the buffer */
        prev = total;
    }
    return 0;
}
