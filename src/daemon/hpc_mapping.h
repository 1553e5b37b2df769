/* hpc_mapping.h: NVIDIA DCGM exporter's HPC job-mapping files (its --hpc-job-mapping-dir):
 * one file per MIG instance, named <gpu>.<GPU_I_ID>, listing the ids of the jobs using it,
 * one per line, so GPU dashboards attribute an instance's metrics to those jobs. Written
 * whole to a temporary file and renamed (a reader never sees half a file). Private to the
 * daemon; see docs/daemon.md. */
#ifndef MIGSCHED_DAEMON_HPC_MAPPING_H
#define MIGSCHED_DAEMON_HPC_MAPPING_H

#include <stddef.h>
#include <stdint.h>

#include "migsched/error.h"

/* <dir>/<gpu>.<gi> now lists jobs[0..n-1]; n == 0 removes it (absent already is fine). */
int md_hpc_mapping_set(const char *dir, int gpu, unsigned gi, const int64_t *jobs, size_t n,
                       ms_error *err);
/* Removes the <gpu>.<N> files of the GPU whose N is not in keep[0..nkeep-1] (left by a run
 * that ended without removing them); other files in dir are not ours and stay. */
int md_hpc_mapping_prune(const char *dir, int gpu, const unsigned *keep, size_t nkeep,
                         ms_error *err);

#endif
