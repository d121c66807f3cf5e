/* The baselines fiacheck-bench-fast measures fast/ against in the same run,
 * each in its own file and each optional at build time (CMakeLists.txt
 * defines FIA_HAVE_OPENBLAS / FIA_HAVE_DNNL where the library was found):
 * without its library a baseline says so and returns -1. */
#ifndef FIA_BENCH_BASELINES_H
#define FIA_BENCH_BASELINES_H

#include <stddef.h>
#include "fast_runner.h"

/* GFLOP/s of OpenBLAS's C = A.B^T, M = N = n, K = k, THREADS threads, best
 * of reps (baseline_openblas.c); -1 when built without OpenBLAS. */
double baseline_sgemm_gflops(int n, int k, int reps);

/* Seconds of the oneDNN composition (matmul with the scale, the causal
 * mask added, softmax, matmul) on shape s, best of reps, f16 when this
 * CPU's oneDNN has an optimized f16 matmul, else f32 with the inputs
 * converted before timing; what says which (baseline_onednn.c).  -1 with
 * the reason in what when it cannot run (built without oneDNN, say). */
double baseline_onednn_attention(const shape *s, const data *d, int reps,
                                 char *what, size_t wlen);

#endif
