/* real_text.c: doubles as the schedule JSON writes them (shortest round trip per line, in
 * jansson's text), with exact integer arithmetic instead of printf and strtod passes: a
 * schedule of 10^6 tasks holds millions of them. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule_internal.h"

__extension__ typedef unsigned __int128 u128;

/* 10^0 .. 10^38 (10^38 < 2^127), a table: exact_digits and nearest_exact ask for several
 * per real, millions of reals per schedule. */
#define P10(hi, lo) (((u128)(hi) << 64) | (lo))
static const u128 pow10_table[39] = {
    P10(0x0ULL, 0x1ULL),                              /* 1e0 */
    P10(0x0ULL, 0xaULL),                              /* 1e1 */
    P10(0x0ULL, 0x64ULL),                             /* 1e2 */
    P10(0x0ULL, 0x3e8ULL),                            /* 1e3 */
    P10(0x0ULL, 0x2710ULL),                           /* 1e4 */
    P10(0x0ULL, 0x186a0ULL),                          /* 1e5 */
    P10(0x0ULL, 0xf4240ULL),                          /* 1e6 */
    P10(0x0ULL, 0x989680ULL),                         /* 1e7 */
    P10(0x0ULL, 0x5f5e100ULL),                        /* 1e8 */
    P10(0x0ULL, 0x3b9aca00ULL),                       /* 1e9 */
    P10(0x0ULL, 0x2540be400ULL),                      /* 1e10 */
    P10(0x0ULL, 0x174876e800ULL),                     /* 1e11 */
    P10(0x0ULL, 0xe8d4a51000ULL),                     /* 1e12 */
    P10(0x0ULL, 0x9184e72a000ULL),                    /* 1e13 */
    P10(0x0ULL, 0x5af3107a4000ULL),                   /* 1e14 */
    P10(0x0ULL, 0x38d7ea4c68000ULL),                  /* 1e15 */
    P10(0x0ULL, 0x2386f26fc10000ULL),                 /* 1e16 */
    P10(0x0ULL, 0x16345785d8a0000ULL),                /* 1e17 */
    P10(0x0ULL, 0xde0b6b3a7640000ULL),                /* 1e18 */
    P10(0x0ULL, 0x8ac7230489e80000ULL),               /* 1e19 */
    P10(0x5ULL, 0x6bc75e2d63100000ULL),               /* 1e20 */
    P10(0x36ULL, 0x35c9adc5dea00000ULL),              /* 1e21 */
    P10(0x21eULL, 0x19e0c9bab2400000ULL),             /* 1e22 */
    P10(0x152dULL, 0x2c7e14af6800000ULL),             /* 1e23 */
    P10(0xd3c2ULL, 0x1bcecceda1000000ULL),            /* 1e24 */
    P10(0x84595ULL, 0x161401484a000000ULL),           /* 1e25 */
    P10(0x52b7d2ULL, 0xdcc80cd2e4000000ULL),          /* 1e26 */
    P10(0x33b2e3cULL, 0x9fd0803ce8000000ULL),         /* 1e27 */
    P10(0x204fce5eULL, 0x3e25026110000000ULL),        /* 1e28 */
    P10(0x1431e0faeULL, 0x6d7217caa0000000ULL),       /* 1e29 */
    P10(0xc9f2c9cd0ULL, 0x4674edea40000000ULL),       /* 1e30 */
    P10(0x7e37be2022ULL, 0xc0914b2680000000ULL),      /* 1e31 */
    P10(0x4ee2d6d415bULL, 0x85acef8100000000ULL),     /* 1e32 */
    P10(0x314dc6448d93ULL, 0x38c15b0a00000000ULL),    /* 1e33 */
    P10(0x1ed09bead87c0ULL, 0x378d8e6400000000ULL),   /* 1e34 */
    P10(0x13426172c74d82ULL, 0x2b878fe800000000ULL),  /* 1e35 */
    P10(0xc097ce7bc90715ULL, 0xb34b9f1000000000ULL),  /* 1e36 */
    P10(0x785ee10d5da46d9ULL, 0xf436a000000000ULL),   /* 1e37 */
    P10(0x4b3b4ca85a86c47aULL, 0x98a224000000000ULL), /* 1e38 */
};
#undef P10

