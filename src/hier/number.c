/* number.c: one number of a CSV field, as the hier readers accept it: finite, with
 * blanks allowed around it and nothing else. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>

#include "hier_internal.h"

int hier_parse_number(const char *s, double *v)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    *v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    return *end || !isfinite(*v) ? -1 : 0;
}
