/* apply_fit.h: why a target count per profile does not fit on a GPU (private to src/exec). */
#ifndef MIGSCHED_EXEC_APPLY_FIT_H
#define MIGSCHED_EXEC_APPLY_FIT_H

#include <stddef.h>

#include "migsched/gpu.h"

/* Writes the reasons into out, "; "-separated: each profile asked for more often than fits
 * ("3 x 3g.20gb: at most 2 fit on the GPU"), the memory and compute slices needed beyond
 * the GPU's, or, when the totals fit, each instance no arrangement places and, for each of
 * its allowed starts, the instance of the fullest arrangement it would overlap
 * ("1g.10gb does not fit: at 0 overlaps 4g.20gb at 0, ..."). Empty when the target fits. */
void exec_apply_explain_misfit(const ms_gpu_model *m, const int count[MS_MAX_PROFILES], char *out,
                               size_t len);

#endif
