/* fuzz_numeric's shapes reach every path of fast/: over random inputs the
 * decoded cases regularly cross each of fast/'s thresholds (read from
 * fastPathThresholds, as the generator reads them), carry every thread
 * count 1..4 and every kernel level this CPU and build have, and stay
 * within the reference's budget (FZ_NUM_MAX_WORK).  A generator that
 * shrinks back to tiny problems fails here. */
#include <stdlib.h>
#include "check.h"
#include "fia/fast.h"
#include "fuzz/fuzz.h"
#include "fuzz/gen.h"

#define INPUTS 20000

static uint64_t next(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int64_t dim(const fia_tensor *t, int i) { return t->shape[i]; }

int main(void)
{
    fast_path_thresholds th;
    fastPathThresholds(&th);
    int tail = 0, split = 0, rows_tiled = 0, rows_blocks = 0, dtail_pre = 0,
        dtail_dec = 0, decoded = 0, huge = 0, threads[5] = {0}, levels[FIA_KL_COUNT] = {0};
    double *works = calloc(INPUTS, sizeof *works);
    uint64_t x = 12345;
    uint8_t buf[512];
    for (int i = 0; i < INPUTS && works; i++) {
        size_t n = 64 + next(&x) % 449;
        for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t)next(&x);
        fia_case c;
        if (fuzz_decode_numeric(buf, n, &c) != FIA_OK) {
            fia_case_free(&c);
            continue;
        }
        decoded++;
        const fia_tensor *q = &c.tensors[FIA_SLOT_QUERY].t[0];
        const fia_tensor *k = &c.tensors[FIA_SLOT_KEY].t[0];
        /* the layouts: BSH [B,S,H], BSND [B,S,N,D], BNSD(_BSND) [B,N,S,D] */
        const char *lay = c.attrs.input_layout;
        int bnsd = lay[0] == 'B' && lay[1] == 'N';
        int64_t qs = q->ndim == 3 ? dim(q, 1) : bnsd ? dim(q, 2) : dim(q, 1);
        int64_t kvs = k->ndim == 3 ? dim(k, 1) : bnsd ? dim(k, 2) : dim(k, 1);
        int64_t nq = c.attrs.num_heads, nkv = c.attr_given[FIA_ATTR_NUM_KEY_VALUE_HEADS]
                                                 ? c.attrs.num_key_value_heads : nq;
        int64_t d = q->ndim == 3 ? dim(q, 2) / nq : dim(q, 3);
        int64_t group = nkv > 0 ? nq / nkv : 1;
        int64_t nthreads = c.threads > 0 ? c.threads : 2;
        if (qs > 1 && kvs > th.key_block && kvs % th.key_block != 0)
            tail++;
        if (qs == 1 && nthreads > 1 && kvs >= th.split_min_keys)
            split++;
        if (qs > 1 && group * qs > th.dot_max_rows)
            rows_tiled++;
        if (qs > 1 && group * qs > th.rows_per_task)
            rows_blocks++;
        if (d % th.d_tile != 0)
            *(qs > 1 ? &dtail_pre : &dtail_dec) += 1;
        threads[c.threads >= 1 && c.threads <= 4 ? c.threads : 0]++;
        /* K/V past 2^32 elements with live rows only */
        if (c.live_rows && (double)fia_tensor_numel(k) > 4294967296.0)
            huge++;
        levels[c.kernel_level]++;
        works[i] = fia_check_reference_work(&c);
        fia_case_free(&c);
    }
    CHECK(decoded > INPUTS * 9 / 10);
    /* each path in at least ~1 % of the cases (the plans give 6-8 % each) */
    int min = INPUTS / 100;
    CHECK_MSG(tail > min, "prefill ragged tail past one key block: %d", tail);
    CHECK_MSG(split > min / 2, "decode split across threads: %d", split);
    CHECK_MSG(rows_tiled > min, "prefill past the dot form: %d", rows_tiled);
    CHECK_MSG(rows_blocks > min / 2, "several row blocks per head: %d",
              rows_blocks);
    /* prefill takes only D % 16 == 0 (LAYOUT-024): the tile edge is
     * decode's */
    CHECK_MSG(dtail_pre == 0 && dtail_dec > min, "D tails: %d prefill, %d "
              "decode", dtail_pre, dtail_dec);
    CHECK_MSG(huge > 20, "K/V past 2^32 elements: %d", huge);
    for (int t = 1; t <= 4; t++)
        CHECK_MSG(threads[t] > min / 2, "threads = %d in %d cases", t,
                  threads[t]);
    for (int l = FIA_KL_SCALAR; l < FIA_KL_COUNT; l++)
        if (fastKernelLevelAvailable(fia_kernel_level_name((fia_kernel_level)l)))
            CHECK_MSG(levels[l] > min / 2, "kernel_level = %s in %d cases",
                      fia_kernel_level_name((fia_kernel_level)l), levels[l]);
    /* and the reference stays affordable */
    double worst = 0;
    for (int i = 0; works && i < INPUTS; i++)
        worst = works[i] > worst ? works[i] : worst;
    CHECK_MSG(worst <= FZ_NUM_MAX_WORK, "reference work up to %g", worst);
    printf("of %d cases: tail %d, split %d, tiled rows %d, row blocks %d, "
           "D tail %d + %d, huge K/V %d, threads 1..4: %d %d %d %d, max work "
           "%.3g\n", decoded, tail, split, rows_tiled, rows_blocks, dtail_pre,
           dtail_dec, huge, threads[1], threads[2], threads[3], threads[4],
           worst);
    free(works);
    return check_summary();
}
