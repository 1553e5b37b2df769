/* env.c: the environment's episode dynamics: reset, action masks (paper 001 4.2 and
 * 6.5.2), steps with their rewards (4.3) in real time, and forced Advances. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "env_internal.h"

void ms_env_config_default(ms_env_config *c)
{
    memset(c, 0, sizeof *c);
    c->n_batch = 14;
    c->levels = 14;
    c->encoding = MS_ENC_FLOAT;
    c->direct_reconfig = true;
}

static const char *const encoding_names[] = {"float", "one-hot", "exact"};

const char *ms_env_encoding_name(ms_encoding enc) { return encoding_names[enc]; }

int ms_env_encoding_parse(const char *name, ms_encoding *out)
{
    int i = ms_name_index(encoding_names, 3, name);
    if (i < 0)
        return MS_EINVAL;
    *out = (ms_encoding)i;
    return MS_OK;
}

static int obs_size(const ms_env *e)
{
    int per_time = e->cfg.encoding == MS_ENC_ONEHOT ? e->cfg.levels : 1;
    return (e->C + 1) + e->K * per_time + e->cfg.n_batch * (e->S * per_time + 1) + 1;
}

ms_env *ms_env_new(const ms_gpu_model *gpu, const ms_env_config *cfg, ms_error *err)
{
    if (cfg->n_batch < 1 || cfg->n_batch > ENV_MAX_N || cfg->levels < 1 || cfg->levels > 250) {
        ms_error_set(err, MS_EINVAL, "environment: n_batch must be 1..%d and levels 1..250",
                     ENV_MAX_N);
        return NULL;
    }
    if (cfg->create_on_use && cfg->direct_reconfig && !cfg->async_reconfig) {
        /* a creation at a task's placement cannot stop the clock as a reconfiguration does */
        ms_error_set(err, MS_EINVAL,
                     "environment: create-on-use needs async-reconfig (or no-direct)");
        return NULL;
    }
    ms_env *e = calloc(1, sizeof *e);
    if (!e) {
        ms_error_set(err, MS_ENOMEM, "environment: out of memory");
        return NULL;
    }
    e->gpu = *gpu;
    e->cfg = *cfg;
    if (cfg->every_partition)
        ms_gpu_every_partition(gpu, !cfg->keep_useless, &e->canon);
    else
        ms_gpu_canonical(gpu, !cfg->keep_useless, &e->canon);
    e->K = gpu->slices;
    e->S = gpu->nsizes;
    e->C = e->canon.n;
    e->nact = 1 + e->C + cfg->n_batch * e->K;
    e->obs_size = obs_size(e);
    e->part = -1;
    e->done = true;
    if (env_build_tables(e, err)) {
        free(e);
        return NULL;
    }
    return e;
}

ms_env *ms_env_new_like(const ms_env *src, ms_error *err)
{
    ms_env *e = malloc(sizeof *e);
    if (!e) {
        ms_error_set(err, MS_ENOMEM, "environment: out of memory");
        return NULL;
    }
    memcpy(e, src, sizeof *e); /* the tables; the episode's buffers are the new one's own */
    e->w = NULL;
    e->task_cap = e->log_cap = e->nlog = 0;
    e->level = NULL;
    e->key = NULL;
    e->log = NULL;
    e->tlog = NULL;
    e->part = -1;
    e->done = true;
    return e;
}

void ms_env_free(ms_env *e)
{
    if (!e)
        return;
    free(e->level);
    free(e->key);
    free(e->log);
    free(e->tlog);
    free(e);
}

int ms_env_obs_size(const ms_env *e) { return e->obs_size; }
int ms_env_num_actions(const ms_env *e) { return e->nact; }
const ms_env_config *ms_env_get_config(const ms_env *e) { return &e->cfg; }
const ms_gpu_model *ms_env_gpu(const ms_env *e) { return &e->gpu; }
const ms_canon_set *ms_env_canon(const ms_env *e) { return &e->canon; }
int ms_env_action_reconfig(const ms_env *e, int canon) { return 1 + canon; }
int ms_env_action_exec(const ms_env *e, int j, int m) { return 1 + e->C + j * e->K + m; }
bool ms_env_done(const ms_env *e) { return e->done; }
const ms_workload *ms_env_workload(const ms_env *e) { return e->w; }
double ms_env_now(const ms_env *e) { return e->now; }
double ms_env_scale(const ms_env *e) { return e->scale; }

