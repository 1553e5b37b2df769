/* proc.c: process identity read from /proc/PID/stat. */
#include "proc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* State, process group and start time of pid; false if it does not exist. */
static bool read_stat(pid_t pid, char *state, pid_t *pgrp, unsigned long long *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses, so fields are
     * counted from the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    int pg = 0;
    unsigned long long st = 0;
    if (sscanf(p + 1,
               " %c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
               state, &pg, &st) != 3)
        return false;
    *pgrp = pg;
    *start = st;
    return true;
}

bool ms_proc_start_time(pid_t pid, unsigned long long *ticks)
{
    char state;
    pid_t pgrp;
    return pid > 0 && read_stat(pid, &state, &pgrp, ticks);
}

bool proc_alive(pid_t pid, unsigned long long start)
{
    char state;
    pid_t pgrp;
    unsigned long long st;
    return pid > 0 && read_stat(pid, &state, &pgrp, &st) && state != 'Z' && st == start;
}

bool ms_proc_group_ours_alive(pid_t pgid, unsigned long long leader_start)
{
    char state;
    pid_t pgrp;
    unsigned long long st;
    if (pgid <= 1)
        return false;
    if (read_stat(pgid, &state, &pgrp, &st) && st != leader_start)
        return false; /* the pid now names another process */
    DIR *d = opendir("/proc");
    if (!d)
        return false;
    bool alive = false;
    for (struct dirent *e; !alive && (e = readdir(d));) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        alive = read_stat((pid_t)pid, &state, &pgrp, &st) && pgrp == pgid && state != 'Z';
    }
    closedir(d);
    return alive;
}

bool ms_proc_group_leader_is(pid_t pgid, unsigned long long leader_start)
{
    char state;
    pid_t pgrp;
    unsigned long long st;
    return pgid > 1 && read_stat(pgid, &state, &pgrp, &st) && pgrp == pgid && st == leader_start;
}
