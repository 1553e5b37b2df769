/* workload_read.c: reading a workload file of either format, told apart by its first
 * character (above both readers). */
#include "migsched/workload.h"

#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"

int ms_workload_read(const char *path, const ms_gpu_model *gpu, ms_workload **out, ms_error *err)
{
    *out = NULL;
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    size_t i = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    while (i < len && strchr(" \t\r\n", text[i]) && text[i])
        i++;
    if (i < len && text[i] == '{')
        rc = ms_workload_parse_json(text, len, path, gpu, out, err);
    else
        rc = ms_workload_parse_csv(text, len, path, gpu, out, err);
    free(text);
    return rc;
}
