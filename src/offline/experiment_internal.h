/* experiment_internal.h: the papers' experiment tables as data plus one function each. */
#ifndef MIGSCHED_EXPERIMENT_INTERNAL_H
#define MIGSCHED_EXPERIMENT_INTERNAL_H

#include "migsched/offline.h"

/* Computes one repetition of one cell into vals[0..nvalues). */
typedef int (*exp_unit_fn)(const ms_experiment *e, const ms_gen_params *params, int n, ms_rng *rng,
                           double *vals, ms_error *err);

typedef struct exp_table {
    const char *name;
    int nvalues;
    const char *const *value_names;
    exp_unit_fn unit;
    const char *rows; /* default rows, ';'-separated */
    const char *n;    /* default task counts, ','-separated */
    int reps, batch, batches;
} exp_table;

const exp_table *exp_table_find(const char *name);
void exp_table_rows(const exp_table *t, const ms_gpu_model *gpu, char *buf, size_t len);
/* Every table name, ", "-separated (for messages). */
const char *exp_table_names(void);

#endif
