/* setup.c: the partition setups of paper 004 Table VII, their V-A5 notation and their ids. */
#include "migsched/hier.h"

#include <stdio.h>
#include <string.h>

const char *ms_hier_layout_name(ms_hier_layout l)
{
    static const char *const names[] = {"nomig", "shared", "private"};
    return names[l];
}

/* Shapes: no MIG (one CI of 8 GPCs), or MIG 3g + 4g CIs, in one GI (shared) or two. */
static void shape(ms_hier_setup *s, int family, ms_hier_layout layout)
{
    memset(s, 0, sizeof *s);
    s->family = family;
    s->layout = layout;
    if (layout == MS_HIER_NOMIG) {
        s->n_ci = 1;
        s->ci[0] = (ms_hier_ci){.gi = 0, .gpcs = 8, .mem8 = 8};
    } else {
        s->n_ci = 2;
        int priv = layout == MS_HIER_PRIVATE;
        s->ci[0] = (ms_hier_ci){.gi = 0, .gpcs = 3, .mem8 = priv ? 4 : 8};
        s->ci[1] = (ms_hier_ci){.gi = priv, .gpcs = 4, .mem8 = priv ? 4 : 8};
    }
}

static void add_client(ms_hier_setup *s, int ci, int pct)
{
    s->slot[s->c++] = (ms_hier_slot){.ci = ci, .pct = pct};
}

/* Id: "<layout>:" then, per CI, its clients' percentages joined by '+' ("def" = default);
 * with MIG each CI is written "<gpcs>g(...)": "private:3g(100)+4g(10+90)". */
static void make_id(ms_hier_setup *s)
{
    size_t len = sizeof s->id, at = 0;
    const char *head = s->family == MS_HIER_FAM_SOLO ? "solo"
                       : s->layout == MS_HIER_NOMIG  ? "mps"
                                                     : ms_hier_layout_name(s->layout);
    at += (size_t)snprintf(s->id + at, len - at, "%s", head);
    if (s->family == MS_HIER_FAM_SOLO)
        return;
    at += (size_t)snprintf(s->id + at, len - at, ":");
    for (int ci = 0; ci < s->n_ci; ci++) {
        if (s->layout != MS_HIER_NOMIG)
            at += (size_t)snprintf(s->id + at, len - at, "%s%dg(", ci ? "+" : "", s->ci[ci].gpcs);
        int first = 1;
        for (int k = 0; k < s->c; k++) {
            if (s->slot[k].ci != ci)
                continue;
            if (s->slot[k].pct > 0)
                at += (size_t)snprintf(s->id + at, len - at, "%s%d", first ? "" : "+",
                                       s->slot[k].pct);
            else
                at += (size_t)snprintf(s->id + at, len - at, "%sdef", first ? "" : "+");
            first = 0;
        }
        if (s->layout != MS_HIER_NOMIG)
            at += (size_t)snprintf(s->id + at, len - at, ")");
    }
}

static size_t emit(const ms_hier_setup *s, ms_hier_setup *out, size_t cap, size_t n)
{
    if (out && n < cap) {
        out[n] = *s;
        make_id(&out[n]);
    }
    return n + 1;
}

/* Splits of 100% over c clients at 10% steps, non-decreasing (the order of the jobs in a
 * group covers the other orders); writes up to cap of them and returns how many exist. */
static size_t mps_splits(int c, int parts[][MS_HIER_MAX_C], size_t cap)
{
    size_t n = 0;
    int p[MS_HIER_MAX_C];
    /* c <= 4: nested loops over non-decreasing tenths summing to 10. */
    for (p[0] = 1; p[0] <= 10; p[0]++)
        for (p[1] = c > 1 ? p[0] : 0; p[1] <= (c > 1 ? 10 : 0); p[1]++)
            for (p[2] = c > 2 ? p[1] : 0; p[2] <= (c > 2 ? 10 : 0); p[2]++)
                for (p[3] = c > 3 ? p[2] : 0; p[3] <= (c > 3 ? 10 : 0); p[3]++) {
                    if (p[0] + p[1] + p[2] + p[3] != 10)
                        continue;
                    if (n < cap)
                        for (int k = 0; k < c; k++)
                            parts[n][k] = p[k] * 10;
                    n++;
                }
    return n;
}

