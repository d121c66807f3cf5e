/* The reference reads the 003 token layouts (ref/read_tnd.c): a batched
 * bf16 case packed as TND or NTD_TND (rows past each batch's length
 * dropped, lengths cumulative, D padded with zero query/key columns and
 * value columns repeated) gives, bit for bit, the batched outputs and lse
 * on every row the documents define, on both paths, with sparse mode 0 and
 * 3.  The packed forms are built by fuzz_metamorphic's builder
 * (fuzz/meta_tnd.c), an index mapping written apart from ref/'s.  Counts
 * that are not cumulative, or that end off T, are refused without
 * reading. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "fuzz/fuzz_internal.h"
#include "ref_testlib.h"

static int same_bits(const fia_tensor *a, int64_t ia, const fia_tensor *b,
                     int64_t ib, int bytes)
{
    return memcmp((const char *)a->data + ia * bytes,
                  (const char *)b->data + ib * bytes, (size_t)bytes) == 0;
}

/* Batch b's first token in the packed form. */
static int64_t tok0(const fia_case *t, int64_t b)
{
    const fia_int_array_spec *a = &t->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    return b ? a->values[b - 1] : 0;
}

static void one(const char *layout, int64_t qs, const char *extra,
                uint64_t seed)
{
    char text[1024], qsh[32], ksh[32];
    if (strcmp(layout, "BSH") == 0) {
        snprintf(qsh, sizeof qsh, "[3,%lld,192]", (long long)qs);
        snprintf(ksh, sizeof ksh, "[3,70,96]");
    } else if (strcmp(layout, "BNSD") == 0) {
        snprintf(qsh, sizeof qsh, "[3,4,%lld,48]", (long long)qs);
        snprintf(ksh, sizeof ksh, "[3,2,70,48]");
    } else {
        snprintf(qsh, sizeof qsh, "[3,%lld,4,48]", (long long)qs);
        snprintf(ksh, sizeof ksh, "[3,70,2,48]");
    }
    snprintf(text, sizeof text,
             "input_layout = %s\nnum_heads = 4\nnum_key_value_heads = 2\n"
             "query = bf16 %s\nkey = bf16 %s\nvalue = bf16 %s\n"
             "softmax_lse_flag = true\nseed = %llu\n%s",
             layout, qsh, ksh, ksh, (unsigned long long)seed, extra);
    fia_case c, t;
    fia_error err;
    fz_geom g;
    CHECK(fia_case_parse_string(text, "batched", &c, &err) == FIA_OK);
    CHECK(fz_geom_of(&c, &g) == 0);
    fia_case_init(&t);
    CHECK(fia_case_copy(&t, &c) == FIA_OK);
    CHECK_MSG(fz_tnd_case(&c, &g, seed, 1, &t, &err) == FIA_OK, "%s: %s",
              layout, err.msg);
    const int ntd = strcmp(t.attrs.input_layout, "NTD_TND") == 0;
    fia_ref_result r1, r2;
    fia_status s1 = ref_compute_case(&c, &r1, &err);
    fia_status s2 = ref_compute_case(&t, &r2, &err);
    CHECK_MSG(s1 == FIA_OK && s2 == FIA_OK, "%s Q_S %lld: %d %d %s", layout,
              (long long)qs, s1, s2, err.msg);
    int64_t rows = 0, bad = 0, lbad = 0;
    const int64_t Dt = t.tensors[FIA_SLOT_QUERY].t[0].shape[2];
    const int64_t T = r2.out.shape[0];
    for (int64_t b = 0; s1 == FIA_OK && s2 == FIA_OK && b < g.B; b++)
        for (int64_t n = 0; n < g.N; n++)
            for (int64_t i = 0; i < fz_q_len(&c, &g, b); i++, rows++) {
                const int64_t tk = tok0(&t, b) + i;
                for (int64_t d = 0; d < Dt; d++) {
                    /* column d of the packed form is column d mod D */
                    int64_t ia = fz_index(fz_out_layout(g.layout), g.B, g.N,
                                          g.Q_S, g.D, b, n, i, d % g.D);
                    bad += !same_bits(&r1.out, ia, &r2.out,
                                      (tk * g.N + n) * Dt + d, 2);
                }
                lbad += !same_bits(&r1.lse, (b * g.N + n) * g.Q_S + i,
                                   &r2.lse, tk * g.N + n, 4);
            }
    CHECK_MSG(bad == 0 && lbad == 0, "%s Q_S %lld %s: %lld outputs, %lld lse "
              "differ of %lld rows", layout, (long long)qs,
              ntd ? "NTD_TND" : "TND", (long long)bad, (long long)lbad,
              (long long)rows);
    CHECK(rows > 0);
    CHECK(s2 != FIA_OK || (r2.out.ndim == 3 && T == r2.lse.shape[0]));
    fia_ref_result_free(&r1);
    fia_ref_result_free(&r2);
    fia_case_free(&c);
    fia_case_free(&t);
}

static void refused(const char *asl, const char *aslkv)
{
    char text[512];
    snprintf(text, sizeof text,
             "input_layout = TND\nnum_heads = 2\nquery = bf16 [6,2,128]\n"
             "key = bf16 [9,2,128]\nvalue = bf16 [9,2,128]\n"
             "actual_seq_lengths = %s\nactual_seq_lengths_kv = %s\n",
             asl, aslkv);
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(text, "bad", &c, &err) == FIA_OK);
    fia_ref_result r;
    CHECK_EQ_INT(ref_compute_case(&c, &r, &err), FIA_ERR_PARAM_INVALID);
    CHECK(r.out.data == NULL);
    fia_ref_result_free(&r);
    fia_case_free(&c);
}

int main(void)
{
    static const char *layouts[] = {"BSH", "BSND", "BNSD"};
    for (int l = 0; l < 3; l++)
        for (uint64_t s = 0; s < 2; s++) { /* TND and NTD_TND */
            one(layouts[l], 1, "actual_seq_lengths_kv = [70,0,33]\n", s);
            one(layouts[l], 6,
                "actual_seq_lengths = [6,0,4]\n"
                "actual_seq_lengths_kv = [70,5,33]\n", s + 2);
            one(layouts[l], 6,
                "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
                "actual_seq_lengths = [6,2,4]\n"
                "actual_seq_lengths_kv = [70,5,33]\n", s + 4);
        }
    refused("[4,3,6]", "[3,6,9]");   /* goes back */
    refused("[2,4,5]", "[3,6,9]");   /* ends before T = 6 */
    refused("[2,4,6]", "[3,9]");     /* another B */
    refused("[2,4,6]", "[3,6,10]");  /* past T_kv */
    return check_summary();
}
