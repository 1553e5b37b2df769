/* exec.h: carrying plans out on MIG GPUs: the backend interface (nvml, sim), the plan
 * executor with its journal and report, layouts for NVIDIA's tooling, the profiler; each
 * in a header of its own, all included here. */
#ifndef MIGSCHED_EXEC_H
#define MIGSCHED_EXEC_H

#include "migsched/exec_backend.h"
#include "migsched/exec_devlock.h"
#include "migsched/exec_journal.h"
#include "migsched/exec_layout.h"
#include "migsched/exec_migparted.h"
#include "migsched/exec_profile.h"
#include "migsched/exec_run.h"
#include "migsched/exec_sim_state.h"

#endif
