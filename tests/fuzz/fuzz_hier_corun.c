/* fuzz_hier_corun.c: libFuzzer target for the measured co-run table reader; a table that
 * reads must give plans that pass ms_hier_plan_check on a small catalogue window. */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_hier_common.h"
#include "migsched/hier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_hier_file(data, size);
    if (!path)
        return 0;
    ms_hier_corun *cr;
    ms_error err;
    int rc = ms_hier_corun_read(path, NULL, &cr, &err);
    unlink(path);
    if (rc)
        return 0;
    ms_hier_catalog cat;
    ms_hier_window w;
    static const char *names[] = {"lavaMD", "stream", "kmeans", "lud_A"};
    if (ms_hier_catalog_builtin(&cat, &err) || ms_hier_window_from_names(&cat, names, 4, &w, &err))
        abort();
    for (int p = 0; p < MS_HIER_NPOLICY; p++) {
        ms_hier_plan plan;
        if (p == MS_HIER_RL)
            continue;
        if (ms_hier_solve(&w, cr, 4, (ms_hier_policy)p, MS_HIER_SHARED, &plan, &err) ||
            ms_hier_plan_check(&plan, &w, cr, 4, &err))
            abort();
        ms_hier_plan_fini(&plan);
    }
    ms_hier_window_fini(&w);
    ms_hier_catalog_fini(&cat);
    ms_hier_corun_free(cr);
    return 0;
}
