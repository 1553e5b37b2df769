/* hier_cli.c: what the `migsched hier` subcommands share: the usage, and the options of
 * the co-run sources and the agent's lookahead. */
#include <stdio.h>

#include "cli_common.h"
#include "cli_util.h"
#include "hier_cli.h"

void hier_usage(FILE *f)
{
    fprintf(
        f,
        "usage: migsched hier --window FILE --policy timeshare|mig2|mps|default|rl|optimal\n"
        "                     [--cmax C] [--model FILE] [--lookahead K] [--lookahead-depth D]\n"
        "                     [--json] [--exec-out DIR]\n"
        "                     [--gpu MODEL] [--catalogue FILE] [--corun FILE] [--gamma G]\n"
        "                     [--serial-width W]\n"
        "       migsched hier experiment [--window W] [--cmax C] [--mixes N] [--seed S]\n"
        "                     [--model FILE] [--lookahead K] [--lookahead-depth D] [--json]\n"
        "                     [--catalogue FILE]\n"
        "                     [--corun FILE] [--gamma G] [--serial-width W]\n"
        "       migsched hier setups [--c C] [--json]\n"
        "       migsched hier fit [--out CATALOGUE] [--requests N] [--gamma G] PROFILE.csv...\n"
        "       migsched hier fit --corun TABLE [--catalogue FILE] [--out CATALOGUE] [--gamma G]\n"
        "                     (the model fitted to measured runs; migsched hier fit --help)\n"
        "       migsched hier train --out FILE [--steps N] [--seed S] [--window W] [--cmax C]\n"
        "                     (the DQN agent; migsched hier train --help)\n"
        "  Co-schedules a window of jobs with hierarchical MIG+MPS partitioning (paper 004):\n"
        "  job sets of at most C_max jobs (default 4), each with a setup of Table VII.\n"
        "  WINDOW is CSV (a 'name' column, optional profile columns and 'command') or JSON\n"
        "  {\"jobs\": [...]}; names are looked up in the catalogue: the built-in MODELLED one of\n"
        "  Table IV, or --catalogue FILE (same format, full profiles). Co-run times come from\n"
        "  the model (--gamma sets its interference, default 0.4; --serial-width the GPCs a\n"
        "  job's serial part needs, default 0) or from a measured table\n"
        "  --corun FILE (CSV setup,jobs,times). --exec-out DIR writes plan.json, workload.json\n"
        "  and mps.json for `migsched run` (GPU model default A100-40GB).\n"
        "  experiment: W and C may be lists or ranges (8,12 or 8-16); at W = 12 without\n"
        "  --mixes the mixes are Table V's Q1-Q12, otherwise N random mixes (default 3) per\n"
        "  category (CI-, MI-, US-dominant, balanced) drawn with --seed (default 1).\n"
        "  --lookahead K (policy rl, 1..8, default 3): each decision tries the agent's K best\n"
        "  actions by Q, finishes each with the greedy agent and keeps the one of least co-run\n"
        "  time (rollout; never worse than the greedy agent, K = 1).\n"
        "  --lookahead-depth D (1..3, default 1): each tried action is finished by the\n"
        "  rollout of depth D - 1 instead of the greedy agent (never worse than depth D - 1;\n"
        "  up to K^D times the work).\n"
        "  docs/hier.md has the model, the formats and the setups' ids.\n");
}

int hier_help(void)
{
    hier_usage(stdout);
    return 0;
}

int hier_load_sources(const hier_sources *src, ms_hier_catalog *cat, ms_hier_corun **cr)
{
    ms_error err;
    ms_hier_params par = ms_hier_params_default();
    par.gamma = src->gamma;
    par.serial_width = src->serial_width;
    int rc = src->catalogue ? ms_hier_catalog_read(src->catalogue, cat, &err)
                            : ms_hier_catalog_builtin(cat, &err);
    if (rc)
        return cli_fail("hier", "%s", err.msg);
    if (src->corun) {
        rc = ms_hier_corun_read(src->corun, &par, cr, &err);
    } else if (!(*cr = ms_hier_corun_model(&par))) {
        rc = ms_error_set(&err, MS_ENOMEM, "out of memory");
    }
    if (rc) {
        ms_hier_catalog_fini(cat);
        return cli_fail("hier", "%s", err.msg);
    }
    return 0;
}

int hier_window_option(int opt, const char *arg, ms_hier_lookahead *la, hier_sources *src)
{
    switch (opt) {
    case 'L':
        if (!cli_parse_int(arg, 1, MS_HIER_MAX_LOOKAHEAD, &la->width))
            return cli_usage_error("hier", hier_usage,
                                   "--lookahead must be an integer in 1..8 (1: the greedy agent)");
        return 0;
    case 'D':
        if (!cli_parse_int(arg, 1, MS_HIER_MAX_LOOKAHEAD_DEPTH, &la->depth))
            return cli_usage_error("hier", hier_usage,
                                   "--lookahead-depth must be an integer in 1..3 (1: the tried "
                                   "actions are finished by the greedy agent)");
        return 0;
    case 'C': src->catalogue = arg; return 0;
    case 'r': src->corun = arg; return 0;
    case 'G':
        if (!cli_parse_double(arg, 0, 100, &src->gamma))
            return cli_usage_error("hier", hier_usage, "--gamma must be a number in [0, 100]");
        return 0;
    case 'W':
        if (!cli_parse_double(arg, 0, 1, &src->serial_width))
            return cli_usage_error("hier", hier_usage,
                                   "--serial-width must be a number of GPCs in [0, 1]");
        return 0;
    default: return -1;
    }
}