/* Table VII, MPS only: 10% steps plus the equal split (0.34+0.33+0.33, 0.25 x 4). */
static size_t mps_only(int c, ms_hier_setup *out, size_t cap, size_t n)
{
    int parts[16][MS_HIER_MAX_C];
    size_t np = mps_splits(c, parts, 16);
    for (size_t i = 0; i < np; i++) {
        ms_hier_setup s;
        shape(&s, MS_HIER_FAM_MPS, MS_HIER_NOMIG);
        for (int k = 0; k < c; k++)
            add_client(&s, 0, parts[i][k]);
        n = emit(&s, out, cap, n);
    }
    if (100 % (c * 10) != 0) { /* the equal split is off the 10% grid */
        ms_hier_setup s;
        shape(&s, MS_HIER_FAM_MPS, MS_HIER_NOMIG);
        for (int k = 0; k < c; k++)
            add_client(&s, 0, 100 / c + (k < 100 % c));
        n = emit(&s, out, cap, n);
    }
    return n;
}

size_t ms_hier_setups_for(int c, int families, ms_hier_setup *out, size_t cap)
{
    size_t n = 0;
    ms_hier_setup s;
    if (c < 1 || c > MS_HIER_MAX_C)
        return 0;
    if (c == 1) {
        if (families & MS_HIER_FAM_SOLO) {
            shape(&s, MS_HIER_FAM_SOLO, MS_HIER_NOMIG);
            add_client(&s, 0, 100);
            n = emit(&s, out, cap, n);
        }
        return n;
    }
    if (families & MS_HIER_FAM_MPS)
        n = mps_only(c, out, cap, n);
    if ((families & MS_HIER_FAM_MIG) && c == 2)
        for (ms_hier_layout l = MS_HIER_SHARED; l <= MS_HIER_PRIVATE; l++) {
            shape(&s, MS_HIER_FAM_MIG, l);
            add_client(&s, 0, 100);
            add_client(&s, 1, 100);
            n = emit(&s, out, cap, n);
        }
    if ((families & MS_HIER_FAM_HIER) && c >= 3) {
        int two[8][MS_HIER_MAX_C];
        size_t n2 = mps_splits(2, two, 8);
        for (ms_hier_layout l = MS_HIER_PRIVATE; l >= MS_HIER_SHARED; l--) {
            if (c == 3) /* the 3g CI alone, two MPS clients in the 4g CI */
                for (size_t i = 0; i < n2; i++) {
                    shape(&s, MS_HIER_FAM_HIER, l);
                    add_client(&s, 0, 100);
                    add_client(&s, 1, two[i][0]);
                    add_client(&s, 1, two[i][1]);
                    n = emit(&s, out, cap, n);
                }
            else /* two MPS clients in each CI: every pair of splits */
                for (size_t i = 0; i < n2; i++)
                    for (size_t j = 0; j < n2; j++) {
                        shape(&s, MS_HIER_FAM_HIER, l);
                        add_client(&s, 0, two[i][0]);
                        add_client(&s, 0, two[i][1]);
                        add_client(&s, 1, two[j][0]);
                        add_client(&s, 1, two[j][1]);
                        n = emit(&s, out, cap, n);
                    }
        }
    }
    if (families & MS_HIER_FAM_DEFAULT)
        for (ms_hier_layout l = MS_HIER_NOMIG; l <= MS_HIER_PRIVATE; l++) {
            size_t k = ms_hier_default_setups(c, l, out ? out + (n < cap ? n : cap) : NULL,
                                              n < cap ? cap - n : 0);
            n += k;
        }
    return n;
}

