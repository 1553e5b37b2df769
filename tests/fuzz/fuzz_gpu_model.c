/* fuzz_gpu_model.c: libFuzzer target for the GPU model JSON reader; what parses must be a
 * usable model (partitions feasible, a tree, reconfiguration times within the ceiling). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/gpu.h"
#include "migsched/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_gpu_model m;
    ms_error err;
    if (ms_gpu_parse_json((const char *)data, size, "fuzz", &m, &err))
        return 0;
    if (m.npartitions < 1 || m.tree.n < 1 || m.nsizes < 1)
        abort();
    for (int i = 0; i < m.nprofiles; i++)
        for (int k = 0; k < i; k++)
            if (!strcmp(m.profiles[k].name, m.profiles[i].name))
                abort();
    for (int k = 0; k < m.nsizes; k++) {
        int s = m.sizes[k];
        if (!(m.create_s[s] >= 0 && m.create_s[s] <= MS_TIME_MAX) ||
            !(m.destroy_s[s] >= 0 && m.destroy_s[s] <= MS_TIME_MAX))
            abort();
    }
    for (int p = 0; p < m.npartitions; p++) {
        uint32_t used = 0;
        for (int i = 0; i < m.partitions[p].n; i++) {
            ms_placement pl = m.partitions[p].inst[i];
            uint32_t mask = ms_gpu_slot_mask(&m, pl);
            if (!ms_gpu_placement_allowed(&m, pl) || (used & mask))
                abort();
            used |= mask;
        }
    }
    return 0;
}
