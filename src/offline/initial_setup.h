/* initial_setup.h: bringing a GPU from the layout it holds before a plan to a partition,
 * for the planners that set up one partition first (FIXPART, NOMIG). */
#ifndef MIGSCHED_INITIAL_SETUP_H
#define MIGSCHED_INITIAL_SETUP_H

#include "migsched/schedule.h"

/* GPU g goes from `initial` (NULL: empty) to holding p's instances: an initial instance at
 * one of p's placements is kept (ready once it is free); the others in the way of p are
 * destroyed, idle ones first, each once it is free; then p's missing instances are created
 * in slot order, one reconfiguration at a time from time 0 (DESIGN.md). ready[i] is when
 * p->inst[i] can take a task. With s, the instances go into s (p's with NaN destroy times,
 * initial ones not in the way untouched) and id[i] is p->inst[i]'s; returns 0 or -1 when s
 * runs out of memory. */
int setup_partition(const ms_gpu_model *gpu, const ms_initial *initial, int g,
                    const ms_partition *p, ms_schedule *s, int *id, double *ready);

#endif
