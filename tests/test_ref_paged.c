/* The reference reads page attention (ref/read_paged.c): the same keys
 * behind a block table, in a (blocknum, block_size, H) or (blocknum, KV_N,
 * block_size, D) cache with shuffled ids and NaN in every cache row no key
 * uses, give the same correctly rounded outputs and lse, bit for bit, as
 * the contiguous call, on both paths and every layout; an id read outside
 * the cache leaves the result unspecified (refused, nothing computed); a
 * block_size of 0 with a table is refused.  The paged forms are built by
 * fuzz_metamorphic's builder (fuzz/meta_paged.c), an index mapping written
 * apart from ref/'s. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "fuzz/fuzz_internal.h"
#include "ref_testlib.h"

static void one(const char *layout, int64_t qs, int64_t bs, int cache4d,
                uint64_t seed)
{
    char text[1024];
    ref_text_70(text, sizeof text, layout, qs,
                "actual_seq_lengths_kv = [70,0,33]\nvalue.gen = uniform(-2,2)\n",
                seed);
    fia_case c, p;
    fia_error err;
    fz_geom g;
    CHECK(fia_case_parse_string(text, "plain", &c, &err) == FIA_OK);
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case_init(&p);
    CHECK(fia_case_copy(&p, &c) == FIA_OK);
    CHECK(fz_page_case(&c, &g, bs, cache4d, seed, 0, &p, &err) == FIA_OK);
    fia_ref_result r1, r2;
    fia_status s1 = ref_compute_case(&c, &r1, &err);
    fia_status s2 = ref_compute_case(&p, &r2, &err);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s Q_S %lld bs %lld %s: %d %d %s",
              layout, (long long)qs, (long long)bs, cache4d ? "4-D" : "3-D",
              s1, s2, err.msg);
    if (s1 == FIA_OK && s2 == FIA_OK) {
        CHECK_MSG(r1.out_numel == r2.out_numel &&
                      ref_same_bits(&r1.out, &r2.out, r1.out_numel, 2),
                  "%s Q_S %lld bs %lld %s: outputs differ", layout,
                  (long long)qs, (long long)bs, cache4d ? "4-D" : "3-D");
        CHECK_MSG(r1.lse_numel == r2.lse_numel &&
                      ref_same_bits(&r1.lse, &r2.lse, r1.lse_numel, 4),
                  "%s Q_S %lld bs %lld: lse differs", layout, (long long)qs,
                  (long long)bs);
    }
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);

    /* a block id read outside the cache: refused, nothing computed */
    fia_tensor_spec *t = &p.tensors[FIA_SLOT_BLOCK_TABLE];
    int64_t blocknum = p.tensors[FIA_SLOT_KEY].t[0].shape[0];
    double keep = t->gen.values[0];
    t->gen.values[0] = (double)blocknum;
    CHECK_EQ_INT(ref_compute_case(&p, &r2, &err), FIA_ERR_PARAM_INVALID);
    CHECK(strstr(err.msg, "unspecified") != NULL);
    CHECK(r2.out.data == NULL);
    fia_ref_result_free(&r2);
    t->gen.values[0] = -1;
    CHECK_EQ_INT(ref_compute_case(&p, &r2, &err), FIA_ERR_PARAM_INVALID);
    fia_ref_result_free(&r2);
    t->gen.values[0] = keep;
    /* an entry batch 1 (no keys) holds is never read */
    t->gen.values[t->t[0].shape[1]] = 1e6;
    CHECK_EQ_INT(ref_compute_case(&p, &r2, &err), FIA_OK);
    fia_ref_result_free(&r2);
    fia_case_free(&c);
    fia_case_free(&p);
}

int main(void)
{
    static const char *layouts[] = {"BSH", "BSND", "BNSD"};
    for (int l = 0; l < 3; l++)
        for (int rank4 = 0; rank4 < 2; rank4++) {
            one(layouts[l], 1, 16, rank4, 11 + (uint64_t)l);
            one(layouts[l], 1, 48, rank4, 21 + (uint64_t)l);
            one(layouts[l], 5, 128, rank4, 31 + (uint64_t)l);
        }
    /* block_size 0 with a table: refused */
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(
              "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,16,16]\n"
              "value = fp16 [1,1,16,16]\ninput_layout = BNSD\nnum_heads = 1\n"
              "block_table = int32 [1,1]\nactual_seq_lengths_kv = [3]\n",
              "bs0", &c, &err) == FIA_OK);
    fia_ref_result r;
    CHECK_EQ_INT(ref_compute_case(&c, &r, &err), FIA_ERR_PARAM_INVALID);
    CHECK(strstr(err.msg, "block_size") != NULL);
    fia_ref_result_free(&r);
    fia_case_free(&c);
    return check_summary();
}
