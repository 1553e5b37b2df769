/* fuzz_rl_model.c: libFuzzer target for the RL policy file reader (binary header + JSON +
 * float32 parameters); what loads must run a forward pass (memory errors are the failure;
 * huge finite weights may overflow to inf, which the reader does not forbid). */
#include <stdint.h>
#include <stdlib.h>

#include "migsched/learn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_rl_model m;
    ms_error err;
    if (ms_model_parse((const char *)data, size, "fuzz", &m, &err))
        return 0;
    ms_mlp_work w;
    float *x = calloc((size_t)m.mlp.in, sizeof *x);
    if (x && !ms_mlp_work_init(&w, &m.mlp, 1, &err)) {
        ms_mlp_forward(&m.mlp, &w, x, 1);
        ms_mlp_work_fini(&w);
    }
    free(x);
    ms_model_fini(&m);
    return 0;
}
