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

#endif
