/* fuzz_daemon_job.c: libFuzzer target for migschedd's job JSON (the body of POST /v1/jobs):
 * what parses renders back to JSON that parses to the same bytes again. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

static char *render(const md_job_spec *s, const ms_gpu_model *gpu)
{
    json_t *o = md_job_spec_to_json(s, gpu);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    md_job_spec s, back;
    ms_error err;
    if (md_job_spec_parse((const char *)data, size, gpu, &s, &err))
        return 0;
    char *t1 = render(&s, gpu);
    if (!t1 || md_job_spec_parse(t1, strlen(t1), gpu, &back, &err))
        abort();
    char *t2 = render(&back, gpu);
    if (!t2 || strcmp(t1, t2))
        abort();
    free(t1);
    free(t2);
    md_job_spec_free(&s);
    md_job_spec_free(&back);
    return 0;
}
