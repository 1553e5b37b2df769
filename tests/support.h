/* support.h: helpers shared by the tests (paths, temporary files). */
#ifndef MIGSCHED_TEST_SUPPORT_H
#define MIGSCHED_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* Absolute path of a file in the source tree (static buffer, valid until the next call). */
const char *test_source_path(const char *relative);
/* Writes text to a fresh temporary file and returns its path (malloc'd). */
char *test_write_temp(const char *text);

#endif
