/* parallel.h: how many threads to use. */
#ifndef MIGSCHED_PARALLEL_H
#define MIGSCHED_PARALLEL_H

/* Processors online (at least 1): how many threads a reader, a writer or search's starting
 * schedules may use where the result does not depend on the count. */
int ms_online_cpus(void);

#endif
