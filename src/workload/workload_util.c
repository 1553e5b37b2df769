/* workload_util.c: name set, time parsing and message helpers shared by the readers. */
#include "workload_internal.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/io.h"

void wl_name_set_init(wl_name_set *s) { memset(s, 0, sizeof *s); }

void wl_name_set_free(wl_name_set *s)
{
    free(s->slot);
    wl_name_set_init(s);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static size_t find_slot(const wl_name_set *s, const char *name, uint64_t h)
{
    size_t i = h & (s->cap - 1);
    while (s->slot[i].key && (s->slot[i].hash != h || strcmp(s->slot[i].key, name)))
        i = (i + 1) & (s->cap - 1);
    return i;
}

/* Rehashes into cap slots (a power of two above twice the keys). */
static int rehash(wl_name_set *s, size_t cap)
{
    struct wl_name_slot *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slot[i].key)
            continue;
        size_t j = s->slot[i].hash & (cap - 1); /* distinct keys: the first free slot */
        while (slot[j].key)
            j = (j + 1) & (cap - 1);
        slot[j] = s->slot[i];
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    return 0;
}

int wl_name_set_reserve(wl_name_set *s, size_t n)
{
    size_t cap = s->cap ? s->cap : 64;
    while (cap < 2 * n)
        cap *= 2;
    return cap > s->cap ? rehash(s, cap) : 0;
}

void wl_name_set_prefetch(const wl_name_set *s, const char *name)
{
    if (s->cap)
        __builtin_prefetch(&s->slot[hash_name(name) & (s->cap - 1)], 1);
}

int wl_name_set_add(wl_name_set *s, const char *name, long where, long *first)
{
    if (2 * (s->n + 1) > s->cap && rehash(s, s->cap ? s->cap * 2 : 64))
        return -1; /* load factor stays <= 1/2 */
    uint64_t h = hash_name(name);
    size_t i = find_slot(s, name, h);
    if (s->slot[i].key) {
        *first = s->slot[i].where;
        return 1;
    }
    s->slot[i] = (struct wl_name_slot){h, name, where};
    s->n++;
    return 0;
}

/* A plain decimal without exponent (digits, at most one point), M / 10^k, read without
 * strtod when that is provably strtod's value; false for anything else (strtod then reads
 * it). With M < 2^53 and k <= 22 both are exact doubles and one division rounds correctly.
 * Where long double has a 64-bit significand (x86), M < 10^19 and k <= 27 are exact long
 * doubles too (5^27 < 2^64), so the long double quotient q is M / 10^k rounded once to 64
 * bits; rounding q to a double is then strtod's rounding unless q lies within one 64-bit
 * ulp of a midpoint between two doubles (its 11 low bits within 1 of 0x400), where the
 * two roundings can differ: strtod decides those (the generators' 17-digit times). */
static bool fast_decimal(const char *text, double *out)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t m = 0;
    int digits = 0, frac = -1; /* frac: digits after the point, -1 before it */
    for (const char *c = text; *c; c++) {
        if (*c == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (*c < '0' || *c > '9' || ++digits > 19)
            return false;
        m = m * 10 + (uint64_t)(*c - '0');
        frac += frac >= 0;
    }
    if (digits == 0)
        return false;
    if (frac < 0)
        frac = 0;
    if (m <= (1ULL << 53) && frac <= 22) {
        *out = (double)m / p10[frac];
        return true;
    }
#if defined(__x86_64__) && LDBL_MANT_DIG == 64
    static const long double p10l[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                       1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                       1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                       1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (frac <= 27 && m) {
        long double q = (long double)m / p10l[frac];
        uint64_t sig; /* the 64-bit significand: the first 8 bytes of x86's format */
        memcpy(&sig, &q, sizeof sig);
        unsigned low = (unsigned)(sig & 0x7ff);
        if (low < 0x3ff || low > 0x401) {
            *out = (double)q;
            return true;
        }
    }
#endif
    return false;
}

int wl_parse_time(const char *text, double *out, const char **why)
{
    bool word = !isdigit((unsigned char)text[0]) && text[0] != '.'; /* inf, nan, ... */
    if (!*text || (word && (!strcasecmp(text, "inf") || !strcasecmp(text, "infinity") ||
                            !strcasecmp(text, "+inf")))) {
        *out = INFINITY;
        return 0;
    }
    if (word &&
        (!strcasecmp(text, "nan") || !strcasecmp(text, "-nan") || !strcasecmp(text, "+nan"))) {
        *why = "is not a number (NaN)";
        return -1;
    }
    /* Plain decimal only: strtod alone would also take hex floats and trailing junk. */
    for (const char *c = text; *c; c++)
        if (!isdigit((unsigned char)*c) && !strchr(".eE+-", *c)) {
            *why = "is not a number";
            return -1;
        }
    char *end = (char *)"";
    double x;
    errno = 0;
    if (!fast_decimal(text, &x))
        x = strtod(text, &end);
    if (end == text || *end) {
        *why = "is not a number";
        return -1;
    }
    if (errno == ERANGE && fabs(x) > 1.0) {
        *why = "is out of range";
        return -1;
    }
    if (x < 0 || (x == 0 && text[0] == '-')) {
        *why = "is negative (times must be positive seconds)";
        return -1;
    }
    if (x == 0) {
        *why = "is zero (times must be positive seconds)";
        return -1;
    }
    if ((*why = ms_time_check(x)))
        return -1;
    *out = x;
    return 0;
}

const char *wl_quote(const char *text, char *buf, size_t len)
{
    size_t n = 0, max = len > 8 ? len - 4 : 0;
    for (const char *c = text; *c && n < max; c++)
        buf[n++] = isprint((unsigned char)*c) || (unsigned char)*c >= 0x80 ? *c
                                                                           : '?'; /* keep UTF-8 */
    if (n == max && text[n]) {
        memcpy(buf + n, "...", 4);
        return buf;
    }
    buf[n] = '\0';
    return buf;
}

const char *wl_sizes_text(const ms_gpu_model *gpu, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < gpu->nsizes && used + 4 < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", k ? "," : "", gpu->sizes[k]);
    return buf;
}

int wl_task_fits(const double *time, const ms_gpu_model *gpu)
{
    if (!gpu) {
        for (int s = 1; s <= MS_MAX_SLICES; s++)
            if (isfinite(time[s]))
                return 1;
        return 0;
    }
    for (int k = 0; k < gpu->nsizes; k++)
        if (isfinite(time[gpu->sizes[k]]))
            return 1;
    return 0;
}

void wl_format_double(double x, char *buf, size_t len)
{
    if (isinf(x)) {
        snprintf(buf, len, "inf");
        return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

int wl_columns(const ms_workload *w, const ms_gpu_model *gpu, int size[MS_MAX_SLICES])
{
    int n = 0;
    if (gpu) {
        for (int k = 0; k < gpu->nsizes; k++)
            size[n++] = gpu->sizes[k];
        return n;
    }
    for (int s = 1; s <= MS_MAX_SLICES; s++)
        for (int i = 0; i < w->n; i++)
            if (isfinite(w->tasks[i].time[s])) {
                size[n++] = s;
                break;
            }
    return n;
}
