/* metrics.h: migschedd's /metrics: Prometheus text exposition (format 0.0.4) of an engine
 * metrics snapshot. Names are prefixed migsched_; GPU, instance and running-job series carry
 * the labels NVIDIA's DCGM exporter 4.x puts on its MIG series (gpu, UUID, pci_bus_id,
 * device, modelName, GPU_I_PROFILE, GPU_I_ID, Hostname) so dashboards can join the two.
 * Private to the daemon; the series are listed in docs/daemon.md. */
#ifndef MIGSCHED_DAEMON_METRICS_H
#define MIGSCHED_DAEMON_METRICS_H

#include <stddef.h>

#include "engine.h"

#define MD_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The exposition text (malloc'd, *len bytes), NULL when out of memory. */
char *md_metrics_render(const md_engine_metrics *m, const ms_gpu_model *model, const char *hostname,
                        size_t *len);

#endif
