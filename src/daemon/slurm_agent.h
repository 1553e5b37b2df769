/* slurm_agent.h: a thread that keeps Slurm in step with migschedd's placements: each placed
 * allocation's Slurm job gets an AdminComment naming its instance (`slurm-admin-comment`),
 * and, with `slurm-node` set, the node's count-only GRES is kept at what it can really place
 * and Slurm's pending jobs' sizes are read for the placements to keep room for. It runs when
 * the engine says something changed and every `slurm-sync` seconds. A placed allocation's
 * tasks wait until its comment was tried (md_engine_slurm_hook), so that a job that ends at
 * once has it too. A failed command is logged and tried again at the next pass (a comment
 * while its allocation runs), never failing a job. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_SLURM_AGENT_H
#define MIGSCHED_DAEMON_SLURM_AGENT_H

#include "config.h"
#include "engine.h"

typedef struct md_slurm_agent md_slurm_agent;
/* *out NULL (and MS_OK) when the configuration asks nothing of it. */
int md_slurm_agent_start(md_engine *e, const md_config *c, md_slurm_agent **out, ms_error *err);
void md_slurm_agent_stop(md_slurm_agent *a);

#endif