int ms_env_future_key(const ms_env *e, double *key)
{
    _Static_assert(15 + 3 * ENV_MAX_N + MS_MAX_SLICES <= MS_ENV_KEY_MAX, "key room");
    int n = 0;
    key[n++] = e->nbatch;
    int first = n;
    for (int b = 0; b < e->nbatch; b++) { /* the batch as a set: its order has no effect */
        int i = n++;
        while (i > first && key[i - 1] > e->batch[b]) {
            key[i] = key[i - 1];
            i--;
        }
        key[i] = e->batch[b];
    }
    key[n++] = e->nclass;
    for (int j = 0; j < e->nclass; j++) {
        key[n++] = e->class_task[j];
        key[n++] = e->class_count[j];
    }
    double scalars[] = {e->next_queued, e->batch_sizes,   e->part, e->now,    e->reconfig_until,
                        e->last_end,    e->last_reconfig, e->done, e->failed, e->nreconf};
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        key[n++] = scalars[i];
    for (int i = 0; i < e->K; i++)
        key[n++] = e->free_at[i];
    if (e->cfg.create_on_use) { /* which of the partition's instances exist */
        uint32_t created = 0;
        for (int k = 0; e->part >= 0 && k < e->gpu.partitions[e->part].n; k++)
            created |= (uint32_t)(e->live[k] >= 0) << k;
        key[n++] = created;
    }
    return n;
}

/* The least x with sum over slices of max(0, x - ready[i]) >= work: the time from now at
 * which work slice-seconds fit on the slices after each is ready (water filling). */
static double fill_time(double *ready, int k, double work)
{
    for (int i = 1; i < k; i++) /* insertion sort: k <= MS_MAX_SLICES */
        for (int j = i; j > 0 && ready[j - 1] > ready[j]; j--) {
            double t = ready[j];
            ready[j] = ready[j - 1];
            ready[j - 1] = t;
        }
    double sum = 0, x = 0;
    for (int j = 0; j < k; j++) {
        sum += ready[j];
        x = (work + sum) / (j + 1);
        if (j + 1 == k || x <= ready[j + 1])
            break;
    }
    return x;
}

double ms_env_makespan_bound(const ms_env *e)
{
    double end = e->last_end > e->now ? e->last_end : e->now, work = 0;
    double ready[MS_MAX_SLICES];
    for (int i = 0; i < e->K; i++)
        ready[i] = e->free_at[i] > e->now ? e->free_at[i] - e->now : 0;
    for (int b = 0; b < e->nbatch; b++) {
        const double *time = e->w->tasks[e->batch[b]].time;
        double shortest = INFINITY, least = INFINITY;
        for (int k = 0; k < e->S; k++) {
            double t = time[e->gpu.sizes[k]];
            if (t > 0 && t < shortest)
                shortest = t;
            if (t > 0 && e->gpu.sizes[k] * t < least)
                least = e->gpu.sizes[k] * t;
        }
        if (e->now + shortest > end)
            end = e->now + shortest;
        work += least;
    }
    /* The area bound is a sum of roundings: lowered by a relative 1e-9 so that it never
     * exceeds a makespan it equals exactly (a cutoff compares against it). */
    return work > 0 ? fmax(end, (e->now + fill_time(ready, e->K, work)) * (1 - 1e-9)) : end;
}

int ms_env_canon_config(const ms_env *e) { return e->part < 0 ? -1 : e->canon.canon_of[e->part]; }
int ms_env_real_partition(const ms_env *e) { return e->part; }
int ms_env_reconfigurations(const ms_env *e) { return e->nreconf; }
int ms_env_steps(const ms_env *e) { return e->nsteps; }

int ms_env_level(double t, double scale, int levels)
{
    if (!(t > 0))
        return 0;
    if (isinf(t))
        return levels + 1;
    long l = lround(t / scale * levels);
    return l < 1 ? 1 : l > levels ? levels : (int)l;
}

