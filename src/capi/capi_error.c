/* capi_error.c: the flat API's ground floor: its version and declarations, the calling
 * thread's last error, and the strings (plain and JSON) it hands to callers. */
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "capi_internal.h"

#ifndef MIGSCHED_VERSION
#error "MIGSCHED_VERSION is set by the build"
#endif

static _Thread_local char last_error[MS_ERR_LEN];

const char *msc_version(void) { return MIGSCHED_VERSION; }

const char *msc_cdef(void) { return msc_cdef_text; }

const char *msc_last_error(void) { return last_error; }

void msc_free(void *p) { free(p); }

int msc_fail(const ms_error *err)
{
    snprintf(last_error, sizeof last_error, "%s", err->msg);
    return err->code ? err->code : MS_EINVAL;
}

int msc_failf(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

int msc_text_open(msc_text *t)
{
    t->buf = NULL;
    t->len = 0;
    t->f = open_memstream(&t->buf, &t->len);
    return t->f ? 0 : msc_failf(MS_ENOMEM, "out of memory");
}

int msc_text_take(msc_text *t, char **out)
{
    bool failed = ferror(t->f) != 0;
    if (fclose(t->f) || failed) {
        free(t->buf);
        *out = NULL;
        return msc_failf(MS_ENOMEM, "out of memory");
    }
    *out = t->buf;
    return 0;
}

void msc_text_drop(msc_text *t)
{
    fclose(t->f);
    free(t->buf);
}

int msc_json_text(struct json_t *o, char **json)
{
    *json = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return *json ? 0 : msc_failf(MS_ENOMEM, "out of memory");
}
