/* spank_mig_check.h: --mig checked at submission against the GPU models plugstack.conf
 * names (gpu_model=), so that sbatch, srun and salloc refuse a size or a profile no node
 * has before Slurm allocates anything. */
#ifndef MIGSCHED_SLURM_SPANK_MIG_CHECK_H
#define MIGSCHED_SLURM_SPANK_MIG_CHECK_H

#include <stddef.h>

#include "spank_args.h"

/* 0 when conf names no model or one of its models has --mig's value (a number of compute
 * slices or a profile, as msp_parse_mig takes it); else -1 with the valid sizes and
 * profiles of each model in err. */
int msp_check_mig(const msp_conf *conf, const char *value, char *err, size_t errlen);

#endif
