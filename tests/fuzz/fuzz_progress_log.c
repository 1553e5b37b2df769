/* fuzz_progress_log.c: libFuzzer target for the training progress log reader (the lines
 * `plot --curves` reads); what loads must hold steps that never go back. */
#include <stdint.h>
#include <stdlib.h>

#include "migsched/learn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_progress_log log;
    ms_error err;
    if (ms_progress_log_parse((const char *)data, size, "fuzz", &log, &err))
        return 0;
    for (int k = 1; k < log.n; k++)
        if (log.pts[k].steps < log.pts[k - 1].steps)
            abort();
    ms_progress_log_fini(&log);
    return 0;
}
