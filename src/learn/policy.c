/* policy.c: the masked categorical distribution (paper 001 4.2: infeasible actions get
 * probability 0) and Adam with gradient clipping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"

float ms_policy_logp(const float *logits, const uint8_t *mask, int n, float *logp)
{
    float mx = -INFINITY;
    for (int a = 0; a < n; a++)
        if (mask[a] && logits[a] > mx)
            mx = logits[a];
    double sum = 0;
    for (int a = 0; a < n; a++)
        if (mask[a])
            sum += exp((double)(logits[a] - mx));
    float lse = mx + (float)log(sum);
    float ent = 0;
    for (int a = 0; a < n; a++) {
        logp[a] = mask[a] ? logits[a] - lse : -INFINITY;
        if (mask[a])
            ent -= expf(logp[a]) * logp[a];
    }
    return ent;
}

int ms_policy_sample(const float *logp, int n, ms_rng *rng)
{
    double u = ms_rng_uniform(rng), acc = 0;
    int last = -1;
    for (int a = 0; a < n; a++) {
        if (logp[a] == -INFINITY)
            continue;
        last = a;
        acc += exp((double)logp[a]);
        if (u < acc)
            return a;
    }
    return last; /* rounding left u above the total */
}

int ms_policy_argmax(const float *logits, const uint8_t *mask, int n)
{
    int best = -1;
    for (int a = 0; a < n; a++)
        if (mask[a] && (best < 0 || logits[a] > logits[best]))
            best = a;
    return best;
}

int ms_adam_init(ms_adam *a, size_t n, float lr, ms_error *err)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->lr = lr;
    a->beta1 = 0.9f;
    a->beta2 = 0.999f;
    a->eps = 1e-5f; /* PyTorch's default is 1e-8; SB3's PPO uses 1e-5 */
    a->m = calloc(n, sizeof(float));
    a->v = calloc(n, sizeof(float));
    if (!a->m || !a->v) {
        ms_adam_fini(a);
        return ms_error_set(err, MS_ENOMEM, "adam: out of memory");
    }
    return MS_OK;
}

void ms_adam_fini(ms_adam *a)
{
    free(a->m);
    free(a->v);
    a->m = a->v = NULL;
}

double ms_sq_sum(const float *g, size_t n)
{
    double part[4] = {0}; /* four running sums in a fixed order: vectorised, deterministic */
    size_t n4 = n / 4 * 4;
    for (size_t i = 0; i < n4; i += 4)
        for (int k = 0; k < 4; k++)
            part[k] += (double)g[i + k] * g[i + k];
    for (size_t i = n4; i < n; i++)
        part[0] += (double)g[i] * g[i];
    return (part[0] + part[1]) + (part[2] + part[3]);
}

float ms_adam_begin(ms_adam *a, float norm, float max_norm)
{
    a->t++;
    return max_norm > 0 && norm > max_norm ? max_norm / (norm + 1e-6f) : 1.0f;
}

void ms_adam_apply(ms_adam *a, float *params, const float *grad, float scale, size_t lo, size_t hi)
{
    float c1 = 1.0f - powf(a->beta1, (float)a->t), c2 = 1.0f - powf(a->beta2, (float)a->t);
    float step = a->lr * sqrtf(c2) / c1, eps = a->eps * sqrtf(c2);
    float b1 = a->beta1, b2 = a->beta2;
    float *restrict m = a->m, *restrict v = a->v, *restrict p = params;
    const float *restrict gr = grad;
    for (size_t i = lo; i < hi; i++) {
        float g = gr[i] * scale;
        m[i] = b1 * m[i] + (1.0f - b1) * g;
        v[i] = b2 * v[i] + (1.0f - b2) * g * g;
        p[i] -= step * m[i] / (sqrtf(v[i]) + eps);
    }
}

float ms_adam_step(ms_adam *a, float *params, float *grad, float max_norm)
{
    float norm = (float)sqrt(ms_sq_sum(grad, a->n));
    ms_adam_apply(a, params, grad, ms_adam_begin(a, norm, max_norm), 0, a->n);
    return norm;
}
