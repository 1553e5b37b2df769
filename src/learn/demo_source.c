/* demo_source.c: the names of the demonstrators, read by the trainer's settings (train.c)
 * and written in model files' headers (model.c). */
#include "migsched/io.h"
#include "migsched/learn.h"

static const char *const demo_source_names[] = {"far", "search"};

const char *ms_demo_source_name(ms_demo_source s) { return demo_source_names[s]; }

int ms_demo_source_parse(const char *name, ms_demo_source *out)
{
    int i = ms_name_index(demo_source_names, 2, name);
    if (i < 0)
        return MS_EINVAL;
    *out = (ms_demo_source)i;
    return MS_OK;
}
