/* blas.c: OpenBLAS loaded on first use (dlopen), so that the commands that do no linear
 * algebra never start its worker threads: linked in, it starts them when the program is
 * loaded, and an idle worker spins in sched_yield for a while. Every caller runs sgemm
 * single-threaded (training parallelises over environments itself), so the library is
 * told so at once. */
#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "blas_internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static __typeof__(cblas_sgemm) *sgemm;
static char why[256];

static void load(void)
{
    static const char *const names[] = {MIGSCHED_OPENBLAS_LIB, "libopenblas.so.0",
                                        "libopenblas.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why, "%s", dlerror());
        return;
    }
    __typeof__(openblas_set_num_threads) *threads = (__typeof__(openblas_set_num_threads) *)dlsym(
        lib, "openblas_set_num_threads");
    sgemm = (__typeof__(cblas_sgemm) *)dlsym(lib, "cblas_sgemm");
    if (!sgemm || !threads) {
        sgemm = NULL;
        snprintf(why, sizeof why, "OpenBLAS lacks cblas_sgemm or openblas_set_num_threads");
        return;
    }
    threads(1);
}

int learn_blas_load(ms_error *err)
{
    pthread_once(&once, load);
    return sgemm ? MS_OK : ms_error_set(err, MS_EINVAL, "cannot load OpenBLAS: %s", why);
}

void learn_blas_sgemm(bool ta, bool tb, int m, int n, int k, const float *a, int lda,
                      const float *b, int ldb, float *c, int ldc)
{
    sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k,
          1.0f, a, lda, b, ldb, 1.0f, c, ldc);
}
