/* exec_layout.h: a plan's instances at a time, as layouts for NVIDIA's tooling. */
#ifndef MIGSCHED_EXEC_LAYOUT_H
#define MIGSCHED_EXEC_LAYOUT_H

#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/schedule.h"

/* The instances of GPU g alive at time t (created by t, not yet destroyed at t). */
int ms_layout_at(const ms_schedule *s, int gpu, double t, ms_partition *out);
/* mig-parted config (YAML, version v1) with one entry per GPU of the plan. */
int ms_layout_write_mig_parted(const ms_schedule *s, double t, const char *config_name, FILE *f,
                               ms_error *err);
int ms_layout_write_json(const ms_schedule *s, double t, FILE *f, ms_error *err);

#endif
