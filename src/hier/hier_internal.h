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

/* Table III counters derived from the model parameters (catalogue.c; docs/hier.md). */
void hier_model_counters(ms_hier_profile *p, double grid, double regs);

#endif
