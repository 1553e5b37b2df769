/* fuzz_hier_window.c: libFuzzer target for the window reader (CSV and JSON); a window that
 * reads must plan to a cover that passes ms_hier_plan_check and renders to a valid plan. */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_hier_common.h"
#include "migsched/hier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_hier_file(data, size);
    if (!path)
        return 0;
    ms_hier_catalog cat;
    ms_hier_window w;
    ms_error err;
    if (ms_hier_catalog_builtin(&cat, &err))
        abort();
    int rc = ms_hier_window_read(path, &cat, &w, &err);
    unlink(path);
    if (!rc && w.n <= 6) {
        ms_hier_corun *cr = ms_hier_corun_model(NULL);
        ms_hier_plan plan;
        if (ms_hier_solve(&w, cr, 4, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &plan, &err) ||
            ms_hier_plan_check(&plan, &w, cr, 4, &err))
            abort();
        ms_hier_exec x;
        if (ms_hier_render(&plan, &w, ms_gpu_builtin("A100-40GB"), &x, &err) ||
            ms_schedule_validate(x.schedule, x.workload, NULL))
            abort();
        ms_hier_exec_fini(&x);
        ms_hier_plan_fini(&plan);
        ms_hier_corun_free(cr);
    }
    if (!rc)
        ms_hier_window_fini(&w);
    ms_hier_catalog_fini(&cat);
    return 0;
}
