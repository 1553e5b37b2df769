/* support.c: helpers shared by the tests. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void test_temp_dir(const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/migsched-%s-XXXXXX", what);
    if (!mkdtemp(buf))
        fail_msg("cannot create %s", buf);
}

void test_remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fail_msg("cannot remove %s", dir);
}
