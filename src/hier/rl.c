/* rl.c: the entry point of the DQN agent's plans. The agent lives on branch hier-dqn
 * (src/hier/rl*.c there replaces this file); without it no model can be loaded. */
#include "migsched/hier.h"

int ms_hier_rl_plan(const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                    const char *model_path, ms_hier_plan *out, ms_error *err)
{
    (void)w;
    (void)cr;
    (void)cmax;
    (void)out;
    return ms_error_set(err, MS_EINVAL,
                        "no model: %s cannot be loaded, this build has no DQN agent "
                        "(policy rl needs the hier-dqn branch)",
                        model_path ? model_path : "(none)");
}
