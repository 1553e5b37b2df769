/* config_value.h: the kinds of value a configuration key takes, and one parser and one
 * writer that read a key's row (config_keys.c) for its field, bounds and choices: each
 * bound is stated once, in the row, and every message about a bad value is built from it.
 * Private to the daemon. */
#ifndef MIGSCHED_DAEMON_CONFIG_VALUE_H
#define MIGSCHED_DAEMON_CONFIG_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

typedef enum md_value_kind {
    MD_VALUE_INT,            /* an int in [lo, hi] */
    MD_VALUE_BYTES,          /* a long long count of bytes in [lo, hi] */
    MD_VALUE_NUMBER,         /* a double in (lo, hi] */
    MD_VALUE_SECONDS,        /* a double in (lo, hi]; also exactly "0" (off) when zero_off */
    MD_VALUE_CHOICE,         /* one of names, stored as its index in an enum */
    MD_VALUE_BOOL,           /* true or false */
    MD_VALUE_CONCAT,         /* how batches join (ms_concat_parse's names) */
    MD_VALUE_PATH,           /* any text shorter than the field */
    MD_VALUE_NAME,           /* a user or group name, or none (stored as "") */
    MD_VALUE_GRES,           /* a Slurm GRES name, or none (stored as written) */
    MD_VALUE_CGROUP,         /* none, "" or an absolute path without whitespace, at most hi bytes */
    MD_VALUE_DEVICES,        /* distinct device indices in [lo, hi], comma-separated */
    MD_VALUE_LISTEN,         /* one more listening address (unix:PATH or tcp:HOST:PORT) */
    MD_VALUE_METRICS_LISTEN, /* HOST:PORT or [IPV6]:PORT, any address; "none" */
    MD_VALUE_NKINDS
} md_value_kind;

/* One configuration key: the table's row. */
typedef struct md_key_row {
    const char *name; /* as the file and the flag spell it */
    md_value_kind kind;
    bool reloadable;          /* a SIGHUP may change it in a running daemon */
    bool batch_only;          /* goes with mode batch only */
    bool zero_off;            /* seconds: "0" turns the feature off */
    size_t offset;            /* its field in md_config (devices, listen: theirs are fixed) */
    size_t size;              /* that field's size (texts: the longest is size - 1 bytes) */
    double lo, hi;            /* numbers and device indices: the bounds; cgroup: hi bytes */
    const char *const *names; /* choices, NULL-terminated, in the enum's order */
    const char *def;          /* the default as the file writes it; NULL: none (zero) */
} md_key_row;

/* Parses text into the row's field of c; a bad value is an error naming where, the key,
 * the value and what the row expects. */
int md_value_parse(const md_key_row *row, md_config *c, const char *text, const char *where,
                   ms_error *err);
/* The field's value as the file format writes it (listen: every address, '\n'-separated);
 * truncated to fit buf. */
void md_value_text(const md_key_row *row, const md_config *c, char *buf, size_t len);

#endif
