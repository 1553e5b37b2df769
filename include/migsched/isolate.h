/* isolate.h: confining a job to its MIG instance's device nodes, as NVIDIA's container
 * toolkit does: the driver's capability minors (mig-minors), the plan of what the job's
 * device folder holds, and carrying it out in the job's process (a private mount
 * namespace, set up with async-signal-safe calls only). Used by migschedd's jobs and by
 * the SPANK plugin's tasks. */
#ifndef MIGSCHED_ISOLATE_H
#define MIGSCHED_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "migsched/error.h"

#define MS_DEFAULT_DEV_DIR    "/dev"
#define MS_DEFAULT_MIG_MINORS "/proc/driver/nvidia-caps/mig-minors"

/* The minors of MIG instance (gpu_minor, gi_id, ci_id)'s two capability nodes
 * (nvidia-caps/nvidia-cap<minor>): its GPU instance's `gpu<G>/gi<I>/access` and its compute
 * instance's `gpu<G>/gi<I>/ci<C>/access` lines of the driver's mig-minors text ("NAME
 * MINOR" per line). Every line is checked; an error names path:line, or the entry that is
 * missing. ms_mig_minors_find reads the file at path. */
int ms_mig_minors_parse(const char *text, size_t len, const char *path, unsigned gpu_minor,
                        unsigned gi_id, unsigned ci_id, unsigned *gi_minor, unsigned *ci_minor,
                        ms_error *err);
int ms_mig_minors_find(const char *path, unsigned gpu_minor, unsigned gi_id, unsigned ci_id,
                       unsigned *gi_minor, unsigned *ci_minor, ms_error *err);

/* Whom to confine, and where the device nodes are. */
typedef struct ms_devplan_target {
    const char *dev_dir;    /* the device folder, e.g. /dev (absolute) */
    const char *mig_minors; /* e.g. /proc/driver/nvidia-caps/mig-minors */
    unsigned gpu_minor;     /* the parent GPU's /dev/nvidia<minor> */
    unsigned gi_id, ci_id;  /* the MIG instance */
    /* Mark every descriptor above 2 close-on-exec: the daemon's own (NVML's device
     * handles among them) must not reach the job. Not for a Slurm task, whose
     * descriptors Slurm hands over on purpose (PMI). */
    bool close_fds;
} ms_devplan_target;

/* What the job's device folder holds: a fresh tmpfs with copies of the allowed NVIDIA
 * nodes, every entry whose name does not start with "nvidia" bound (folders recursively,
 * keeping their submounts) or, for symlinks, recreated. */
typedef enum ms_iso_kind {
    MS_ISO_NODE, /* mknod: a copy of an allowed NVIDIA node */
    MS_ISO_DIR,  /* mkdir: nvidia-caps */
    MS_ISO_BIND, /* a bind mount of the original entry */
    MS_ISO_LINK, /* symlink, with the original's target */
} ms_iso_kind;

typedef struct ms_iso_entry {
    ms_iso_kind kind;
    char *name;   /* relative to dev_dir: "nvidia0", "nvidia-caps/nvidia-cap21" */
    char *path;   /* dev_dir/name */
    char *target; /* MS_ISO_LINK: the link's target */
    bool dir;     /* MS_ISO_BIND: a folder (else a file-like entry) */
    mode_t mode;  /* type and permission bits of the original */
    uid_t uid;
    gid_t gid;
    dev_t rdev; /* MS_ISO_NODE */
} ms_iso_entry;

typedef struct ms_devplan {
    char *dev_dir;
    mode_t mode; /* dev_dir's own mode and owner, given to the tmpfs */
    uid_t uid;
    gid_t gid;
    char tmpfs_options[96];
    char *cwd;           /* the caller's folder, entered again once set up */
    ms_iso_entry *entry; /* in the order they are made (a folder before its nodes) */
    size_t n;
    unsigned gi_minor, ci_minor;
    bool close_fds;
    int fd_limit;  /* RLIMIT_NOFILE: where marking them stops without close_range */
    int report_fd; /* -1, or where ms_devplan_apply reports (see below) */
} ms_devplan;

/* Reads the minors and lists dev_dir (readdir, lstat; nothing is changed). The GPU's node,
 * nvidia-caps and the instance's two capability nodes must be there as character devices
 * (nvidiactl, nvidia-uvm and nvidia-uvm-tools are copied when present). Fails, naming the
 * path or the missing entry, when isolation cannot be set up. */
int ms_devplan_make(const ms_devplan_target *t, ms_devplan **out, ms_error *err);
void ms_devplan_free(ms_devplan *p);

/* Carries the plan out in the calling process, which must be single-threaded and root
 * (a forked child before it drops its identity, or a Slurm task before exec): a new mount
 * namespace whose mounts are slaves of the host's (nothing made here reaches the host;
 * the host's later mounts, say an automounted home, still reach the job), a tmpfs over
 * dev_dir holding the plan's entries. Only async-signal-safe calls. Returns 0, or -1 after
 * writing "migsched: device isolation: ..." to fd 2, to msg (len bytes; may be NULL) and,
 * with a report_fd, there. On success a NUL byte goes to report_fd. */
int ms_devplan_apply(const ms_devplan *p, char *msg, size_t len);

/* The parent's side of report_fd (the read end of a close-on-exec pipe whose write end
 * the child held): waits for the child's word. MS_OK once it is confined (or ended
 * before trying: its exit status tells); MS_EBACKEND with the child's message when it
 * could not be. */
int ms_devplan_wait(int fd, ms_error *err);

#endif