static int grow_log(ms_env *e, int need)
{
    if (need <= e->log_cap)
        return MS_OK;
    int cap = e->log_cap * 2 > need ? e->log_cap * 2 : need;
    env_log_inst *l = realloc(e->log, (size_t)cap * sizeof *l);
    if (!l)
        return MS_ENOMEM;
    e->log = l;
    e->log_cap = cap;
    return MS_OK;
}

/* Per-task levels and Num keys (digits t(1), t(2), ... in base M + 2). */
static void discretise(ms_env *e)
{
    const ms_workload *w = e->w;
    e->scale = 0;
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < e->S; k++) {
            double t = w->tasks[i].time[e->gpu.sizes[k]];
            if (isfinite(t) && t > e->scale)
                e->scale = t;
        }
    if (!(e->scale > 0))
        e->scale = 1;
    for (int i = 0; i < w->n; i++) {
        uint64_t key = 0;
        for (int k = 0; k < e->S; k++) {
            int l = ms_env_level(w->tasks[i].time[e->gpu.sizes[k]], e->scale, e->cfg.levels);
            e->level[i * e->S + k] = (uint8_t)l;
            key = key * (uint64_t)(e->cfg.levels + 2) + (uint64_t)l;
        }
        e->key[i] = key;
    }
}

/* Room for the per-task arrays of an n-task workload. */
static int grow_tasks(ms_env *e, int n)
{
    if (n <= e->task_cap)
        return MS_OK;
    free(e->level);
    free(e->key);
    free(e->tlog);
    e->level = malloc((size_t)n * (size_t)e->S);
    e->key = malloc((size_t)n * sizeof *e->key);
    e->tlog = malloc((size_t)n * sizeof *e->tlog);
    e->task_cap = e->level && e->key && e->tlog ? n : 0;
    return e->task_cap ? MS_OK : MS_ENOMEM;
}

int ms_env_reset(ms_env *e, const ms_workload *w, ms_error *err)
{
    if (w->n < 1)
        return ms_error_set(err, MS_EINVAL, "environment: empty workload");
    for (int i = 0; i < w->n; i++) {
        bool runs = false;
        for (int k = 0; k < e->S; k++)
            runs |= w->tasks[i].time[e->gpu.sizes[k]] > 0 &&
                    isfinite(w->tasks[i].time[e->gpu.sizes[k]]);
        if (!runs)
            return ms_error_set(err, MS_EINVAL, "environment: task %d (%s) runs on no size of %s",
                                i, w->tasks[i].name, e->gpu.name);
    }
    if (grow_tasks(e, w->n))
        return ms_error_set(err, MS_ENOMEM, "environment: out of memory");
    /* Instances an episode can create: K per reconfiguration; at most n + 1 within the
     * budget plus one way-out reconfiguration per task. */
    if (grow_log(e, 16 + e->K * (2 * w->n + 3)))
        return ms_error_set(err, MS_ENOMEM, "environment: out of memory");
    e->w = w;
    discretise(e);
    e->part = -1;
    e->now = e->reconfig_until = e->last_end = 0;
    for (int i = 0; i < MS_MAX_SLICES; i++)
        e->free_at[i] = 0;
    e->last_reconfig = e->done = e->failed = false;
    e->nreconf = e->nsteps = e->nlog = 0;
    e->next_queued = e->nbatch = 0;
    for (int i = 0; i < w->n; i++)
        e->tlog[i].inst = -1;
    env_refill(e);
    return MS_OK;
}

