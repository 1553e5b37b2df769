/* exec_journal.h: the run journal, what a run owns recorded before each change, and what
 * its replay says about the instances a device lists. */
#ifndef MIGSCHED_EXEC_JOURNAL_H
#define MIGSCHED_EXEC_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/error.h"
#include "migsched/exec_backend.h"
#include "migsched/gpu.h"

/* An append-only text file recording what a run owns, each record written (and fsync-ed
 * when it announces a change) before the change: "run BACKEND MODEL PID START",
 * "device DEV GPU-UUID", "foreign DEV GI START SIZE UUID|-", "begin DEV START SIZE",
 * "gi DEV GI START SIZE PROFILE", "created DEV GI START SIZE UUID",
 * "destroying DEV GI START SIZE PROFILE CI UUID", "destroyed DEV GI", "settled DEV START",
 * "task DEV PGID START INDEX", "ended PGID", "finished", "clean" (docs/exec.md). A crash mid-write
 * leaves at most the last record cut short (no final newline): the reader drops it, a writer cuts
 * it off. Every writer returns an error once a write failed (and keeps failing): the caller must
 * stop changing the device. */
/* Opens path for appending (a regular file, created if missing with mode 0600) and writes
 * the "run" record (this process) durably; backend NULL appends without a "run" record
 * (cleanup). A journal is used only in a folder that only we (or root) can write, and only
 * if it is a regular file of ours or root's, opened without following a link: anything
 * else is refused, naming it, and never read nor acted on. */
int ms_journal_open(const char *path, const char *backend, const char *model, ms_journal **out,
                    ms_error *err);
/* Appends "clean": nothing the journal recorded is left (cleanup's last word). */
int ms_journal_clean(ms_journal *j, ms_error *err);
/* Appends "finished" and compacts when asked; closes. */
int ms_journal_close(ms_journal *j, bool finished, ms_error *err);
int ms_journal_device(ms_journal *j, int device, const char *gpu_uuid, ms_error *err);
int ms_journal_foreign(ms_journal *j, int device, const ms_mig_instance *in, ms_error *err);
int ms_journal_create_begin(ms_journal *j, int device, int start_slot, int size_slots,
                            ms_error *err);
/* NVML made the GPU instance `in` (m names its profile); its compute instance is not made
 * yet: synced, so that a crash before "created" leaves an instance the journal names. */
int ms_journal_gi_made(ms_journal *j, int device, const ms_gpu_model *m, const ms_mig_instance *in,
                       ms_error *err);
int ms_journal_created(ms_journal *j, int device, const ms_mig_instance *in, ms_error *err);
/* A destroy of `in` (as the device lists it; m names its profile) is about to start. */
int ms_journal_destroying(ms_journal *j, int device, const ms_gpu_model *m,
                          const ms_mig_instance *in, ms_error *err);
int ms_journal_destroyed(ms_journal *j, int device, unsigned gi_id, ms_error *err);
/* A task process group (its leader's pid and start time), with the cgroup that holds all of
 * its processes (NULL or "": none; a path without whitespace, shorter than
 * MS_JOURNAL_CGROUP_LEN), and its end. */
int ms_journal_task(ms_journal *j, int device, int pgid, unsigned long long start, int index,
                    const char *cgroup, ms_error *err);
/* The end names the task by its leader's pid and start time: once the leader is reaped its
 * pid may lead another task while this one's cgroup still drains. */
int ms_journal_task_ended(ms_journal *j, int pgid, unsigned long long start, ms_error *err);
/* A creation begun at start_slot that recovery settled (what is there now is recorded as
 * found): its "begin" record is closed. */
int ms_journal_begin_settled(ms_journal *j, int device, int start_slot, ms_error *err);
/* Rewrites the journal as the records it leaves open (the same state on replay): a new
 * file from mkstemp in its folder (mode 0600), synced, renamed over it, the folder synced.
 * A journal that grows past MS_JOURNAL_COMPACT_BYTES is compacted as it is written; a
 * clean close ("finished") compacts it too. */
