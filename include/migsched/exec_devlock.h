/* exec_devlock.h: the runtime folder and one owner per physical GPU (a device lock). */
#ifndef MIGSCHED_EXEC_DEVLOCK_H
#define MIGSCHED_EXEC_DEVLOCK_H

#include <stddef.h>

#include "migsched/error.h"

/* The folder for device locks and default journals and logs, created if missing:
 * $MIGSCHED_RUNTIME_DIR, else /run/migsched for root, else $XDG_RUNTIME_DIR/migsched, else
 * ${TMPDIR:-/tmp}/migsched-UID (which must be ours). */
int ms_runtime_dir(char *buf, size_t len, ms_error *err);
/* <runtime dir>/run-dev<D1>-<D2>...<suffix>: where a run on those devices keeps its
 * journal (".journal") and logs (".logs") unless told otherwise. */
int ms_default_run_path(const int *devices, int n, const char *suffix, char *buf, size_t len,
                        ms_error *err);

/* One owner per physical GPU: an exclusive flock on <dir>/<GPU UUID>.lock (dir NULL = the
 * runtime dir) holding "PID START". Taken without waiting: MS_EBUSY naming the holder's PID
 * when another process (or another lock in this one) holds it. The kernel releases it when
 * the owner exits, however it dies. */
typedef struct ms_device_lock ms_device_lock;
int ms_device_lock_open(const char *dir, const char *gpu_uuid, ms_device_lock **out, ms_error *err);
void ms_device_lock_close(ms_device_lock *l);

#endif
