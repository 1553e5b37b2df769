/* fuzz_workload_json.c: libFuzzer target for the workload JSON reader (and its writers). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_workload_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_workload_input((const char *)data, size, ms_workload_parse_json);
    return 0;
}
