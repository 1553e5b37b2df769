/* support.c: helpers shared by the tests. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/rng.h"
#include "migsched/workload.h"

const char *test_source_path(const char *relative)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", MIGSCHED_SOURCE_DIR, relative);
    return buf;
}

char *test_write_temp(const char *text)
{
    char *path = strdup("/tmp/migsched-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    size_t len = strlen(text);
    if (write(fd, text, len) != (ssize_t)len) {
        close(fd);
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

void test_perturb_workload(ms_workload *w, const ms_gpu_model *gpu, ms_rng *rng)
{
    for (int i = 0; i < w->n; i++) {
        double *t = w->tasks[i].time;
        if (ms_rng_uniform(rng) < 0.3) {
            int keep = gpu->sizes[ms_rng_below(rng, (uint64_t)gpu->nsizes)];
            for (int k = 0; k < gpu->nsizes; k++)
                if (gpu->sizes[k] != keep && ms_rng_uniform(rng) < 0.4)
                    t[gpu->sizes[k]] = INFINITY;
        }
        if (ms_rng_uniform(rng) < 0.3)
            for (int k = 0; k < gpu->nsizes; k++)
                if (isfinite(t[gpu->sizes[k]]))
                    t[gpu->sizes[k]] = ceil(t[gpu->sizes[k]] / 5) * 5;
    }
}