size_t ms_hier_default_setups(int c, ms_hier_layout layout, ms_hier_setup *out, size_t cap)
{
    size_t n = 0;
    ms_hier_setup s;
    if (c < 2 || c > MS_HIER_MAX_C)
        return 0;
    if (layout == MS_HIER_NOMIG) {
        shape(&s, MS_HIER_FAM_DEFAULT, layout);
        for (int k = 0; k < c; k++)
            add_client(&s, 0, 0);
        return emit(&s, out, cap, n);
    }
    /* a clients in the 3g CI, c - a in the 4g CI, both CIs used */
    for (int a = 1; a < c; a++) {
        shape(&s, MS_HIER_FAM_DEFAULT, layout);
        for (int k = 0; k < c; k++)
            add_client(&s, k < a ? 0 : 1, 0);
        n = emit(&s, out, cap, n);
    }
    return n;
}

int ms_hier_setup_by_id(const char *id, ms_hier_setup *out)
{
    ms_hier_setup all[128];
    int fams = MS_HIER_FAM_SOLO | MS_HIER_FAM_TABLE7 | MS_HIER_FAM_DEFAULT;
    for (int c = 1; c <= MS_HIER_MAX_C; c++) {
        size_t n = ms_hier_setups_for(c, fams, all, 128);
        for (size_t i = 0; i < n; i++)
            if (strcmp(all[i].id, id) == 0) {
                *out = all[i];
                return 0;
            }
    }
    return -1;
}

/* A client's share as V-A5 prints it: a fraction ("0.1", "0.34"); default MPS is "def". */
static size_t put_pct(char *buf, size_t len, int pct)
{
    if (pct == 0)
        return (size_t)snprintf(buf, len, "(def)");
    return (size_t)snprintf(buf, len, "(%g)", pct / 100.0);
}

/* One CI: a sole full client is "{(beta)}"; several clients "(p)+(p)" then "{beta}",
 * separated by ", " when the CI is alone in its GI (Table VII's private rows) and glued
 * when it shares the GI with another CI (its shared rows). */
static size_t put_ci(const ms_hier_setup *s, int ci, int alone, char *buf, size_t len)
{
    size_t at = 0;
    int n = 0, only = -1;
    for (int k = 0; k < s->c; k++)
        if (s->slot[k].ci == ci) {
            n++;
            only = k;
        }
    double beta = s->ci[ci].gpcs / 8.0;
    if (n == 1 && s->slot[only].pct == 100)
        return (size_t)snprintf(buf, len, "{(%g)}", beta);
    int first = 1;
    for (int k = 0; k < s->c; k++) {
        if (s->slot[k].ci != ci)
            continue;
        if (!first)
            at += (size_t)snprintf(buf + at, len - at, "+");
        at += put_pct(buf + at, len - at, s->slot[k].pct);
        first = 0;
    }
    at += (size_t)snprintf(buf + at, len - at, "%s{%g}", alone ? ", " : "", beta);
    return at;
}

void ms_hier_setup_notation(const ms_hier_setup *s, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    if (s->layout == MS_HIER_NOMIG) { /* the whole GPU: MPS clients only */
        at += (size_t)snprintf(buf + at, len - at, "[");
        for (int k = 0; k < s->c && at < len; k++) {
            if (k)
                at += (size_t)snprintf(buf + at, len - at, "+");
            at += put_pct(buf + at, len - at, s->slot[k].pct);
        }
        snprintf(buf + at, at < len ? len - at : 0, ", 1m]");
        return;
    }
    if (s->layout == MS_HIER_SHARED) {
        at += (size_t)snprintf(buf + at, len - at, "[");
        at += put_ci(s, 0, 0, buf + at, len - at);
        at += (size_t)snprintf(buf + at, len - at, " + ");
        at += put_ci(s, 1, 0, buf + at, len - at);
        snprintf(buf + at, at < len ? len - at : 0, ", 1m]");
        return;
    }
    for (int ci = 0; ci < 2 && at < len; ci++) {
        at += (size_t)snprintf(buf + at, len - at, "%s[", ci ? " + " : "");
        at += put_ci(s, ci, 1, buf + at, len - at);
        at += (size_t)snprintf(buf + at, len - at, ", %gm]", ms_hier_gi_mem(s, ci));
    }
}
