/* spank_isolate.c: the task's device nodes, planned from the allocation migschedd placed. */
#include "spank_isolate.h"

#include <stdio.h>

int msp_isolate(const msp_conf *c, const msp_instance *in, char *err, size_t errlen)
{
    if (!c->isolate)
        return 0;
    if (in->gpu_minor < 0 || in->gi_id < 0 || in->ci_id < 0) {
        snprintf(err, errlen,
                 "device isolation: migschedd gave no %s for the allocation (its "
                 "log says why; isolation=none in plugstack.conf runs tasks unconfined)",
                 in->gpu_minor < 0 ? "GPU minor number" : "GPU and compute instance ids");
        return -1;
    }
    ms_devplan_target t = {.dev_dir = c->dev_dir,
                           .mig_minors = c->mig_minors,
                           .gpu_minor = (unsigned)in->gpu_minor,
                           .gi_id = (unsigned)in->gi_id,
                           .ci_id = (unsigned)in->ci_id};
    ms_devplan *p;
    ms_error e;
    if (ms_devplan_make(&t, &p, &e)) {
        snprintf(err, errlen, "device isolation: %s", e.msg);
        return -1;
    }
    int rc = ms_devplan_apply(p, err, errlen);
    ms_devplan_free(p);
    return rc;
}
