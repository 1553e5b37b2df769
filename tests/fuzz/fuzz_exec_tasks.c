/* fuzz_exec_tasks.c: libFuzzer target for the profiler's task lists (FAR "name dir script"
 * lines, or workload CSV/JSON with commands). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "migsched/exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_workload *w = NULL;
    ms_error err;
    if (ms_profile_parse_tasks((const char *)data, size, "dir/list.txt", &w, &err) == MS_OK) {
        if (!w || w->n < 1)
            abort();
        for (int i = 0; i < w->n; i++)
            if (!w->tasks[i].command)
                abort();
    } else if (w) {
        abort(); /* nothing half-loaded */
    }
    ms_workload_free(w);
    return 0;
}
