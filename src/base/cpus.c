/* cpus.c: how many processors are online. */
#include "migsched/parallel.h"

#include <unistd.h>

int ms_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 1 ? (n < 1024 ? (int)n : 1024) : 1;
}