static u128 pow10_128(int k) { return pow10_table[k]; }

static int bits128(u128 v)
{
    int b = 0;
    for (; v >> 64; v >>= 64)
        b += 64;
    uint64_t lo = (uint64_t)v;
    return lo ? b + 64 - __builtin_clzll(lo) : b;
}

/* x > 0, normal: D (p digits, 10^(p-1) <= D < 10^p) and X such that D * 10^(X - p + 1) is x
 * rounded to p significant digits, ties to even as glibc's printf rounds; false when the
 * numbers do not fit 128 bits (the caller then asks printf). */
static bool exact_digits(double x, int p, uint64_t *D, int *X)
{
    int ex;
    double f = frexp(x, &ex);
    uint64_t m = (uint64_t)ldexp(f, 53); /* x = m * 2^e, exactly */
    int e = ex - 53;
    int x10 = (int)floor(log10(x)); /* may be one off: corrected below */
    for (int tries = 0; tries < 4; tries++) {
        int q = p - 1 - x10;
        int up2 = e > 0 ? e : 0, down2 = e < 0 ? -e : 0;
        int up10 = q > 0 ? q : 0, down10 = q < 0 ? -q : 0;
        if (up10 > 38 || down10 > 38)
            return false;
        u128 p10u = pow10_128(up10), p10d = pow10_128(down10);
        if (53 + up2 + bits128(p10u) > 126 || down2 + bits128(p10d) > 125)
            return false;
        u128 num = ((u128)m << up2) * p10u, d, r, den;
        if (down10 == 0) { /* a power of two below: shifts */
            d = num >> down2;
            r = num - (d << down2);
            den = (u128)1 << down2;
        } else {
            den = p10d << down2;
            d = num / den;
            r = num - d * den;
        }
        if (d >= pow10_128(p)) { /* x10 too small or too large: x * 10^q truncated */
            x10++;               /* must have p digits */
            continue;
        }
        if (d < pow10_128(p - 1)) {
            x10--;
            continue;
        }
        if (2 * r > den || (2 * r == den && (d & 1)))
            d++;
        if (d == pow10_128(p)) { /* rounded up to the next power of ten */
            d /= 10;
            x10++;
        }
        *D = (uint64_t)d;
        *X = x10;
        return true;
    }
    return false;
}

