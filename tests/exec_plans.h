/* exec_plans.h: plans built by hand for the executor tests (no scheduler needed): phases of
 * partitions on each GPU, reconfigurations one at a time, every instance's tasks back to
 * back, plus checks that a run report respected the plan's dependencies. */
#ifndef MIGSCHED_TEST_EXEC_PLANS_H
#define MIGSCHED_TEST_EXEC_PLANS_H

#include "migsched/exec.h"

typedef struct plan_inst {
    const char *profile; /* NULL ends a phase */
    int start, ntasks;
} plan_inst;

/* phases: instances separated by {NULL} entries, ended by two {NULL} in a row. Every
 * task is planned to take task_time; its command is `command` with %d replaced by the task
 * index (printf). */
ms_schedule *plan_phases(const ms_gpu_model *m, int gpus, const plan_inst *phases, double task_time,
                         const char *command, ms_workload **w);
void plan_free(ms_schedule *s);

/* The real run followed the plan: per GPU ops in plan order, one at a time; tasks inside
 * their instance's real lifetime (an initial instance's from time 0), one at a time per
 * instance, in plan order; an instance created only after every earlier instance on
 * overlapping slots (initial ones too) was destroyed. */
void check_run_order(const ms_schedule *s, const ms_run_report *r);

/* The fake NVML for one test: a fresh state file (returned, malloc'd) holding `gpus` GPUs
 * of `gpu`, no delays, no faults, MIG on; fake_nvml_end removes it and its lock. */
char *fake_nvml_begin(const char *gpu, int gpus);
void fake_nvml_end(char *state_path);
/* Device 0 through the nvml backend on the library at lib (NULL model = identify it). */
ms_backend *fake_nvml_open(const char *lib, const ms_gpu_model *model);

/* The first 4095 bytes of a file, NUL-terminated (malloc'd), or NULL when it cannot be read. */
char *test_read_small_file(const char *path);

#endif