int ms_env_copy(ms_env *dst, const ms_env *src, ms_error *err)
{
    if (dst == src)
        return MS_OK;
    if (memcmp(&dst->cfg, &src->cfg, sizeof src->cfg) || strcmp(dst->gpu.name, src->gpu.name))
        return ms_error_set(err, MS_EINVAL,
                            "environment: a copy needs the same GPU (%s, %s) and "
                            "settings",
                            dst->gpu.name, src->gpu.name);
    int n = src->w ? src->w->n : 0;
    if (grow_tasks(dst, n) || grow_log(dst, src->log_cap))
        return ms_error_set(err, MS_ENOMEM, "environment: out of memory");
    memcpy(dst->level, src->level, (size_t)n * (size_t)src->S);
    memcpy(dst->key, src->key, (size_t)n * sizeof *src->key);
    memcpy(dst->tlog, src->tlog, (size_t)n * sizeof *src->tlog);
    memcpy(dst->log, src->log, (size_t)src->nlog * sizeof *src->log);
    /* The episode's fields of env_internal.h, the buffers' contents done above. */
    dst->w = src->w;
    dst->scale = src->scale;
    dst->next_queued = src->next_queued;
    dst->nbatch = src->nbatch;
    memcpy(dst->batch, src->batch, sizeof src->batch);
    dst->nclass = src->nclass;
    memcpy(dst->class_task, src->class_task, sizeof src->class_task);
    memcpy(dst->class_count, src->class_count, sizeof src->class_count);
    dst->batch_sizes = src->batch_sizes;
    dst->part = src->part;
    memcpy(dst->live, src->live, sizeof src->live);
    dst->now = src->now;
    dst->reconfig_until = src->reconfig_until;
    dst->last_end = src->last_end;
    memcpy(dst->free_at, src->free_at, sizeof src->free_at);
    dst->last_reconfig = src->last_reconfig;
    dst->done = src->done;
    dst->failed = src->failed;
    dst->nreconf = src->nreconf;
    dst->nsteps = src->nsteps;
    dst->nlog = src->nlog;
    return MS_OK;
}

int ms_env_reset_from(ms_env *e, const ms_workload *w, int part, const double *busy, ms_error *err)
{
    if (part >= e->gpu.npartitions || (part >= 0 && e->canon.canon_of[part] < 0))
        return ms_error_set(err, MS_EINVAL,
                            "environment: partition %d is not one of the %d "
                            "configurations of %s",
                            part, e->C, e->gpu.name);
    int rc = ms_env_reset(e, w, err);
    if (rc || part < 0)
        return rc;
    const ms_partition *p = &e->gpu.partitions[part];
    for (int k = 0; k < p->n; k++) {
        if (!(busy[k] >= 0) || !isfinite(busy[k]))
            return ms_error_set(err, MS_EINVAL, "environment: busy time %g of instance %d", busy[k],
                                k);
        env_log_inst *l = &e->log[e->nlog];
        l->profile = p->inst[k].profile;
        l->start = p->inst[k].start;
        l->create_start = l->create_end = l->destroy_start = l->destroy_end = NAN;
        e->live[k] = e->nlog++;
        for (int i = 0; i < e->K; i++)
            if (e->imask[part][k] & (1u << i))
                e->free_at[i] = busy[k];
    }
    e->part = part;
    return MS_OK;
}

uint32_t env_busy_slices(const ms_env *e)
{
    uint32_t busy = 0;
    for (int i = 0; i < e->K; i++)
        if (e->free_at[i] > e->now)
            busy |= 1u << i;
    return busy;
}

double env_instance_free_at(const ms_env *e, int part, int k)
{
    double at = 0;
    for (int i = 0; i < e->K; i++)
        if ((e->imask[part][k] >> i & 1) && e->free_at[i] > at)
            at = e->free_at[i];
    return at;
}

/* When the instances t destroys are all free (their tasks' latest end, or now). */
static double destroys_free_at(const ms_env *e, const env_trans *t)
{
    double at = e->now;
    for (int d = 0; d < t->ndestroy; d++)
        at = fmax(at, env_instance_free_at(e, e->part, t->destroy[d]));
    return at;
}

const env_trans *env_transition(const ms_env *e, int c, env_trans *scratch)
{
    const env_trans *fixed = &e->trans[e->part < 0 ? ENV_EMPTY : e->part][c];
    if (!e->cfg.soonest_placement || e->part < 0)
        return fixed;
    /* Among the placements of c: the one whose destroyed instances free soonest, then the
     * fewest operations; on a tie the fixed one, so that only a better choice changes it. */
    const env_trans *best = fixed;
    double best_at = destroys_free_at(e, fixed);
    int best_ops = fixed->ndestroy + fixed->ncreate;
    env_trans t;
    for (int q = 0; q < e->gpu.npartitions; q++) {
        if (e->canon.canon_of[q] != c || q == fixed->target)
            continue;
        env_transition_between(e, e->part, q, &t);
        double at = destroys_free_at(e, &t);
        int ops = t.ndestroy + t.ncreate;
        if (at < best_at || (at == best_at && ops < best_ops)) {
            *scratch = t;
            best = scratch;
            best_at = at;
            best_ops = ops;
        }
    }
    return best;
}

