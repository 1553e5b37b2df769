/* blas_internal.h: the one OpenBLAS routine the networks use, loaded on first use. */
#ifndef MIGSCHED_BLAS_INTERNAL_H
#define MIGSCHED_BLAS_INTERNAL_H

#include <stdbool.h>

#include "migsched/error.h"

/* Loads OpenBLAS once (single-threaded); later calls only report the outcome. */
int learn_blas_load(ms_error *err);
/* C += op(A) op(B), row-major (C m x n, inner size k), op = transpose when ta / tb; only
 * after learn_blas_load succeeded. */
void learn_blas_sgemm(bool ta, bool tb, int m, int n, int k, const float *a, int lda,
                      const float *b, int ldb, float *c, int ldc);

#endif
