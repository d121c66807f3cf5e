/* The reference reads key/value tensor lists (ref/read_tensor_list.c): the
 * same keys as B tensors of batch 1, each of its own S with NaN rows past
 * its batch's length, give the same correctly rounded outputs and lse, bit
 * for bit, as the batched call, on both paths and every layout; a list of
 * the wrong length is refused without reading.  The list forms are built
 * by fuzz_metamorphic's builder (fuzz/meta_tensor_list.c), an index mapping
 * written apart from ref/'s. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "fuzz/fuzz_internal.h"
#include "ref_testlib.h"

static void one(const char *layout, int64_t qs, uint64_t seed, int lens)
{
    char text[1024];
    ref_text_70(text, sizeof text, layout, qs,
                lens ? "actual_seq_lengths_kv = [70,0,33]\n" : "", seed);
    fia_case c, l;
    fia_error err;
    fz_geom g;
    CHECK(fia_case_parse_string(text, "batched", &c, &err) == FIA_OK);
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case_init(&l);
    CHECK(fia_case_copy(&l, &c) == FIA_OK);
    CHECK(fz_list_case(&c, &g, seed, &l, &err) == FIA_OK);
    CHECK(l.tensors[FIA_SLOT_KEY].count == 3);
    fia_ref_result r1, r2;
    fia_status s1 = ref_compute_case(&c, &r1, &err);
    fia_status s2 = ref_compute_case(&l, &r2, &err);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s Q_S %lld: %d %d %s", layout,
              (long long)qs, s1, s2, err.msg);
    if (s1 == FIA_OK && s2 == FIA_OK) {
        CHECK_MSG(r1.out_numel == r2.out_numel &&
                      ref_same_bits(&r1.out, &r2.out, r1.out_numel, 2),
                  "%s Q_S %lld seed %llu: outputs differ", layout,
                  (long long)qs, (unsigned long long)seed);
        CHECK_MSG(r1.lse_numel == r2.lse_numel &&
                      ref_same_bits(&r1.lse, &r2.lse, r1.lse_numel, 4),
                  "%s Q_S %lld: lse differs", layout, (long long)qs);
    }
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);
    fia_case_free(&c);
    fia_case_free(&l);
}

int main(void)
{
    static const char *layouts[] = {"BSH", "BSND", "BNSD"};
    for (int l = 0; l < 3; l++)
        for (int lens = 0; lens < 2; lens++) {
            one(layouts[l], 1, 3 + (uint64_t)l, lens);
            one(layouts[l], 5, 7 + (uint64_t)l, lens);
        }
    /* two tensors for three batches: refused, nothing read */
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(
              "query = fp16 [3,1,1,16]\nkey = fp16 [1,1,4,16]; fp16 [1,1,4,16]\n"
              "value = fp16 [1,1,4,16]; fp16 [1,1,4,16]\ninput_layout = BNSD\n"
              "num_heads = 1\n", "short", &c, &err) == FIA_OK);
    fia_ref_result r;
    CHECK_EQ_INT(ref_compute_case(&c, &r, &err), FIA_ERR_PARAM_INVALID);
    CHECK(r.out.data == NULL);
    fia_ref_result_free(&r);
    fia_case_free(&c);
    return check_summary();
}
