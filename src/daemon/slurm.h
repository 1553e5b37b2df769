/* slurm.h: what migschedd asks Slurm, through its client commands (found on PATH, so no
 * libslurm ABI is tied to this build): the jobs running on the cluster (squeue), for the
 * reconciliation that releases allocations whose job is gone, and a job's count of the
 * count-only GRES (scontrol show job), so `--mig` cannot exceed `--gres=migslice:N`. A
 * failure of either query is an error, never an empty answer. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_SLURM_H
#define MIGSCHED_DAEMON_SLURM_H

#include <stddef.h>
#include <stdint.h>

#include "migsched/error.h"

/* The ids of the jobs Slurm has running, completing, suspended, configuring or stopped
 * (`squeue --all --noheader --format=%A --states=...`); *ids malloc'd. */
int md_slurm_running_jobs(int64_t **ids, size_t *n, ms_error *err);
/* squeue's output: one job id per line (blank lines ignored); anything else is an error. */
int md_slurm_parse_job_ids(const char *text, int64_t **ids, size_t *n, ms_error *err);

/* How many of GRES `gres` job asks per node (`scontrol show job -o ID`'s TresPerNode; 0
 * when it asks none). */
int md_slurm_job_gres(int64_t job, const char *gres, long *count, ms_error *err);
/* That count from scontrol's one-line output: the TresPerNode field's items gres:NAME:N,
 * gres/NAME:N, NAME:N, NAME:TYPE:N or NAME (1), summed over those of NAME. */
int md_slurm_parse_gres(const char *text, const char *gres, long *count, ms_error *err);

#endif
