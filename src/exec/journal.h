/* journal.h: the run journal: an append-only, flushed record of what a run is about to
 * create and what it created and destroyed, so that `migsched run --cleanup` can remove
 * leftovers after a crash without touching anything else. Private to src/exec. */
#ifndef MIGSCHED_EXEC_JOURNAL_H
#define MIGSCHED_EXEC_JOURNAL_H

#include <stdio.h>

#include "migsched/exec.h"

typedef struct ms_journal ms_journal;

/* Appends to path (created if missing). backend and model describe the devices. */
int ms_journal_open(const char *path, const char *backend, const char *model, ms_journal **out,
                    ms_error *err);
void ms_journal_close(ms_journal *j, bool finished);
/* Each record is written and flushed before the operation it announces. */
void ms_journal_foreign(ms_journal *j, int device, const ms_mig_instance *in);
void ms_journal_create_begin(ms_journal *j, int device, int start_slot, int size_slots);
void ms_journal_created(ms_journal *j, int device, const ms_mig_instance *in);
void ms_journal_destroyed(ms_journal *j, int device, unsigned gi_id);

/* What a journal leaves open: instances created and not destroyed, creations begun and
 * never confirmed (gi_id 0), and the foreign instances seen by the last run. */
#define MS_JOURNAL_MAX_RECORDS 256

typedef struct ms_journal_rec {
    int device;
    unsigned gi_id;
    int start, size;
    bool foreign;
} ms_journal_rec;

typedef struct ms_journal_state {
    char backend[16], model[MS_NAME_LEN];
    int n;
    ms_journal_rec rec[MS_JOURNAL_MAX_RECORDS];
} ms_journal_state;

/* Replays a journal's text; messages name source and line. */
int ms_journal_parse(const char *text, size_t len, const char *source, ms_journal_state *st,
                     ms_error *err);

#endif
