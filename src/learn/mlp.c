/* mlp.c: a multilayer perceptron (tanh or ReLU hidden layers, an action head and a value
 * head) whose matrix products are OpenBLAS cblas_sgemm calls (blas.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"
#include "migsched/learn.h"

/* Layers: the hidden layers, the policy head, the value head, and with separate networks
 * the value network's own hidden layers after them. */
static int nlayers(const ms_mlp *m) { return m->nhidden * (m->separate ? 2 : 1) + 2; }

/* Layer l's input and output widths. */
static void layer_dims(const ms_mlp *m, int l, int *in, int *out)
{
    int last = m->hidden[m->nhidden - 1];
    if (l < m->nhidden || l >= m->nhidden + 2) {
        int j = l < m->nhidden ? l : l - m->nhidden - 2;
        *in = j == 0 ? m->in : m->hidden[j - 1];
        *out = m->hidden[j];
    } else {
        *in = last;
        *out = l == m->nhidden ? m->nact : 1;
    }
}

int ms_mlp_shape_sep(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, bool separate,
                     ms_error *err)
{
    memset(m, 0, sizeof *m);
    if (in < 1 || nact < 1 || nhidden < 1 || nhidden > MS_MLP_MAX_HIDDEN)
        return ms_error_set(err, MS_EINVAL, "mlp: need 1..%d hidden layers", MS_MLP_MAX_HIDDEN);
    if (learn_blas_load(err)) /* every network computes through OpenBLAS */
        return err ? err->code : MS_EINVAL;
    m->in = in;
    m->nact = nact;
    m->nhidden = nhidden;
    m->separate = separate;
    for (int l = 0; l < nhidden; l++) {
        if (hidden[l] < 1 || hidden[l] > 65536)
            return ms_error_set(err, MS_EINVAL, "mlp: hidden width %d out of range", hidden[l]);
        m->hidden[l] = hidden[l];
    }
    size_t n = 0;
    for (int l = 0; l < nlayers(m); l++) {
        int a, b;
        layer_dims(m, l, &a, &b);
        m->w_off[l] = n;
        n += (size_t)a * (size_t)b;
        m->b_off[l] = n;
        n += (size_t)b;
    }
    m->nparams = n;
    return MS_OK;
}

int ms_mlp_shape(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, ms_error *err)
{
    return ms_mlp_shape_sep(m, in, nhidden, hidden, nact, false, err);
}

int ms_mlp_init_sep(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, bool separate,
                    ms_rng *rng, ms_error *err)
{
    int rc = ms_mlp_shape_sep(m, in, nhidden, hidden, nact, separate, err);
    if (rc)
        return rc;
    size_t n = m->nparams;
    m->params = calloc(n, sizeof(float));
    if (!m->params)
        return ms_error_set(err, MS_ENOMEM, "mlp: out of memory");
    /* Scaled normal weights (gain sqrt(2) hidden, 0.01 policy, 1 value, as SB3 uses with
     * orthogonal init); zero biases. */
    for (int l = 0; l < nlayers(m); l++) {
        int a, b;
        layer_dims(m, l, &a, &b);
        double gain = l == nhidden ? 0.01 : l == nhidden + 1 ? 1.0 : sqrt(2.0);
        double sd = gain / sqrt((double)a);
        for (size_t i = 0; i < (size_t)a * (size_t)b; i++)
            m->params[m->w_off[l] + i] = (float)ms_rng_normal(rng, 0, sd);
    }
    return MS_OK;
}

int ms_mlp_init(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, ms_rng *rng,
                ms_error *err)
{
    return ms_mlp_init_sep(m, in, nhidden, hidden, nact, false, rng, err);
}

void ms_mlp_fini(ms_mlp *m)
{
    free(m->params);
    m->params = NULL;
}

int ms_mlp_work_init(ms_mlp_work *w, const ms_mlp *m, int cap, ms_error *err)
{
    memset(w, 0, sizeof *w);
    w->cap = cap;
    bool ok = true;
    for (int l = 0; l < m->nhidden * (m->separate ? 2 : 1); l++) {
        int width = m->hidden[l % m->nhidden];
        w->act[l] = malloc((size_t)cap * (size_t)width * sizeof(float));
        w->delta[l] = malloc((size_t)cap * (size_t)width * sizeof(float));
        ok &= w->act[l] && w->delta[l];
    }
    w->logits = malloc((size_t)cap * (size_t)m->nact * sizeof(float));
    w->value = malloc((size_t)cap * sizeof(float));
    if (!ok || !w->logits || !w->value) {
        ms_mlp_work_fini(w);
        return ms_error_set(err, MS_ENOMEM, "mlp: out of memory");
    }
    return MS_OK;
}

void ms_mlp_work_fini(ms_mlp_work *w)
{
    for (int l = 0; l < 2 * MS_MLP_MAX_HIDDEN; l++) {
        free(w->act[l]);
        free(w->delta[l]);
    }
    free(w->logits);
    free(w->value);
    memset(w, 0, sizeof *w);
}

/* tanh as a rational function (Eigen's 13/6 approximant, clamped): within 4e-7 of tanh and
 * never above 1 in magnitude; unlike glibc's tanhf (expm1f inside, a third of training's
 * time) the loops over it vectorise. */
