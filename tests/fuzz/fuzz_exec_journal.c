/* fuzz_exec_journal.c: libFuzzer target for the run journal replay (`run --cleanup`). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "migsched/exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_journal_state *st = malloc(sizeof *st);
    ms_error err;
    if (st && ms_journal_parse((const char *)data, size, "fuzz", st, &err) == MS_OK &&
        (st->n < 0 || st->n > MS_JOURNAL_MAX_RECORDS))
        abort();
    free(st);
    return 0;
}
