/* parse.h: reading values from text and JSON: names of enumerations, integers, times, the
 * keys an object may hold. */
#ifndef MIGSCHED_PARSE_H
#define MIGSCHED_PARSE_H

#include <stdbool.h>

#include "migsched/error.h"

/* The index of name in names[0..n-1], -1 if it is not there: the parsing half of the
 * name tables of enumerations ("float", "one-hot", "exact" and the like). */
int ms_name_index(const char *const *names, int n, const char *name);
/* The same, ignoring ASCII case (keywords a user may type as "FILL" or "Fill"). */
int ms_name_index_any_case(const char *const *names, int n, const char *name);

/* The largest time in seconds (about 31.7 years) any reader accepts, in any field: beyond
 * it a value is a typo or unit mix-up, and sums of such times lose all precision. */
#define MS_TIME_MAX 1e9
/* NULL when x is a number of magnitude at most MS_TIME_MAX (infinity is out); else the
 * problem, worded to follow the field's name ("is over the ceiling of 1e9 s"). */
const char *ms_time_check(double x);

/* An integer in [lo, hi] that is the whole of s (no sign-only, no trailing text). */
bool ms_parse_long(const char *s, long lo, long hi, long *out);

/* MS_OK when every key of the JSON object obj is in the NULL-terminated list allowed (a
 * misspelt key is an error, not a silently ignored default); else MS_EINVAL
 * "WHERE: unknown key "K" (allowed: a, b)". */
struct json_t;
int ms_json_check_keys(struct json_t *obj, const char *const *allowed, const char *where,
                       ms_error *err);

#endif
