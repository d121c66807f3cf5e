/* bench --fast's first baseline: OpenBLAS sgemm, the practical ceiling of
 * a matrix product on these cores (baselines.h). */
#include <math.h>
#include <stdlib.h>
#include "baselines.h"
#include "fast_runner.h"

#ifdef FIA_HAVE_OPENBLAS
/* Declared here: the cblas header's directory differs between packagings. */
enum { CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112 };
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc);
void openblas_set_num_threads(int n);

/* GFLOP/s of C = A.B^T, M = N = n, K = k, best of reps. */
double baseline_sgemm_gflops(int n, int k, int reps)
{
    openblas_set_num_threads(THREADS);
    float *a = malloc((size_t)n * k * 4), *b = malloc((size_t)n * k * 4);
    float *c = malloc((size_t)n * n * 4);
    for (size_t i = 0; i < (size_t)n * k; i++)
        a[i] = (float)(rnd() % 1000) * 1e-3f, b[i] = (float)(rnd() % 1000) * 1e-3f;
    double best = INFINITY;
    for (int r = 0; r < reps + 1; r++) { /* + a warm-up */
        double t0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, k, 1.0f, a,
                    k, b, k, 0.0f, c, n);
        double dt = now() - t0;
        best = r > 0 && dt < best ? dt : best;
    }
    free(a), free(b), free(c);
    return 2.0 * n * (double)n * k / best * 1e-9;
}
#else
double baseline_sgemm_gflops(int n, int k, int reps)
{
    (void)n, (void)k, (void)reps;
    return -1.0;
}
#endif

