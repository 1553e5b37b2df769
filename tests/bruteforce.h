/* bruteforce.h: the test oracle shared by the bound and exact-scheduler tests: the optimal
 * makespan of a tiny batch (n <= 4, one GPU) by exhaustive search over valid schedules
 * (every complete candidate goes through the validator), and tiny random workloads. */
#ifndef MIGSCHED_TEST_BRUTEFORCE_H
#define MIGSCHED_TEST_BRUTEFORCE_H

#include <stdbool.h>

#include "migsched/rng.h"
#include "migsched/schedule.h"

/* Tasks "t0".."t<n-1>" with the given times (INFINITY = cannot run). */
ms_workload *bf_workload(int n, const double times[][MS_MAX_SLICES + 1]);
/* n <= 4 tasks with small integer times, non-increasing in the size and never better than
 * linear; some do not fit the smallest size, some run on one size only. */
ms_workload *bf_random_workload(const ms_gpu_model *g, int n, ms_rng *r);
/* The layout holding partition p's instances on GPU 0, all idle (ms_initial_fini after). */
void bf_layout(const ms_gpu_model *g, const ms_partition *p, ms_initial *out);
/* The optimal makespan from the layout `init` (NULL: empty; GPU 0 only): its instances
 * can be kept (their tasks from when they are free), destroyed (charged) or left; every
 * other instance is created (charged). prune off only to check that pruning loses nothing;
 * *leaves = candidates validated (against the layout). */
double bf_optimum(const ms_gpu_model *g, const ms_workload *w, bool prune, const ms_initial *init,
                  long *leaves);

#endif
