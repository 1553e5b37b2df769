/* placement.h: where an online placement goes when other jobs wait for room, and what a
 * node can still place. Paper 002's policy (ms_online_place_key) picks the start that
 * leaves the lowest fragmentation; when the node's queue and Slurm's pending jobs ask for
 * sizes, the choice first keeps those sizes placeable on the node (no pending size loses its
 * last room) and only then follows the policy. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_PLACEMENT_H
#define MIGSCHED_DAEMON_PLACEMENT_H

#include <stdbool.h>

#include "config.h"
#include "migsched/online.h"

/* The GPU and start for a job of `profile` (false: no GPU can hold it now). demand[p]:
 * how many waiting jobs ask profile p (NULL or all 0: the policy's choice). Among the
 * starts the rule allows, the one that leaves the fewest waiting jobs without any room on
 * the node wins; ties go to the policy's key, then the lowest GPU. */
bool md_place_for_demand(const ms_gpu_model *m, const ms_online_rule *r,
                         const ms_online_frag_table *ft, const ms_online_gpu_view *gpus, int ngpus,
                         int profile, const int *demand, int *gpu, int *start);

/* Whether a job of `profile` could start on one of the GPUs now (ms_online_can_take at some
 * start). */
bool md_placeable(const ms_gpu_model *m, const ms_online_rule *r, const ms_online_gpu_view *gpus,
                  int ngpus, int profile);

/* The most compute slices one instance could have if placed now (0: none fits). */
int md_largest_placeable(const ms_gpu_model *m, const ms_online_rule *r,
                         const ms_online_gpu_view *gpus, int ngpus);

/* The count-only GRES that keeps Slurm's admission of a node truthful (docs/cluster.md):
 * the slices its running allocations hold plus the largest instance placeable now, but
 * never below the model's largest instance: Slurm 22.05 refuses a submission, and turns a
 * pending job to BadConstraints, when no node's count reaches the job's. */
long md_slurm_count(const ms_gpu_model *m, long held, int placeable);

/* The model's profile a Slurm job of `slices` count-only slices most likely asks: the one
 * of exactly that many compute slices with the fewest memory slots, else the smallest that
 * has more; -1 when none has as many. */
int md_profile_for_slices(const ms_gpu_model *m, int slices);

#endif
