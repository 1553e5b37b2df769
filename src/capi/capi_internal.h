/* capi_internal.h: what the flat API's files share: the thread's last error, strings made
 * from a FILE stream, and the capi headers' text (generated from include/migsched/capi*.h). */
#ifndef MIGSCHED_CAPI_INTERNAL_H
#define MIGSCHED_CAPI_INTERNAL_H

#include <stdio.h>

#include "migsched/capi.h"
#include "migsched/capi_online.h"
#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/online.h"

_Static_assert(MSC_MAX_SLICES == MS_MAX_SLICES, "capi.h's size count is gpu.h's");

extern const char msc_cdef_text[];

/* An online workload with the model its profile indices refer to (capi_online_workload.c,
 * read by capi_online.c). */
struct msc_online_workload {
    ms_gpu_model m;
    ms_online_workload w;
};

/* Keeps err's message as the thread's last error; returns its code (MS_EINVAL when err
 * carries none). */
int msc_fail(const ms_error *err);
/* The same for a message of the caller's. */
int msc_failf(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* NULL arguments the API does not take: MS_EINVAL naming the argument. */
#define MSC_NEED(p)                                                               \
    do {                                                                          \
        if (!(p))                                                                 \
            return msc_failf(MS_EINVAL, "%s: %s must not be NULL", __func__, #p); \
    } while (0)

/* The compact text of o (which it releases) into *json, the caller's to msc_free; MS_ENOMEM
 * recorded when o is NULL or cannot be written. */
struct json_t;
int msc_json_text(struct json_t *o, char **json);

/* A text being written: open_memstream's, handed to the caller by msc_text_take. */
typedef struct msc_text {
    FILE *f;
    char *buf;
    size_t len;
} msc_text;
int msc_text_open(msc_text *t);
/* Closes the stream; *out gets the text (the caller's) or NULL with MS_ENOMEM. */
int msc_text_take(msc_text *t, char **out);
/* Closes the stream and drops what was written. */
void msc_text_drop(msc_text *t);

#endif