#define MS_JOURNAL_COMPACT_BYTES (256 * 1024)
int ms_journal_compact(ms_journal *j, ms_error *err);

/* What a journal leaves open after replay. */
#define MS_JOURNAL_MAX_RECORDS 512

typedef enum ms_journal_kind {
    MS_JOURNAL_CREATED,    /* created and not destroyed: migsched's (gi_id, uuid known) */
    MS_JOURNAL_BEGUN,      /* creation asked for, never confirmed (crash inside it) */
    MS_JOURNAL_FOREIGN,    /* present when the last run started: never migsched's */
    MS_JOURNAL_TASK,       /* a task process group that was not seen to end */
    MS_JOURNAL_DESTROYING, /* migsched's, its destroy begun and not seen to end */
    MS_JOURNAL_GI_MADE,    /* a GPU instance of migsched's whose creation (its compute
                            * instance) was not confirmed: gi_id, slots, profile known */
} ms_journal_kind;

#define MS_JOURNAL_CGROUP_LEN 256

typedef struct ms_journal_rec {
    ms_journal_kind kind;
    int device;
    unsigned gi_id;
    int start, size;
    char uuid[96];
    char profile[MS_NAME_LEN]; /* destroying, gi made: the profile's name, "" if unknown */
    int ci;                    /* destroying: its compute instance, -1 if none */
    int pgid, task;
    unsigned long long pstart;          /* task leader's start time */
    char cgroup[MS_JOURNAL_CGROUP_LEN]; /* task: the cgroup of all its processes, "" if none */
    int line;                           /* where it was recorded */
} ms_journal_rec;

typedef struct ms_journal_state {
    char backend[16], model[MS_NAME_LEN];
    int owner_pid; /* the last run's process */
    unsigned long long owner_start;
    bool finished; /* the last run ended normally */
    int torn_line; /* the last record, cut short by a crash: dropped (0: none) */
    int ndev;
    struct {
        int device;
        char uuid[96];
    } dev[MS_RUN_MAX_GPUS];
    int n;
    ms_journal_rec rec[MS_JOURNAL_MAX_RECORDS];
} ms_journal_state;

/* Reads and replays the journal at path under the rules of ms_journal_open; *found false
 * (and MS_OK) when there is no file there. Any other failure (EACCES, a NUL byte, over the
 * input limit, a bad record) is an error naming the file (and line): never no journal. */
int ms_journal_load(const char *path, ms_journal_state *st, bool *found, ms_error *err);
/* Replays a journal's text. Impossible records (negative ids, an unknown model, placements
 * outside the model, trailing junk, a NUL byte) are errors naming source and line; text
 * after the last newline is a record cut short (torn_line), dropped. */
int ms_journal_parse(const char *text, size_t len, const char *source, ms_journal_state *st,
                     ms_error *err);

/* What the open CREATED, GI_MADE and DESTROYING records of a device say about an instance
 * that device lists now (m: the device's model, naming its profile): the strongest claim, and
 * in *why the record making it (NULL for MS_CLAIM_NONE). */
typedef enum ms_claim {
    MS_CLAIM_NONE,     /* another GPU-instance id: the record says nothing about it */
    MS_CLAIM_STRANGER, /* the recorded id, but not the recorded instance: never touched */
    MS_CLAIM_UNPROVEN, /* created: the recorded id and slots but no MIG device, and no
                        * destroy of ours under way; or (gi made) the recorded id, slots
                        * and profile with a compute instance: a stranger's new instance
                        * looks the same */
    MS_CLAIM_OURS,     /* the very instance recorded, or (destroying) its remains with the
                        * recorded id, slots and profile and no compute instance, or (gi
                        * made) the recorded id, slots and profile without one */
} ms_claim;
ms_claim ms_journal_claim(const ms_journal_state *st, int device, const ms_gpu_model *m,
                          const ms_mig_instance *now, const ms_journal_rec **why);

#endif