static bool reconfig_allowed(const ms_env *e, int c, uint32_t busy)
{
    if (e->part >= 0 && e->canon.canon_of[e->part] == c)
        return false;
    if (e->cfg.direct_reconfig)
        return true;
    env_trans scratch;
    return !(env_transition(e, c, &scratch)->changed & busy);
}

static bool exec_allowed(const ms_env *e, int j, int m, uint32_t busy)
{
    if (e->part < 0 || j >= e->nclass || m >= e->ninst[e->part])
        return false;
    int k = e->cinst[e->part][m];
    if (e->imask[e->part][k] & busy)
        return false;
    return isfinite(e->w->tasks[e->class_task[j]].time[e->isize[e->part][k]]);
}

int ms_env_mask(const ms_env *e, uint8_t *mask)
{
    memset(mask, 0, (size_t)e->nact);
    if (e->done)
        return 0;
    uint32_t busy = env_busy_slices(e);
    int n = 0;
    if (busy)
        n += mask[MS_ACTION_ADVANCE] = 1;
    if (e->nbatch == 0)
        return n;
    if (!e->last_reconfig && e->nreconf <= e->w->n)
        for (int c = 0; c < e->C; c++)
            if (reconfig_allowed(e, c, busy))
                n += mask[1 + c] = 1;
    for (int j = 0; j < e->nclass; j++)
        for (int m = 0; m < e->K; m++)
            if (exec_allowed(e, j, m, busy))
                n += mask[ms_env_action_exec(e, j, m)] = 1;
    /* Nothing possible right after a reconfiguration (e.g. a direct one to sizes no task in
     * the batch can use) or once the budget of reconfigurations (one per task, plus the
     * first, which keeps episodes short) is spent: reconfiguring again, to a configuration
     * where some task can run, is the way out. The GPU is idle here, so the task can start
     * right after: episodes stay finite even under a greedy policy. */
    if (n == 0)
        for (int c = 0; c < e->C; c++)
            if ((e->csizes[c] & e->batch_sizes) && reconfig_allowed(e, c, busy))
                n += mask[1 + c] = 1;
    return n;
}

/* True if some action other than Advance is allowed (early exit). */
static bool has_choice(const ms_env *e)
{
    if (e->nbatch == 0)
        return false;
    uint32_t busy = env_busy_slices(e);
    if (!busy)
        return true; /* the mask is never empty; Advance is not in it */
    if (!e->last_reconfig && e->nreconf <= e->w->n)
        for (int c = 0; c < e->C; c++)
            if (reconfig_allowed(e, c, busy))
                return true;
    for (int j = 0; j < e->nclass; j++)
        for (int m = 0; e->part >= 0 && m < e->ninst[e->part]; m++)
            if (exec_allowed(e, j, m, busy))
                return true;
    return false;
}

static double advance(ms_env *e)
{
    double next = INFINITY;
    for (int i = 0; i < e->K; i++)
        if (e->free_at[i] > e->now && e->free_at[i] < next)
            next = e->free_at[i];
    double dt = next - e->now;
    e->now = next;
    return -dt / e->scale;
}

/* Creates instance k of e's partition at the reconfiguration clock, from at the earliest;
 * returns the creation's end. */
static double create(ms_env *e, int k, double at)
{
    const ms_gpu_model *m = &e->gpu;
    const ms_placement *x = &m->partitions[e->part].inst[k];
    env_log_inst *l = &e->log[e->nlog];
    l->profile = x->profile;
    l->start = x->start;
    l->create_start = fmax(at, e->reconfig_until);
    l->create_end = l->create_start + ms_gpu_create_time(m, m->profiles[x->profile].slices);
    l->destroy_start = l->destroy_end = NAN;
    e->live[k] = e->nlog++;
    for (int i = 0; i < e->K; i++)
        if (e->imask[e->part][k] & (1u << i))
            e->free_at[i] = l->create_end;
    return e->reconfig_until = l->create_end;
}

/* Destroys then creates one at a time (the driver serialises them, paper 000 2.1); a
 * destruction waits for the instance's task to end (only possible with direct
 * reconfiguration). With create_on_use the creations wait for a task (execute) and an
 * instance never created is not destroyed. Returns the time the last operation ends. */
