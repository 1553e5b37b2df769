/* bench_validate.c: validator and bound costs as the schedule grows (n tasks, n/7
 * rounds of create-run-destroy on an A100); prints time per task to show n log n growth. */
#include <math.h>
#include <stdio.h>

#include "bench_util.h"
#include "migsched/schedule.h"

/* Rounds of seven 1g instances created one by one, one 1 s task each, then destroyed. */
static void build(int n, ms_schedule **out, ms_workload **wout)
{
    const ms_gpu_model *g = ms_gpu_builtin("A100-40GB");
    int p1 = ms_gpu_profile_by_name(g, "1g.5gb");
    ms_workload *w = ms_workload_new();
    double t[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        t[s] = 1.0;
    ms_schedule *s = ms_schedule_new(g, 1, "bench");
    double now_t = 0;
    for (int i = 0; i < n; i += 7) {
        int id[7], k, m = n - i < 7 ? n - i : 7;
        double end = 0;
        for (k = 0; k < m; k++, now_t += 0.16) {
            id[k] = ms_schedule_add_instance(s, 0, p1, k, now_t, now_t + 0.16, NAN, NAN);
            char name[16];
            snprintf(name, sizeof name, "t%d", i + k);
            ms_workload_add(w, name, t, NULL, NULL, NULL);
            ms_schedule_add_task(s, i + k, id[k], now_t + 0.16, now_t + 1.16);
            end = now_t + 1.16;
        }
        now_t = end;
        for (k = 0; k < m; k++, now_t += 0.2) {
            s->inst[id[k]].destroy_start = now_t;
            s->inst[id[k]].destroy_end = now_t + 0.2;
        }
    }
    *out = s;
    *wout = w;
}

int main(void)
{
    printf("%-9s %-12s %-14s %-12s %s\n", "tasks", "validate_s", "us_per_task", "bounds_s",
           "violations");
    for (int n = 1000; n <= 1000000; n *= 10) {
        ms_schedule *s;
        ms_workload *w;
        build(n, &s, &w);
        double t0 = bench_now();
        int bad = ms_schedule_validate(s, w, NULL);
        double t1 = bench_now();
        volatile double lb = ms_bound_lbound(w, &s->gpu, 1);
        double t2 = bench_now();
        (void)lb;
        printf("%-9d %-12.4f %-14.3f %-12.4f %d\n", n, t1 - t0, (t1 - t0) / n * 1e6, t2 - t1, bad);
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    return 0;
}
