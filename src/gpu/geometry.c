/* geometry.c: placements, valid partitions (maximal feasible sets of the smallest-memory
 * profile per compute size) and the repartitioning tree of paper 000 Fig. 4. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/gpu.h"

int ms_gpu_profile_by_name(const ms_gpu_model *m, const char *name)
{
    for (int i = 0; i < m->nprofiles; i++)
        if (!strcmp(m->profiles[i].name, name))
            return i;
    return -1;
}

int ms_gpu_size_index(const ms_gpu_model *m, int slices)
{
    for (int k = 0; k < m->nsizes; k++)
        if (m->sizes[k] == slices)
            return k;
    return -1;
}

bool ms_gpu_placement_allowed(const ms_gpu_model *m, ms_placement p)
{
    if (p.profile < 0 || p.profile >= m->nprofiles)
        return false;
    const ms_profile *pr = &m->profiles[p.profile];
    for (int i = 0; i < pr->nstarts; i++)
        if (pr->starts[i] == p.start)
            return true;
    return false;
}

uint32_t ms_gpu_slot_mask(const ms_gpu_model *m, ms_placement p)
{
    int size = m->profiles[p.profile].size_slots;
    return ((1u << size) - 1u) << p.start;
}

uint32_t ms_gpu_slice_mask(const ms_gpu_model *m, ms_placement p)
{
    int n = m->profiles[p.profile].slices;
    uint32_t mask = ((1u << n) - 1u) << p.start;
    return mask & ((1u << m->slices) - 1u);
}

double ms_gpu_create_time(const ms_gpu_model *m, int slices)
{
    return slices >= 1 && slices <= MS_MAX_SLICES ? m->create_s[slices] : 0.0;
}

double ms_gpu_destroy_time(const ms_gpu_model *m, int slices)
{
    return slices >= 1 && slices <= MS_MAX_SLICES ? m->destroy_s[slices] : 0.0;
}

/* The base placements: every allowed placement of each size's base profile. */
static int base_placements(const ms_gpu_model *m, ms_placement *out)
{
    int n = 0;
    for (int k = 0; k < m->nsizes; k++) {
        int pi = m->base_profile[m->sizes[k]];
        for (int j = 0; j < m->profiles[pi].nstarts; j++)
            out[n++] = (ms_placement){pi, m->profiles[pi].starts[j]};
    }
    return n;
}

static int cmp_placement(const void *a, const void *b)
{
    const ms_placement *x = a, *y = b;
    return x->start - y->start;
}

void ms_placements_sort(ms_placement *p, int n) { qsort(p, (size_t)n, sizeof *p, cmp_placement); }

/* Descending lexicographic order of the sizes in slot order: the papers' Fig. 1 order. */
static int cmp_partition_desc(const void *a, const void *b, void *model)
{
    const ms_gpu_model *m = model;
    const ms_partition *x = a, *y = b;
    for (int i = 0; i < x->n && i < y->n; i++) {
        int sx = m->profiles[x->inst[i].profile].slices;
        int sy = m->profiles[y->inst[i].profile].slices;
        if (sx != sy)
            return sy - sx;
    }
    return x->n - y->n;
}

static void enumerate_partitions(ms_gpu_model *m)
{
    ms_placement pl[MS_MAX_SLOTS * MS_MAX_SLICES];
    uint32_t masks[MS_MAX_SLOTS * MS_MAX_SLICES];
    int np = base_placements(m, pl);
    for (int i = 0; i < np; i++)
        masks[i] = ms_gpu_slot_mask(m, pl[i]);
    m->npartitions = 0;
    /* Feasible sets are few (at most 2^14 subsets on A100-class GPUs): enumerate them
     * all and keep those no placement can be added to. */
    for (uint32_t set = 1; set < (1u << np); set++) {
        uint32_t used = 0;
        bool ok = true;
        int count = 0;
        for (int i = 0; i < np && ok; i++)
            if (set & (1u << i)) {
                ok = !(used & masks[i]);
                used |= masks[i];
                count++;
            }
        if (!ok || count > MS_MAX_INSTANCES)
            continue;
        bool maximal = true;
        for (int i = 0; i < np && maximal; i++)
            if (!(set & (1u << i)) && !(used & masks[i]))
                maximal = false;
        if (!maximal || m->npartitions == MS_MAX_PARTITIONS)
            continue;
        ms_partition *p = &m->partitions[m->npartitions++];
        p->n = 0;
        for (int i = 0; i < np; i++)
            if (set & (1u << i))
                p->inst[p->n++] = pl[i];
        ms_placements_sort(p->inst, p->n);
    }
    qsort_r(m->partitions, (size_t)m->npartitions, sizeof m->partitions[0], cmp_partition_desc, m);
}

/* Children of a node: fill its slots left to right, each time with the largest smaller
 * base profile that fits at an allowed start (this reproduces paper 000 Fig. 4, including
 * the 4-slice node whose only child is a 3-slice instance on the same slots). */
