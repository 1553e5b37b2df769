/* hpc_mapping.c: DCGM exporter's HPC job-mapping files, written atomically. */
#include "hpc_mapping.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "migsched/io.h"

#define MAP_PATH_LEN 4200

int md_hpc_mapping_set(const char *dir, int gpu, unsigned gi, const int64_t *jobs, size_t n,
                       ms_error *err)
{
    char path[MAP_PATH_LEN];
    snprintf(path, sizeof path, "%s/%d.%u", dir, gpu, gi);
    if (n == 0) {
        if (unlink(path) && errno != ENOENT)
            return ms_error_set(err, MS_EIO, "hpc-job-mapping-dir: %s: %s", path, strerror(errno));
        return MS_OK;
    }
    ms_output o;
    /* Read by the exporter; a link or FIFO at path is replaced, never written through. */
    int rc = ms_output_open_file(&o, path, 0644, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        fprintf(o.f, "%lld\n", (long long)jobs[i]);
    if ((rc = ms_output_commit(&o, err)))
        ms_error_prefix(err, "hpc-job-mapping-dir");
    return rc;
}

int md_hpc_mapping_prune(const char *dir, int gpu, const unsigned *keep, size_t nkeep,
                         ms_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return ms_error_set(err, MS_EIO, "hpc-job-mapping-dir %s: %s", dir, strerror(errno));
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "%d.", gpu);
    int rc = MS_OK;
    for (struct dirent *de; !rc && (de = readdir(d));) {
        long gi;
        if (strncmp(de->d_name, prefix, (size_t)plen) ||
            !ms_parse_long(de->d_name + plen, 0, 0xffffffffL, &gi))
            continue;
        bool kept = false;
        for (size_t i = 0; i < nkeep && !kept; i++)
            kept = keep[i] == (unsigned)gi;
        if (!kept)
            rc = md_hpc_mapping_set(dir, gpu, (unsigned)gi, NULL, 0, err);
    }
    closedir(d);
    return rc;
}
