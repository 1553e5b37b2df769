/* fuzz_schedule_json.c: libFuzzer target for the migsched-schedule/1 reader; what it
 * accepts also goes through the validator, metrics, the writer and the Gantt view. */
#include <stdint.h>
#include <stdio.h>

#include "migsched/schedule.h"

/* A workload covering every index the schedule names (capped), 1 s on any size. */
static ms_workload *workload_for(const ms_schedule *s)
{
    int n = 0;
    for (int i = 0; i < s->ntasks; i++)
        if (s->task[i].index >= n && s->task[i].index < 1000)
            n = s->task[i].index + 1;
    ms_workload *w = ms_workload_new();
    double t[MS_MAX_SLICES + 1];
    for (int k = 0; k <= MS_MAX_SLICES; k++)
        t[k] = 1.0;
    for (int i = 0; i < n && w; i++)
        if (ms_workload_add(w, "t", t, NULL, NULL, NULL)) {
            ms_workload_free(w);
            return NULL;
        }
    return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_schedule *s;
    ms_error err;
    if (ms_schedule_parse_json((const char *)data, size, "fuzz", NULL, &s, &err))
        return 0;
    ms_workload *w = workload_for(s);
    FILE *null = fopen("/dev/null", "w");
    if (w && null) {
        ms_validation v;
        ms_schedule_validate(s, w, &v);
        ms_validation_fini(&v);
        ms_metrics m;
        ms_schedule_metrics(s, w, &m);
        ms_schedule_write_json(s, w, null, &err);
        ms_schedule_gantt(s, w, null, 80);
        ms_schedule_normalize(s);
    }
    if (null)
        fclose(null);
    ms_workload_free(w);
    ms_schedule_free(s);
    return 0;
}
