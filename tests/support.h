/* support.h: helpers shared by the tests (paths, temporary files). */
#ifndef MIGSCHED_TEST_SUPPORT_H
#define MIGSCHED_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>

/* cmocka 1.1 has no floating-point assertion. */
#define assert_near(a, b, eps)                                                         \
    do {                                                                               \
        double a_ = (a), b_ = (b);                                                     \
        if (!(fabs(a_ - b_) <= (eps)))                                                 \
            fail_msg("%s = %.17g, expected %.17g (+- %g)", #a, a_, b_, (double)(eps)); \
    } while (0)

struct ms_workload;
struct ms_gpu_model;
struct ms_rng;
struct ms_schedule;
struct ms_task;
/* prod_{k=a}^{b-1} (k + r) / (k + 1): t(b)/t(a) of a generated task when every step in
 * between uses r. */
double test_ratio_bound(int a, int b, double r);
/* The generator's class of a task (paper 000 6.3): the largest size it scales well up to
 * (r <= 0.2 on every step), checking from its times alone that every step after it is
 * sub-linear (r >= 0.5); fails the test otherwise. */
int test_task_class(const struct ms_task *t, const struct ms_gpu_model *gpu);
/* Whether process pid exists and is not a zombie (exec's proc_alive). */
bool test_process_running(int pid);
/* Some tasks lose sizes (inf: too little memory) and some times are rounded so that ties in
 * time and area occur; every task keeps at least one finite size. */
void test_perturb_workload(struct ms_workload *w, const struct ms_gpu_model *gpu,
                           struct ms_rng *rng);

/* n tasks of a random scaling preset with WIDETIMES or NARROWTIMES (two draws of rng, then
 * the generator's); fails the test on error. */
struct ms_workload *test_random_preset_workload(const struct ms_gpu_model *gpu, int n,
                                                struct ms_rng *rng);
/* Adds a task that runs only on `size` slices (t seconds; inf elsewhere). */
void test_add_only_task(struct ms_workload *w, const char *name, int size, double t);
/* s's migsched-schedule/1 JSON in a malloc'd buffer (*len bytes); fails the test on error. */
char *test_schedule_json_text(const struct ms_schedule *s, const struct ms_workload *w,
                              size_t *len);

/* Absolute path of a file in the source tree (static buffer, valid until the next call). */
const char *test_source_path(const char *relative);
/* Writes text to a fresh temporary file and returns its path (malloc'd). */
char *test_write_temp(const char *text);
/* A fresh temporary folder /tmp/migsched-<what>-XXXXXX into buf (fails the test if not). */
void test_temp_dir(const char *what, char *buf, size_t len);
/* rm -rf of such a folder (fails the test if it cannot). */
void test_remove_dir(const char *dir);

/* Checks grad (backpropagation) against central finite differences of loss(ctx) with step h
 * in each of params[0..n): |fd - grad| <= abs_tol + 1% of |fd|, else fails the test. */
void test_check_gradient(float *params, const float *grad, size_t n, float h, double abs_tol,
                         double (*loss)(void *ctx), void *ctx);

#endif
