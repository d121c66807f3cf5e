/* fuzz_numeric's -inf scores reach a kernel's first blocks: besides single
 * keys of score -inf (with inf / NaN values), leading runs of such keys --
 * a whole first block of 64 and more, then a finite key the row reads --
 * so that a kernel whose running max is -inf for a block is tested (an
 * online softmax once computed exp(-inf - (-inf)) = NaN there). */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz/gen.h"
#include "fuzz_testlib.h"

/* The longest run of keys from key 0 whose k[0] is -inf over every
 * (batch, KV head) of k (m values); *after set when a run of 64 or more is
 * followed by a key within kv_len. */
static int64_t leading_run(const fia_case *c, const fz_geom *g,
                           const double *k, int64_t m, int *after)
{
    int64_t best = 0;
    *after = 0;
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t h = 0; h < g->KV_N; h++) {
            int64_t len = fz_kv_len(c, g, b);
            len = len < g->KV_S ? len : g->KV_S; /* an invalid call's */
            int64_t i = 0;
            for (; i < len; i++) {
                const int64_t at = fz_index(g->layout, g->B, g->KV_N, g->KV_S,
                                            g->D, b, h, i, 0);
                if (at < 0 || at >= m || k[at] != -INFINITY)
                    break;
            }
            best = i > best ? i : best;
            *after |= i >= 64 && i < len;
        }
    return best;
}

int main(void)
{
    fuzz_rng r = {2027};
    uint8_t buf[512];
    int n = check_draws(12000), single = 0, run16 = 0, block = 0;
    for (int t = 0; t < n; t++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        fz_geom g;
        const fia_tensor_spec *ks = &c.tensors[FIA_SLOT_KEY];
        if (ks->presence == FIA_PRESENT && ks->gen.kind == FIA_GEN_VALUES &&
            !c.live_rows && fz_geom_of_call(&c, &g) == 0 && !g.paged &&
            !g.list && !g.tnd && g.P == 0) {
            int64_t m;
            double *k = ftl_data_of(&c, FIA_SLOT_KEY, &m);
            int after = 0;
            /* key's head dim as value's (not so with a rope, say) */
            const int shaped = m == g.B * g.KV_N * g.KV_S * g.D;
            const int64_t run =
                k && shaped ? leading_run(&c, &g, k, m, &after) : 0;
            single += run == 1;
            run16 += run >= 16;
            block += after;
            free(k);
        }
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d inputs; a leading run of -inf scores of 1 key "
           "%d, >= 16 keys %d, >= 64 keys before a finite one %d\n", n,
           single, run16, block);
    CHECK_COUNT(single > 10);
    CHECK_COUNT(run16 > 10);
    CHECK_COUNT(block > 0);
    return check_summary();
}
