/* tables.c: the environment's static tables: transitions between real partitions through
 * canonical configurations, and each partition's instances in canonical order. */
#include <string.h>

#include "env_internal.h"

static int find_partition(const ms_gpu_model *m, const int v[MS_MAX_SLICES])
{
    for (int p = 0; p < m->npartitions; p++) {
        int c[MS_MAX_SLICES];
        ms_partition_slice_vector(m, &m->partitions[p], c);
        if (!memcmp(c, v, sizeof c))
            return p;
    }
    return -1;
}

static bool has_placement(const ms_partition *p, ms_placement x)
{
    for (int k = 0; k < p->n; k++)
        if (p->inst[k].profile == x.profile && p->inst[k].start == x.start)
            return true;
    return false;
}

/* Instances of src not in dst (by placement); their indices into out. */
static int difference(const ms_partition *src, const ms_partition *dst, uint8_t *out)
{
    int n = 0;
    for (int k = 0; k < src->n; k++)
        if (!dst || !has_placement(dst, src->inst[k]))
            out[n++] = (uint8_t)k;
    return n;
}

void env_transition_between(const ms_env *e, int from, int q, env_trans *t)
{
    const ms_gpu_model *m = &e->gpu;
    const ms_partition *src = from < 0 ? NULL : &m->partitions[from];
    const ms_partition *dst = &m->partitions[q];
    t->target = q;
    t->ndestroy = src ? difference(src, dst, t->destroy) : 0;
    t->ncreate = difference(dst, src, t->create);
    t->changed = 0;
    for (int k = 0; k < t->ndestroy; k++)
        t->changed |= ms_gpu_slice_mask(m, src->inst[t->destroy[k]]);
    for (int k = 0; k < t->ncreate; k++)
        t->changed |= ms_gpu_slice_mask(m, dst->inst[t->create[k]]);
}

static int build_transition(ms_env *e, int from, int canon, env_trans *t, ms_error *err)
{
    const ms_gpu_model *m = &e->gpu;
    const int *sigma = from < 0 ? e->ident : e->canon.sigma[from];
    int rep[MS_MAX_SLICES], real[MS_MAX_SLICES] = {0};
    ms_partition_slice_vector(m, &m->partitions[e->canon.partition[canon]], rep);
    for (int i = 0; i < e->K; i++)
        real[sigma[i]] = rep[i];
    int q = from < 0 ? e->canon.partition[canon] : find_partition(m, real);
    if (q < 0 || e->canon.canon_of[q] != canon)
        return ms_error_set(err, MS_EINVAL,
                            "%s: canonical configuration %d has no preimage from partition %d",
                            m->name, canon + 1, from + 1);
    env_transition_between(e, from, q, t);
    return MS_OK;
}

/* Instances of p in the order their first slice appears in canonical positions. */
static void canonical_instances(ms_env *e, int p)
{
    const ms_gpu_model *m = &e->gpu;
    const ms_partition *part = &m->partitions[p];
    uint32_t seen = 0;
    int n = 0;
    for (int k = 0; k < part->n; k++) {
        e->imask[p][k] = ms_gpu_slice_mask(m, part->inst[k]);
        e->isize[p][k] = m->profiles[part->inst[k].profile].slices;
    }
    for (int i = 0; i < e->K; i++) {
        int s = e->canon.sigma[p][i];
        for (int k = 0; k < part->n; k++)
            if ((e->imask[p][k] & (1u << s)) && !(seen & (1u << k))) {
                seen |= 1u << k;
                e->cinst[p][n++] = (uint8_t)k;
            }
    }
    e->ninst[p] = n;
}

int env_build_tables(ms_env *e, ms_error *err)
{
    for (int i = 0; i < MS_MAX_SLICES; i++)
        e->ident[i] = i;
    for (int c = 0; c < e->C; c++) {
        if (build_transition(e, -1, c, &e->trans[ENV_EMPTY][c], err))
            return err ? err->code : MS_EINVAL;
        const ms_partition *p = &e->gpu.partitions[e->canon.partition[c]];
        for (int k = 0; k < p->n; k++)
            e->csizes[c] |= 1u << e->gpu.profiles[p->inst[k].profile].slices;
    }
    for (int p = 0; p < e->gpu.npartitions; p++) {
        if (e->canon.canon_of[p] < 0)
            continue;
        canonical_instances(e, p);
        for (int c = 0; c < e->C; c++)
            if (build_transition(e, p, c, &e->trans[p][c], err))
                return err ? err->code : MS_EINVAL;
    }
    return MS_OK;
}
