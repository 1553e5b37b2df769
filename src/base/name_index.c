/* name_index.c: the parsing half of the name tables of enumerations. */
#include "migsched/parse.h"

#include <string.h>
#include <strings.h>

int ms_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

int ms_name_index_any_case(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(name, names[i]))
            return i;
    return -1;
}
