/* fuzz_online_alibaba.c: libFuzzer target for the Alibaba pod-list reader. */
#include <stddef.h>
#include <stdint.h>

#include "migsched/online.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_online_workload w;
    ms_error err;
    if (ms_online_alibaba_parse((const char *)data, size, "fuzz", ms_gpu_builtin("A30"), 0, &w,
                                &err) == MS_OK) {
        for (int j = 1; j < w.n; j++)
            if (w.jobs[j].arrival < w.jobs[j - 1].arrival || !(w.jobs[j].work > 0))
                __builtin_trap();
        ms_online_workload_fini(&w);
    }
    return 0;
}
