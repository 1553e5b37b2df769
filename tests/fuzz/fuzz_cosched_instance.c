/* fuzz_cosched_instance.c: libFuzzer target for the co-scheduling instance readers (JSON and
 * CSV); what parses must survive the PLP and the validator of a sequential schedule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ms_cosched_instance *in = NULL;
    ms_error err;
    int rc = size && text[0] == '{' ? ms_cosched_parse_json(text, "fuzz", 0, &in, &err)
                                    : ms_cosched_parse_csv(text, "fuzz", 0, &in, &err);
    if (!rc && in->n <= 40) {
        ms_cosched_schedule *s;
        if (!ms_cosched_sequential(in, &s, &err)) {
            if (ms_cosched_validate(in, s, 1, &err))
                abort();
            ms_cosched_schedule_free(s);
        }
    }
    ms_cosched_instance_free(in);
    free(text);
    return 0;
}