static inline float tanh_fast(float x)
{
    const float c = 7.90531110763549805f;
    float xc = x < -c ? -c : x > c ? c : x, x2 = xc * xc;
    float p = -2.76076847742355e-16f;
    p = p * x2 + 2.00018790482477e-13f;
    p = p * x2 + -8.60467152213735e-11f;
    p = p * x2 + 5.12229709037114e-08f;
    p = p * x2 + 1.48572235717979e-05f;
    p = p * x2 + 6.37261928875436e-04f;
    p = p * x2 + 4.89352455891786e-03f;
    float q = 1.19825839466702e-06f;
    q = q * x2 + 1.18534705686654e-04f;
    q = q * x2 + 2.26843463243900e-03f;
    q = q * x2 + 4.89352518554385e-03f;
    return p * xc / q;
}

/* y (rows x out) = x (rows x in) W^T + b. */
static void affine(const ms_mlp *m, int l, const float *x, int rows, float *y)
{
    int in, out;
    layer_dims(m, l, &in, &out);
    const float *b = m->params + m->b_off[l];
    for (int r = 0; r < rows; r++)
        memcpy(y + (size_t)r * out, b, (size_t)out * sizeof(float));
    learn_blas_sgemm(false, true, rows, out, in, x, in, m->params + m->w_off[l], in, y, out);
}

/* The hidden layers of one trunk: layers first.. (numbered as layer_dims does), their
 * activations into act[0..nhidden). Returns the last one. */
static const float *trunk_forward(const ms_mlp *m, int first, float *const *act, const float *x,
                                  int rows)
{
    const float *h = x;
    for (int j = 0; j < m->nhidden; j++) {
        affine(m, first + j, h, rows, act[j]);
        size_t n = (size_t)rows * (size_t)m->hidden[j];
        float *a = act[j];
        if (m->activation == MS_ACT_RELU)
            for (size_t i = 0; i < n; i++)
                a[i] = a[i] > 0 ? a[i] : 0;
        else
            for (size_t i = 0; i < n; i++)
                a[i] = tanh_fast(a[i]);
        h = a;
    }
    return h;
}

void ms_mlp_forward_policy(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows)
{
    affine(m, m->nhidden, trunk_forward(m, 0, w->act, x, rows), rows, w->logits);
}

void ms_mlp_forward(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows)
{
    ms_mlp_forward_policy(m, w, x, rows);
    const float *h = w->act[m->nhidden - 1];
    if (m->separate)
        h = trunk_forward(m, m->nhidden + 2, w->act + m->nhidden, x, rows);
    affine(m, m->nhidden + 1, h, rows, w->value);
}

/* grad(W) += dy^T x, grad(b) += column sums of dy; dx (if not NULL) += dy W. */
static void affine_back(const ms_mlp *m, int l, const float *x, const float *dy, int rows,
                        float *grad, float *dx)
{
    int in, out;
    layer_dims(m, l, &in, &out);
    learn_blas_sgemm(true, false, out, in, rows, dy, out, x, in, grad + m->w_off[l], in);
    float *gb = grad + m->b_off[l];
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < out; j++)
            gb[j] += dy[(size_t)r * out + j];
    if (dx)
        learn_blas_sgemm(false, false, rows, in, out, dy, out, m->params + m->w_off[l], in, dx, in);
}

/* Back through one trunk (layers first.., activations act, deltas delta whose top one
 * holds d(loss)/d(output of the last hidden layer)). */
static void trunk_backward(const ms_mlp *m, int first, float *const *act, float *const *delta,
                           const float *x, int rows, float *grad)
{
    for (int j = m->nhidden - 1; j >= 0; j--) {
        size_t n = (size_t)rows * (size_t)m->hidden[j];
        const float *a = act[j];
        float *d = delta[j];
        if (m->activation == MS_ACT_RELU)
            for (size_t i = 0; i < n; i++)
                d[i] = a[i] > 0 ? d[i] : 0;
        else
            for (size_t i = 0; i < n; i++)
                d[i] *= 1.0f - a[i] * a[i];
        float *dx = NULL;
        if (j > 0) {
            dx = delta[j - 1];
            memset(dx, 0, (size_t)rows * (size_t)m->hidden[j - 1] * sizeof(float));
        }
        affine_back(m, first + j, j == 0 ? x : act[j - 1], delta[j], rows, grad, dx);
    }
}

void ms_mlp_backward(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows,
                     const float *dlogits, const float *dvalue, float *grad)
{
    int top = m->nhidden - 1, vtop = m->separate ? top + m->nhidden : top;
    size_t n = (size_t)rows * (size_t)m->hidden[top];
    memset(w->delta[top], 0, n * sizeof(float));
    if (m->separate)
        memset(w->delta[vtop], 0, n * sizeof(float));
    affine_back(m, m->nhidden, w->act[top], dlogits, rows, grad, w->delta[top]);
    affine_back(m, m->nhidden + 1, w->act[vtop], dvalue, rows, grad, w->delta[vtop]);
    trunk_backward(m, 0, w->act, w->delta, x, rows, grad);
    if (m->separate)
        trunk_backward(m, m->nhidden + 2, w->act + m->nhidden, w->delta + m->nhidden, x, rows,
                       grad);
}
