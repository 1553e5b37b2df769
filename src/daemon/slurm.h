/* slurm.h: what migschedd asks Slurm, through its client commands (found on PATH, so no
 * libslurm ABI is tied to this build): the jobs running on the cluster (squeue), for the
 * reconciliation that releases allocations whose job is gone; a job's count of the
 * count-only GRES (scontrol show job), so `--mig` cannot exceed `--gres=migslice:N`; the
 * pending jobs' counts (squeue), whose sizes placements keep room for; and what it tells
 * Slurm (scontrol update): a job's AdminComment naming its instance, the node's GRES count.
 * A failure of any of them is an error, never an empty answer. Commands run without a
 * shell, every argument one word. Private to the daemon. */
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

/* The count of `gres` each pending job asks per node (`squeue --states=PENDING --format=
 * "%i %b"`), those asking none left out; *slices malloc'd. */
int md_slurm_pending_jobs(const char *gres, long **slices, size_t *n, ms_error *err);
/* That list from squeue's output: "ID TRES_PER_NODE" lines (gres:NAME:N items, N/A). */
int md_slurm_parse_pending(const char *text, const char *gres, long **slices, size_t *n,
                           ms_error *err);

/* One `scontrol update TARGET VALUE`, its words in argv. */
typedef struct md_slurm_update {
    char target[96];
    char value[384];
    char *argv[5];
} md_slurm_update;
/* JobId=JOB AdminComment=migsched:profile=P,gpu=G,gpu_uuid=U,mig_uuid=M; refused unless
 * every name is a plain word ([A-Za-z0-9._+-]), so nothing else reaches Slurm's parser. */
int md_slurm_comment_update(md_slurm_update *u, int64_t job, const char *profile, int gpu,
                            const char *gpu_uuid, const char *mig_uuid, ms_error *err);
/* NodeName=NODE Gres=GRES:COUNT. */
int md_slurm_node_update(md_slurm_update *u, const char *node, const char *gres, long count,
                         ms_error *err);
/* Runs it (scontrol on PATH, no shell); its failure quotes scontrol's first line. */
int md_slurm_run_update(const md_slurm_update *u, ms_error *err);

#endif
