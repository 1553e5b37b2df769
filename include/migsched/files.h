/* files.h: whole-file reads, all-or-nothing file writes, and files that are safe to write
 * as root. */
#ifndef MIGSCHED_FILES_H
#define MIGSCHED_FILES_H

#include <stdio.h>

#include "migsched/error.h"

/* Every reader refuses an input larger than ms_input_max(): 1 GiB, or the byte count in
 * the environment variable MIGSCHED_MAX_INPUT_BYTES. */
#define MS_INPUT_MAX_DEFAULT ((size_t)1 << 30)
size_t ms_input_max(void);

/* Reads a text file into a NUL-terminated malloc'd buffer (*len excludes the NUL). Fails,
 * naming the file, on a directory, an input over ms_input_max() (a device such as
 * /dev/zero stops at the limit) or a NUL byte. */
int ms_read_file(const char *path, char **buf, size_t *len, ms_error *err);
/* The same for a binary file (NUL bytes allowed). */
int ms_read_binary_file(const char *path, char **buf, size_t *len, ms_error *err);

/* Writing a file so that readers never see half of it: write to a temporary file beside
 * the target, then ms_output_commit renames it over the target ("-" = stdout). */
typedef struct ms_output {
    FILE *f;
    char *path, *tmp;
} ms_output;

/* The temporary file comes from mkstemp in path's folder and gets the mode the umask
 * gives a new file; an existing device or FIFO at path is written in place (a FIFO without
 * a reader is refused, never waited for). */
int ms_output_open(ms_output *o, const char *path, ms_error *err);
/* The same, always as a regular file of that mode that replaces whatever is at path (a
 * symbolic link, a FIFO): nothing is ever written through it. For files written as root. */
int ms_output_open_file(ms_output *o, const char *path, unsigned mode, ms_error *err);
/* Closes and renames; on a write error removes the temporary file and fails. */
int ms_output_commit(ms_output *o, ms_error *err);
/* Closes and removes the temporary file (on an error path). */
void ms_output_abort(ms_output *o);

/* Files written as root in folders others might reach. ms_open_regular opens name
 * (relative to dirfd, or AT_FDCWD) with flags and mode (for O_CREAT) plus O_NOFOLLOW,
 * O_NONBLOCK and O_CLOEXEC, and keeps it only if it is a regular file (O_TRUNC applies
 * only then; O_NONBLOCK is cleared): a symbolic link, a FIFO or a device is refused and
 * never written. shown names it in messages. */
int ms_open_regular(int dirfd, const char *name, const char *shown, int flags, unsigned mode,
                    int *fd, ms_error *err);
/* MS_EIO unless the open file fd is owned by root or the effective uid. */
int ms_file_check_ours(int fd, const char *shown, ms_error *err);
/* A folder only its owner can write: creates path with create_mode if missing (0: never
 * creates), then MS_EIO unless it is a folder owned by root or the effective uid and not
 * writable by group or others (the message names what, the path, its owner and its mode);
 * a symbolic link to it must be root's or ours too. */
int ms_dir_check(const char *what, const char *path, unsigned create_mode, ms_error *err);

#endif
