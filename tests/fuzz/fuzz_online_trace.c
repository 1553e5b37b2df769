/* fuzz_online_trace.c: libFuzzer target for the online trace CSV reader; what parses is
 * also simulated with the invariant check on (small inputs only). */
#include <stddef.h>
#include <stdint.h>

#include "migsched/online.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    ms_error err;
    if (ms_online_trace_parse((const char *)data, size, "fuzz", m, &w, &err))
        return 0;
    if (w.n <= 64) {
        ms_online_config c;
        ms_online_config_defaults(&c);
        c.gpus = 2;
        c.check = true;
        ms_online_result r;
        if (ms_online_simulate(m, &w, &c, &r, &err) == MS_OK)
            ms_online_result_fini(&r);
        else if (err.code != MS_EINFEASIBLE)
            __builtin_trap(); /* an invariant broke */
    }
    ms_online_workload_fini(&w);
    return 0;
}
