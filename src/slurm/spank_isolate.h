/* spank_isolate.h: a Slurm task confined to its allocation's MIG instance (the device nodes
 * of migsched's isolation), apart from Slurm so that it is built and tested without it. */
#ifndef MIGSCHED_SLURM_SPANK_ISOLATE_H
#define MIGSCHED_SLURM_SPANK_ISOLATE_H

#include <stddef.h>

#include "spank_args.h"
#include "spank_client.h"

/* With c->isolate, puts the calling process (a task, root, before exec) in a mount
 * namespace whose c->dev_dir holds only in's nodes; nothing without it. Returns 0, or -1
 * with the reason in err. */
int msp_isolate(const msp_conf *c, const msp_instance *in, char *err, size_t errlen);

#endif
