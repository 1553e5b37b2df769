/* plan_window.c: one window planned by any policy: the agent for rl, the exhaustive
 * solver otherwise, with default's layout chosen for the window when none is given. */
#include "migsched/hier.h"

int ms_hier_plan_window(const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                        ms_hier_policy p, const char *model_path, ms_hier_lookahead lookahead,
                        int *layout, ms_hier_plan *out, ms_error *err)
{
    if (p == MS_HIER_RL)
        return ms_hier_rl_plan(w, cr, cmax, model_path, lookahead, out, err);
    ms_hier_layout l = MS_HIER_NOMIG;
    if (p == MS_HIER_DEFAULT && *layout >= 0) {
        l = (ms_hier_layout)*layout;
    } else if (p == MS_HIER_DEFAULT) {
        int rc = ms_hier_default_layout(w, 1, cr, cmax, &l, err);
        if (rc)
            return rc;
        *layout = (int)l;
    }
    return ms_hier_solve(w, cr, cmax, p, l, out, err);
}
