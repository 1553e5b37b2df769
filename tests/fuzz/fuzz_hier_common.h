/* fuzz_hier_common.h: the hier readers take paths, so each input goes to a temporary file. */
#ifndef MIGSCHED_FUZZ_HIER_COMMON_H
#define MIGSCHED_FUZZ_HIER_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes data to a fresh temporary file; returns its path (static) or NULL. */
static const char *fuzz_hier_file(const uint8_t *data, size_t size)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz-hier-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    int ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    if (!ok) {
        unlink(path);
        return NULL;
    }
    return path;
}

#endif
