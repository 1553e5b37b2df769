/* fuzz_exec_migparted.c: libFuzzer target for the mig-parted config reader; what parses
 * keeps the format's rules, and every entry naming A100 profiles plans to a feasible
 * layout (or a clean refusal) from an empty GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/exec.h"

static void check_entry(const ms_migparted_entry *e, const ms_gpu_model *m)
{
    if (!e->mig_enabled && e->ncounts)
        abort();
    if (e->all == (e->ndevices > 0))
        abort();
    int count[MS_MAX_PROFILES] = {0};
    for (int i = 0; i < e->ncounts; i++) {
        if (e->counts[i].count < 0 || e->counts[i].count > 64 || !e->counts[i].profile[0])
            abort();
        int p = ms_gpu_profile_by_name(m, e->counts[i].profile);
        if (p < 0)
            return;
        count[p] = e->counts[i].count;
    }
    ms_apply_plan plan;
    ms_error err;
    if (ms_apply_plan_device(m, NULL, 0, NULL, count, &plan, &err))
        return;
    uint32_t used = 0;
    for (int i = 0; i < plan.ncreate; i++) {
        uint32_t mask = ms_gpu_slot_mask(m, plan.create[i]);
        if (!ms_gpu_placement_allowed(m, plan.create[i]) || (used & mask))
            abort();
        used |= mask;
        count[plan.create[i].profile]--;
    }
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        if (count[p])
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_migparted *c;
    ms_error err;
    if (ms_migparted_parse((const char *)data, size, "fuzz", &c, &err))
        return 0;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    if (c->nconfigs < 1)
        abort();
    for (int i = 0; i < c->nconfigs; i++) {
        const ms_migparted_config *cfg = &c->configs[i];
        if (cfg->nentries < 1 || ms_migparted_find(c, cfg->name) != cfg)
            abort();
        for (int k = 0; k < cfg->nentries; k++)
            check_entry(&cfg->entries[k], m);
    }
    ms_migparted_free(c);
    return 0;
}