static int build_node(ms_gpu_model *m, ms_placement at, int parent)
{
    ms_tree *t = &m->tree;
    if (t->n == MS_MAX_TREE_NODES)
        return -1;
    int id = t->n++;
    ms_tree_node *node = &t->node[id];
    node->at = at;
    node->parent = parent;
    node->nchildren = 0;
    int size = m->profiles[at.profile].slices;
    uint32_t parent_mask = ms_gpu_slot_mask(m, at), used = 0;
    ms_placement kids[MS_MAX_INSTANCES];
    int nk = 0;
    for (int slot = at.start; slot < at.start + m->profiles[at.profile].size_slots; slot++) {
        if (used & (1u << slot))
            continue;
        for (int k = m->nsizes - 1; k >= 0; k--) {
            if (m->sizes[k] >= size)
                continue;
            ms_placement c = {m->base_profile[m->sizes[k]], slot};
            uint32_t cm = ms_gpu_slot_mask(m, c);
            if (ms_gpu_placement_allowed(m, c) && (cm & parent_mask) == cm && !(cm & used)) {
                kids[nk++] = c;
                used |= cm;
                break;
            }
        }
    }
    for (int i = 0; i < nk; i++) {
        int c = build_node(m, kids[i], id);
        if (c < 0)
            return -1;
        t->node[id].children[t->node[id].nchildren++] = c;
    }
    return id;
}

int ms_gpu_model_finish(ms_gpu_model *m, ms_error *err)
{
    if (m->slots < 1 || m->slots > MS_MAX_SLOTS)
        return ms_error_set(err, MS_EINVAL, "%s: slots must be 1..%d", m->name, MS_MAX_SLOTS);
    if (m->slices < 1 || m->slices > MS_MAX_SLICES || m->slices > m->slots)
        return ms_error_set(err, MS_EINVAL, "%s: slices must be 1..slots", m->name);
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        m->base_profile[s] = -1;
    m->nsizes = 0;
    int full = -1;
    for (int i = 0; i < m->nprofiles; i++) {
        const ms_profile *p = &m->profiles[i];
        if (p->slices < 1 || p->slices > m->slices)
            return ms_error_set(err, MS_EINVAL, "%s: profile %s: slices %d not in 1..%d", m->name,
                                p->name, p->slices, m->slices);
        if (p->size_slots < 1 || p->size_slots > m->slots || p->nstarts < 1)
            return ms_error_set(err, MS_EINVAL, "%s: profile %s: bad placement size or starts",
                                m->name, p->name);
        for (int j = 0; j < p->nstarts; j++)
            if (p->starts[j] < 0 || p->starts[j] + p->size_slots > m->slots)
                return ms_error_set(err, MS_EINVAL, "%s: profile %s: start %d runs past slot %d",
                                    m->name, p->name, p->starts[j], m->slots);
        int *b = &m->base_profile[p->slices];
        if (*b < 0 || p->memory_gb < m->profiles[*b].memory_gb ||
            (p->memory_gb == m->profiles[*b].memory_gb &&
             p->size_slots < m->profiles[*b].size_slots))
            *b = i;
        if (p->slices == m->slices && p->size_slots == m->slots)
            full = i;
    }
    for (int s = 1; s <= m->slices; s++)
        if (m->base_profile[s] >= 0)
            m->sizes[m->nsizes++] = s;
    if (full < 0)
        return ms_error_set(err, MS_EINVAL,
                            "%s: no profile spans the whole GPU (%d slices, %d slots)", m->name,
                            m->slices, m->slots);
    for (int k = 0; k < m->nsizes; k++) {
        int s = m->sizes[k];
        if (!(m->create_s[s] >= 0) || !(m->destroy_s[s] >= 0))
            return ms_error_set(err, MS_EINVAL, "%s: reconfiguration times of size %d must be >= 0",
                                m->name, s);
    }
    enumerate_partitions(m);
    m->tree.n = 0;
    if (build_node(m, (ms_placement){m->base_profile[m->slices], 0}, -1) < 0)
        return ms_error_set(err, MS_EINVAL, "%s: repartitioning tree has more than %d nodes",
                            m->name, MS_MAX_TREE_NODES);
    return MS_OK;
}

void ms_partition_format(const ms_gpu_model *m, const ms_partition *p, char *buf, int len)
{
    int off = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n && off < len; i++)
        off += snprintf(buf + off, (size_t)(len - off), "%s%d", i ? "-" : "",
                        m->profiles[p->inst[i].profile].slices);
}

int ms_partition_parse(const ms_gpu_model *m, const char *text)
{
    /* The size list wins: "7" is the whole-GPU partition, not label 7. */
    char buf[64];
    for (int i = 0; i < m->npartitions; i++) {
        ms_partition_format(m, &m->partitions[i], buf, sizeof buf);
        if (!strcmp(buf, text))
            return i;
    }
    char *end;
    long idx = strtol(text, &end, 10);
    if (end != text && *end == '\0' && idx >= 1 && idx <= m->npartitions)
        return (int)idx - 1;
    return -1;
}

void ms_partition_slice_vector(const ms_gpu_model *m, const ms_partition *p, int c[MS_MAX_SLICES])
{
    for (int i = 0; i < MS_MAX_SLICES; i++)
        c[i] = 0;
    for (int k = 0; k < p->n; k++) {
        uint32_t mask = ms_gpu_slice_mask(m, p->inst[k]);
        for (int i = 0; i < m->slices; i++)
            if (mask & (1u << i))
                c[i] = m->profiles[p->inst[k].profile].slices;
    }
}

bool ms_partition_useless(const ms_gpu_model *m, const ms_partition *p)
{
    for (int k = 0; k < p->n; k++) {
        const ms_profile *pr = &m->profiles[p->inst[k].profile];
        /* Slots past the instance's compute slices that still map to compute slices. */
        int first_wasted = p->inst[k].start + pr->slices;
        int end = p->inst[k].start + pr->size_slots;
        if (first_wasted < end && first_wasted < m->slices)
            return true;
    }
    return false;
}
