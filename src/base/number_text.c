/* number_text.c: numbers as text that stays short for any double. */
#include "migsched/format.h"

#include <math.h>

ms_num_text ms_fixed(double x, int decimals)
{
    ms_num_text t;
    if (isfinite(x) && fabs(x) < 1e12)
        snprintf(t.s, sizeof t.s, "%.*f", decimals, x);
    else
        snprintf(t.s, sizeof t.s, "%.6g", x);
    return t;
}
