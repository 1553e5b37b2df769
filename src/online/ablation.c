/* ablation.c: paper 002's ablation: the techniques of the fragmentation-aware policy
 * switched on one by one (and each left out) on four workloads, averaged over seeds. */
#include <math.h>

#include "migsched/online.h"

typedef struct ablation_row {
    const char *name;
    int policy;
    bool balance, dynamic, migration;
} ablation_row;

static const ablation_row rows[MS_ABLATION_ROWS] = {
    {"firstfit-static", MS_POLICY_FF_STATIC, false, false, false},
    {"+balance", MS_POLICY_FRAG, true, false, false},
    {"+balance+dynamic", MS_POLICY_FRAG, true, true, false},
    {"all (+migration)", MS_POLICY_FRAG, true, true, true},
    {"firstfit-dynamic", MS_POLICY_FF_DYNAMIC, false, true, false},
    {"all - balance", MS_POLICY_FRAG, false, true, true},
    {"all - dynamic", MS_POLICY_FRAG, true, false, true},
};

static const struct {
    const char *name;
    int service;
    double mean;
} loads[MS_ABLATION_LOADS] = {{"Normal(25)", MS_SERVICE_NORMAL, 25},
                              {"Long(25)", MS_SERVICE_LONG, 25},
                              {"Normal(50)", MS_SERVICE_NORMAL, 50},
                              {"Long(50)", MS_SERVICE_LONG, 50}};

const char *ms_online_ablation_row_name(int row) { return rows[row].name; }

const char *ms_online_ablation_load_name(int load) { return loads[load].name; }

/* One cell: the row on one workload, averaged over the seeds. A static row's layout is
 * chosen out of sample (training seeds). MS_EINFEASIBLE: no static layout holds the mix. */
static int run_cell(const ms_gpu_model *m, const ms_online_ablation *a, int load,
                    const ablation_row *row, ms_online_ablation_cell *out, ms_error *err)
{
    out->turnaround = out->wait = out->execution = 0;
    ms_online_gen g = a->gen;
    g.service = loads[load].service;
    g.arrival_mean = loads[load].mean;
    ms_online_config c = a->cfg;
    c.policy = row->policy;
    c.balance = row->balance;
    c.dynamic = row->dynamic;
    c.migration = row->migration;
    int rc = row->dynamic
                 ? MS_OK
                 : ms_online_choose_layout(m, &g, &c, MS_ONLINE_TRAIN_SEED(a->seed), a->seeds, err);
    for (int s = 0; s < a->seeds && !rc; s++) {
        ms_online_workload w;
        ms_online_result r;
        if ((rc = ms_online_run_seed(m, &g, &c, a->seed + (unsigned long long)s, &w, &r, err)))
            break;
        out->turnaround += r.mean_turnaround / a->seeds;
        out->wait += r.mean_wait / a->seeds;
        out->execution += r.mean_exec / a->seeds;
        ms_online_workload_fini(&w);
        ms_online_result_fini(&r);
    }
    return rc;
}

int ms_online_ablation_run(const ms_gpu_model *m, const ms_online_ablation *a,
                           void (*row_done)(void *arg, int row, const ms_online_ablation_table *t),
                           void *arg, ms_online_ablation_table *out, ms_error *err)
{
    if (a->seeds < 1)
        return ms_error_set(err, MS_EINVAL, "ablation: no seed to run");
    for (int i = 0; i < MS_ABLATION_ROWS; i++) {
        for (int l = 0; l < MS_ABLATION_LOADS; l++) {
            ms_online_ablation_cell *cell = &out->cell[i][l];
            int rc = run_cell(m, a, l, &rows[i], cell, err);
            if (rc && rc != MS_EINFEASIBLE)
                return rc;
            if (rc) /* no static layout holds the mix (one GPU): n/a, not a failure */
                cell->turnaround = cell->wait = cell->execution = NAN;
        }
        if (row_done)
            row_done(arg, i, out);
    }
    return MS_OK;
}
