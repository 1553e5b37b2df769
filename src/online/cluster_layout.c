/* cluster_layout.c: static MIG layouts of a cluster's nodes (what a mig-parted config
 * gives every GPU): reading and writing them, and the instance type a job asks of one
 * under typed GRES. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

int ms_online_cluster_layout_parse(const ms_gpu_model *m, const char *text, int gpus,
                                   ms_partition *out, ms_error *err)
{
    if (gpus < 1 || gpus > MS_CLUSTER_MAX_GPUS)
        return ms_error_set(err, MS_EINVAL, "a node holds 1 to %d GPUs, not %d",
                            MS_CLUSTER_MAX_GPUS, gpus);
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return ms_error_set(err, MS_EINVAL, "static layout '%.40s...' is too long", text);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int p = ms_partition_parse(m, tok);
        if (p < 0)
            return ms_error_set(
                err, MS_EINVAL,
                "static layout '%s': '%s' is not a valid partition of %s "
                "(instance sizes in slot order as `migsched partitions` lists them, e.g. 3-2-1)",
                text, tok, m->name);
        if (n == gpus)
            return ms_error_set(err, MS_EINVAL, "static layout '%s' names more than %d GPUs", text,
                                gpus);
        out[n++] = m->partitions[p];
    }
    if (n != 1 && n != gpus)
        return ms_error_set(err, MS_EINVAL,
                            "static layout '%s' names %d GPUs: give one partition for every "
                            "GPU or one per GPU (%d)",
                            text, n, gpus);
    for (int g = n; g < gpus; g++)
        out[g] = out[0];
    return MS_OK;
}

static bool same_partition(const ms_partition *a, const ms_partition *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->inst[i].profile != b->inst[i].profile || a->inst[i].start != b->inst[i].start)
            return false;
    return true;
}

void ms_online_cluster_layout_format(const ms_gpu_model *m, const ms_partition *layout, int gpus,
                                     char *buf, int len)
{
    bool uniform = true;
    for (int g = 1; g < gpus; g++)
        uniform = uniform && same_partition(&layout[0], &layout[g]);
    int used = 0;
    buf[0] = '\0';
    for (int g = 0; g < (uniform ? 1 : gpus) && used < len; g++) {
        char one[64];
        ms_partition_format(m, &layout[g], one, sizeof one);
        used += snprintf(buf + used, (size_t)(len - used), "%s%s", g ? "," : "", one);
    }
}

/* a before b as a typed request: fewer compute slices, then less memory, then index. */
static bool smaller(const ms_gpu_model *m, int a, int b)
{
    const ms_profile *x = &m->profiles[a], *y = &m->profiles[b];
    if (x->slices != y->slices)
        return x->slices < y->slices;
    if (x->memory_gb != y->memory_gb)
        return x->memory_gb < y->memory_gb;
    return a < b;
}

int ms_online_cluster_type(const ms_gpu_model *m, const ms_partition *layout, int gpus, int profile)
{
    const ms_profile *want = &m->profiles[profile];
    int best = -1;
    for (int g = 0; g < gpus; g++)
        for (int i = 0; i < layout[g].n; i++) {
            int p = layout[g].inst[i].profile;
            const ms_profile *have = &m->profiles[p];
            if (have->slices >= want->slices && have->memory_gb >= want->memory_gb &&
                (best < 0 || smaller(m, p, best)))
                best = p;
        }
    return best;
}
