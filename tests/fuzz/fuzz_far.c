/* fuzz_far.c: libFuzzer target for FAR: any workload the CSV reader accepts, on a model,
 * GPU count, batch size, concatenation mode and refinement switch taken from the first
 * bytes, must give a schedule that keeps every task and passes the validator (or a clean
 * error), and must terminate. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "migsched/offline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    const ms_gpu_model *gpu = ms_gpu_builtin_at(data[0] % ms_gpu_builtin_count());
    ms_offline_options o;
    ms_offline_options_init(&o);
    int gpus = 1 + data[1] % 4;
    o.batch = data[2] % 6;
    o.far.concat = (ms_concat_mode)(data[3] % 3);
    o.far.refine = (data[3] / 3) % 2;
    o.far.refine_max_iters = (data[3] / 6) % 4;
    ms_workload *w = NULL;
    ms_error err;
    if (ms_workload_parse_csv((const char *)data + 4, size - 4, "fuzz", gpu, &w, &err))
        return 0;
    ms_schedule *s = NULL;
    if (w->n <= 200 && !ms_offline_schedule("far", w, gpu, gpus, &o, &s, &err)) {
        if (s->ntasks != w->n || ms_schedule_validate(s, w, NULL) != 0)
            abort();
        ms_schedule_free(s);
    }
    ms_workload_free(w);
    return 0;
}