/* |x| (finite, nonzero) to p significant digits: D and X as above. */
static void digits(double x, int p, uint64_t *D, int *X)
{
    x = fabs(x);
    if (x >= DBL_MIN && exact_digits(x, p, D, X))
        return;
    char buf[48], *end;
    snprintf(buf, sizeof buf, "%.*e", p - 1, x); /* d.ddde[+-]XX */
    uint64_t d = 0;
    for (const char *c = buf; *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            d = d * 10 + (uint64_t)(*c - '0');
    *D = d;
    *X = (int)strtol(strchr(buf, 'e') + 1, &end, 10);
}

/* Whether D * 10^k (D < 10^17) is nearer to x = m * 2^e (normal, m < 2^53) than to any
 * other double, i.e. strtod reads it back as x, decided exactly: with A = D 10^k, B = x
 * and H = half the gap to x's neighbours, all scaled to integers, |A - B| < H (= H: ties
 * to even m); below a power of two the gap is half as wide. -1: too wide for 128 bits. */
static int nearest_exact(double x, uint64_t D, int k)
{
    int ex;
    uint64_t m = (uint64_t)ldexp(frexp(x, &ex), 53);
    int e = ex - 53;
    int a = k > 0 ? k : 0, d = k < 0 ? -k : 0, b = (e < 0 ? -e : 0) + 1, c = (e > 0 ? e : 0) + 1;
    if (a > 38 || d > 38)
        return -1;
    u128 pa = pow10_128(a), pd = pow10_128(d);
    if (57 + bits128(pa) + b > 125 || 53 + c + bits128(pd) > 125)
        return -1;
    u128 A = ((u128)D * pa) << b, B = ((u128)m * pd) << c, H = pd << (c - 1);
    bool even = !(m & 1);
    if (A >= B)
        return A - B < H || (A - B == H && even);
    if (m == 1ULL << 52)
        return 2 * (B - A) <= H; /* the tie goes to x, whose m is even */
    return B - A < H || (B - A == H && even);
}

/* Whether D * 10^(X - p + 1) reads back as |x|, as strtod would read it: exactly in
 * integers where they fit 128 bits, else by strtod. */
static bool round_trips(double x, uint64_t D, int X, int p)
{
    int k = X - p + 1;
    int r = fabs(x) >= DBL_MIN ? nearest_exact(fabs(x), D, k) : -1;
    if (r >= 0)
        return r;
    char buf[48];
    snprintf(buf, sizeof buf, "%" PRIu64 "e%d", D, k);
    return strtod(buf, NULL) == fabs(x);
}

static int trailing_zeros(uint64_t D)
{
    int z = 0;
    for (; D % 10 == 0 && D; D /= 10)
        z++;
    return z;
}

/* Round-tripping is monotone in p, so %.16g failing means 17 (schedule times are mostly 16
 * or 17 digits: this test comes first). For a normal double, if some p <= 15 digits
 * round-trip, its 15-digit rounding is those digits padded with zeros (a double's half ulp
 * is below half the spacing of 15-digit decimals), so one more test finds every p up to 16. */
int real_digits(double x)
{
    if (x == 0 || !isfinite(x))
        return 1;
    uint64_t D;
    int X;
    if (fabs(x) < DBL_MIN) { /* subnormal: fewer bits, so try every p */
        for (int p = 1; p < 17; p++) {
            digits(x, p, &D, &X);
            if (round_trips(x, D, X, p))
                return p;
        }
        return 17;
    }
    digits(x, 16, &D, &X);
    if (!round_trips(x, D, X, 16))
        return 17;
    digits(x, 15, &D, &X);
    return round_trips(x, D, X, 15) ? 15 - trailing_zeros(D) : 16;
}

static char *put_uint(char *o, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n > 0)
        *o++ = tmp[--n];
    return o;
}

/* "%.{p}g" of x as jansson writes a real: ".0" added when neither a point nor an exponent
 * shows, the exponent without '+' and leading zeros. */
int real_text(double x, int p, char *out)
{
    char *o = out;
    if (signbit(x))
        *o++ = '-';
    if (x == 0) {
        memcpy(o, "0.0", 4);
        return (int)(o + 3 - out);
    }
    uint64_t D;
    int X;
    digits(x, p, &D, &X);
    int len = p - trailing_zeros(D);
    for (int z = p - len; z > 0; z--)
        D /= 10;
    char s[24];
    put_uint(s, D);         /* len digits */
    if (X < -4 || X >= p) { /* style e */
        *o++ = s[0];
        if (len > 1) {
            *o++ = '.';
            memcpy(o, s + 1, (size_t)len - 1);
            o += len - 1;
        }
        *o++ = 'e';
        if (X < 0)
            *o++ = '-';
        o = put_uint(o, (uint64_t)(X < 0 ? -X : X));
    } else if (X >= 0) { /* style f, an integer part of X + 1 digits */
        for (int i = 0; i <= X; i++)
            *o++ = i < len ? s[i] : '0';
        *o++ = '.';
        if (len > X + 1) {
            memcpy(o, s + X + 1, (size_t)(len - X - 1));
            o += len - X - 1;
        } else {
            *o++ = '0';
        }
    } else { /* style f below 1: 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = -1; i > X; i--)
            *o++ = '0';
        memcpy(o, s, (size_t)len);
        o += len;
    }
    *o = '\0';
    return (int)(o - out);
}