static double reconfigure(ms_env *e, const env_trans *t)
{
    const ms_gpu_model *m = &e->gpu;
    double clock = e->now > e->reconfig_until ? e->now : e->reconfig_until;
    int old = e->part;
    int order[MS_MAX_INSTANCES];
    double ready[MS_MAX_INSTANCES];
    int ndestroy = 0;
    for (int d = 0; d < t->ndestroy; d++) {
        int k = t->destroy[d];
        if (e->live[k] < 0)
            continue;
        ready[d] = env_instance_free_at(e, old, k);
        int pos = ndestroy++;
        while (pos > 0 && ready[order[pos - 1]] > ready[d]) {
            order[pos] = order[pos - 1];
            pos--;
        }
        order[pos] = d;
    }
    for (int d = 0; d < ndestroy; d++) {
        int k = t->destroy[order[d]];
        if (ready[order[d]] > clock)
            clock = ready[order[d]];
        env_log_inst *l = &e->log[e->live[k]];
        l->destroy_start = clock;
        clock += ms_gpu_destroy_time(m, e->isize[old][k]);
        l->destroy_end = clock;
        for (int i = 0; i < e->K; i++)
            if (e->imask[old][k] & (1u << i))
                e->free_at[i] = clock;
    }
    /* Kept instances move to their index in the target partition. */
    int live[MS_MAX_INSTANCES];
    const ms_partition *dst = &m->partitions[t->target];
    for (int k = 0; k < dst->n; k++) {
        live[k] = -1;
        for (int j = 0; old >= 0 && j < m->partitions[old].n; j++)
            if (m->partitions[old].inst[j].profile == dst->inst[k].profile &&
                m->partitions[old].inst[j].start == dst->inst[k].start)
                live[k] = e->live[j];
    }
    memcpy(e->live, live, sizeof live);
    e->part = t->target;
    e->reconfig_until = clock;
    for (int c = 0; c < t->ncreate && !e->cfg.create_on_use; c++)
        clock = create(e, t->create[c], clock);
    return clock;
}

static void execute(ms_env *e, int j, int mi)
{
    int k = e->cinst[e->part][mi];
    int task = e->class_task[j];
    double start = e->live[k] < 0 ? create(e, k, e->now) : e->now;
    double end = start + e->w->tasks[task].time[e->isize[e->part][k]];
    e->tlog[task] = (env_log_task){e->live[k], start, end};
    if (end > e->last_end)
        e->last_end = end;
    for (int i = 0; i < e->K; i++)
        if (e->imask[e->part][k] & (1u << i))
            e->free_at[i] = end;
    for (int b = 0; b < e->nbatch; b++)
        if (e->batch[b] == task) {
            e->batch[b] = e->batch[--e->nbatch];
            break;
        }
    env_refill(e);
}

double ms_env_step(ms_env *e, int action, bool *done)
{
    double reward = 0;
    e->nsteps++;
    if (action == MS_ACTION_ADVANCE) {
        reward += advance(e);
        e->last_reconfig = false;
    } else if (action <= e->C) {
        if (grow_log(e, e->nlog + e->K)) {
            /* Beyond the reservation and out of memory: end the episode as failed. */
            e->done = e->failed = true;
            *done = true;
            return 0;
        }
        env_trans scratch;
        double end = reconfigure(e, env_transition(e, action - 1, &scratch));
        if (e->cfg.direct_reconfig && !e->cfg.async_reconfig) {
            reward -= (end - e->now) / e->scale;
            e->now = end;
        }
        e->last_reconfig = true;
        e->nreconf++;
    } else {
        int a = action - 1 - e->C;
        execute(e, a / e->K, a % e->K);
        e->last_reconfig = false;
    }
    while (!e->done && !has_choice(e)) {
        if (e->nbatch == 0) {
            /* Every task placed: the episode ends with the last task (the makespan), even if
             * an instance is still being created (4.2 reconfigurations). */
            double end = e->last_end > e->now ? e->last_end : e->now;
            reward -= (end - e->now) / e->scale;
            e->now = end;
            e->done = true;
            break;
        }
        reward += advance(e);
        e->last_reconfig = false;
    }
    *done = e->done;
    return reward;
}
