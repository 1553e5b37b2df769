/* support.h: helpers shared by the tests (paths, temporary files). */
#ifndef MIGSCHED_TEST_SUPPORT_H
#define MIGSCHED_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <cmocka.h>

/* cmocka 1.1 has no floating-point assertion. */
#define assert_near(a, b, eps)                                                              \
    do {                                                                                    \
        double a_ = (a), b_ = (b);                                                          \
        if (!(fabs(a_ - b_) <= (eps)))                                                      \
            fail_msg("%s = %.17g, expected %.17g (+- %g)", #a, a_, b_, (double)(eps));     \
    } while (0)

/* Absolute path of a file in the source tree (static buffer, valid until the next call). */
const char *test_source_path(const char *relative);
/* Writes text to a fresh temporary file and returns its path (malloc'd). */
char *test_write_temp(const char *text);
/* A fresh temporary folder /tmp/migsched-<what>-XXXXXX into buf (fails the test if not). */
void test_temp_dir(const char *what, char *buf, size_t len);
/* rm -rf of such a folder (fails the test if it cannot). */
void test_remove_dir(const char *dir);

#endif
