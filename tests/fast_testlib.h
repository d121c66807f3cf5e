/* Helpers the fast/ feature tests share (test_fast_padding.c,
 * test_fast_prefix.c, test_fast_pse.c, ...): phase two of a call, tensors
 * of a 002 layout, a
 * reproducible stream of values exact in fp16 and bf16, and the poison the
 * rows no call may read hold.  Header-only; tests only. */
#ifndef FIA_TESTS_FAST_TESTLIB_H
#define FIA_TESTS_FAST_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include "fia/dtype.h"
#include "fia/fast.h"
#include "fia/tensor.h"
#include "test_rng.h"

/* Phase two of an executor with a workspace of wss bytes (+ 64: room for
 * the alignment fast/ asks); its status.  FIA_ERR_NOMEM when the workspace
 * cannot be had (the executor is then not run). */
static inline fia_status ftl_phase_two(fast_executor *ex, uint64_t wss)
{
    void *ws = malloc(wss + 64);
    if (ws == NULL)
        return FIA_ERR_NOMEM;
    fia_status st = fastFusedInferAttentionScoreV2(ws, wss + 64, ex, NULL);
    free(ws);
    return st;
}

/* BNSD or BNSD_BSND: heads before rows. */
static inline bool ftl_bnsd(const char *layout)
{
    return strncmp(layout, "BNSD", 4) == 0;
}

/* Element of row s of head n of batch b in a tensor of H heads, S rows,
 * head dim D: [B, H, S, D] or [B, S, H, D] (BSH alike). */
static inline int64_t ftl_at(bool bnsd, int64_t H, int64_t S, int64_t D,
                             int64_t b, int64_t n, int64_t s)
{
    return bnsd ? ((b * H + n) * S + s) * D : ((b * S + s) * H + n) * D;
}

/* A tensor of nb batches of H heads, S rows and head dim D in the layout
 * (bnsd: heads before rows; an output of BNSD_BSND has them after). */
static inline fia_tensor ftl_tensor(const char *layout, bool bnsd,
                                    fia_dtype dt, int64_t nb, int64_t H,
                                    int64_t S, int64_t D, void *data)
{
    fia_tensor t = {.dtype = dt, .ndim = 4, .data = data};
    if (strcmp(layout, "BSH") == 0) {
        t.ndim = 3;
        t.shape[0] = nb, t.shape[1] = S, t.shape[2] = H * D;
    } else if (bnsd) {
        t.shape[0] = nb, t.shape[1] = H, t.shape[2] = S, t.shape[3] = D;
    } else {
        t.shape[0] = nb, t.shape[1] = S, t.shape[2] = H, t.shape[3] = D;
    }
    return t;
}

/* A linear congruential stream (the tests' data is reproducible). */
static uint64_t ftl_rng = 0x9e3779b97f4a7c15ull;
static inline uint32_t ftl_next32(void)
{
    return test_lcg64_hi31(&ftl_rng);
}

/* A value of [-2, 2) with 10 fraction bits: exact in fp16 and bf16. */
static inline uint16_t ftl_rnd(fia_dtype dt)
{
    float x = ((float)(ftl_next32() % 4096) - 2048.0f) / 1024.0f;
    return dt == FIA_DT_FP16 ? fia_float_to_fp16(x) : fia_float_to_bf16(x);
}

/* What the rows no call may read hold: NaN (shows through any sum), or,
 * ftl_poison_finite, 7.5 (the decode kernel recomputes a non-finite result
 * by the blocked loop, which would hide its own wrong read of a NaN row). */
static bool ftl_poison_finite;
static inline uint16_t ftl_poison(fia_dtype dt)
{
    if (ftl_poison_finite)
        return dt == FIA_DT_FP16 ? fia_float_to_fp16(7.5f)
                                 : fia_float_to_bf16(7.5f);
    return dt == FIA_DT_FP16 ? 0x7e00u : 0x7fc0u;
}

static inline bool ftl_is_nan16(fia_dtype dt, uint16_t h)
{
    return dt == FIA_DT_FP16 ? (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)
                             : (h & 0x7f80u) == 0x7f80u && (h & 0x7fu);
}

/* Whether a test that runs its calls at every kernel level runs them at
 * this one: every level the CPU has, or, with FIA_FAST_ISA set (ctest's
 * per-level variants of the test), the one level it selects, so that the
 * variants split the levels instead of each repeating all of them. */
static inline bool ftl_level_wanted(const char *level)
{
    if (!fastKernelLevelAvailable(level))
        return false;
    const char *env = getenv("FIA_FAST_ISA");
    if (env == NULL || *env == '\0')
        return true;
    fastForceKernelLevel("auto");
    return strcmp(fastKernelLevel(), level) == 0;
}

#endif
