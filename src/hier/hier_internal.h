/* hier_internal.h: what the src/hier files share and the public header does not show. */
#ifndef MIGSCHED_HIER_INTERNAL_H
#define MIGSCHED_HIER_INTERNAL_H

#include "migsched/hier.h"

#define HIER_KEY_LEN (48 + MS_HIER_MAX_C * MS_HIER_NAME_LEN + 8)

/* One measured row: key "setup|job1|...|jobC" (jobs in slot order) and per-job times. */
typedef struct hier_corun_row {
    char key[HIER_KEY_LEN];
    double times[MS_HIER_MAX_C];
    long line; /* where it was read, for messages */
} hier_corun_row;

struct ms_hier_corun {
    ms_hier_params par;
    int measured;
    size_t n;
    hier_corun_row *rows; /* sorted by key */
};

void hier_corun_key(const char *setup_id, const char *const *names, int c, char *key, size_t len);
void hier_corun_sort(ms_hier_corun *cr);
const hier_corun_row *hier_corun_find(const ms_hier_corun *cr, const char *key);

/* Next permutation of perm[0..c-1] in lexicographic order; 0 after the last. */
int hier_next_perm(int *perm, int c);
/* 1 when slots k and k+1 of s are identical and perm puts their jobs out of order: that
 * order gives the same times as the sorted one, so only one of them is tried. */
int hier_order_redundant(const ms_hier_setup *s, const int *perm);

/* Table III counters derived from the model parameters (catalogue.c; docs/hier.md). */
void hier_model_counters(ms_hier_profile *p, double grid, double regs);

/* A CSV field as a finite number, blanks around it allowed (number.c); -1 if it is not. */
int hier_parse_number(const char *s, double *v);

/* Least squares by Levenberg-Marquardt (fit_lm.c): minimises the sum of the squares of the
 * nr residuals f(p) over np <= HIER_LM_MAX_P parameters within [lo, hi]; p holds the start
 * and receives the result; returns the final sum of squares. */
#define HIER_LM_MAX_P 16
typedef void (*hier_lm_fn)(const double *p, double *r, void *ctx);
double hier_lm(hier_lm_fn f, void *ctx, int np, int nr, double *p, const double *lo,
               const double *hi);

#endif
