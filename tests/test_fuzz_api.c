/* The metamorphic relation "api=<name>" (fuzz/meta_api.c): a call written
 * through another interface and read back is the same call, so fast/ gives
 * identical outputs; a case the interface cannot express does not apply;
 * the decoder picks it now and then, only for cases it can express. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/oracle.h"
#include "fuzz/fuzz.h"
#include "test_rng.h"

static const char *gqa_prefill =
    "input_layout = BNSD\nnum_heads = 4\nnum_key_value_heads = 2\n"
    "scale = 0.125\nsoftmax_lse_flag = true\n"
    "query = fp16 [2,4,9,64]\nkey = fp16 [2,2,33,64]\nvalue = fp16 [2,2,33,64]\n"
    "actual_seq_lengths = [9,4]\nactual_seq_lengths_kv = [33,20]\nseed = 3\n";

static const char *decode_kv =
    "input_layout = BSH\nnum_heads = 4\nnum_key_value_heads = 1\n"
    "query = bf16 [2,1,256]\nkey = bf16 [2,70,64]\nvalue = bf16 [2,70,64]\n"
    "actual_seq_lengths_kv = [70,21]\nseed = 9\n";

static void relation(const char *text, const char *transform, int applies)
{
    fia_case c, out;
    fia_error err;
    CHECK(fia_case_parse_string(text, "t", &c, &err) == FIA_OK);
    fia_status st = fuzz_meta_transform(&c, transform, &out, &err);
    CHECK_MSG((st == FIA_OK) == applies, "%s: status %d (%s)", transform,
              (int)st, err.msg);
    if (st == FIA_OK) {
        CHECK(fia_case_equal(&c, &out));
        CHECK_EQ_INT(out.api, fia_api_from_name(transform + 4));
        fia_case_free(&out);
        fuzz_meta_result r;
        fuzz_meta_check(&c, transform, FIA_PROFILE_DOC, &r);
        CHECK_MSG(r.applicable && !r.finding, "%s: %s %s", transform, r.kind,
                  r.message);
        CHECK(r.max_ulp == 0);
    }
    fia_case_free(&c);
}

/* fuzz_params gives 004's out_dtype now and then: the oracle then fires
 * NM-017 (the call refused as not modeled unless a rule rejects it) */
static void out_dtype_params(void)
{
    int given = 0, fired = 0;
    for (unsigned s = 0; s < 3000; s++) {
        uint8_t buf[256];
        uint32_t x = s * 2246822519u + 7;
        for (size_t i = 0; i < sizeof buf; i++) {
            buf[i] = (uint8_t)test_xorshift32(&x);
        }
        fia_case c;
        if (fuzz_decode_params(buf, sizeof buf, &c) == FIA_OK &&
            c.attrs.out_dtype >= 0) {
            given++;
            fia_oracle_verdict v;
            if (fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) == FIA_OK)
                for (int i = 0; i < v.n_fired; i++)
                    fired += strcmp(v.fired[i]->id, "NM-017") == 0;
        }
        fia_case_free(&c);
    }
    fprintf(stderr, "fuzz_params: out_dtype given in %d of 3000, NM-017 "
            "fired on %d\n", given, fired);
    CHECK(given >= 5 && fired == given);
}

int main(void)
{
    out_dtype_params();
    relation(gqa_prefill, "api=torch_npu_v2", 1);
    relation(gqa_prefill, "api=mindspore", 1);
    relation(gqa_prefill, "api=torchair_v2", 1);
    /* 001 has no query lengths and no softmax_lse */
    relation(gqa_prefill, "api=incre_flash_attention", 0);
    relation(decode_kv, "api=incre_flash_attention", 1);
    relation(decode_kv, "api=torchair_v2", 1);
    relation(decode_kv, "api=aclnn_v2", 1);
    relation(decode_kv, "api=nope", 0);

    /* the decoder: stored seeds (run out before the api byte) keep their
     * transform; bytes that ask for it get an api= transform the case can
     * be written in */
    int seen = 0;
    for (unsigned s = 0; s < 400; s++) {
        uint8_t buf[512];
        uint32_t x = s * 2654435761u + 1;
        for (size_t i = 0; i < sizeof buf; i++) {
            buf[i] = (uint8_t)test_xorshift32(&x);
        }
        fia_case c;
        char tr[64];
        if (fuzz_decode_metamorphic(buf, sizeof buf, &c, tr, sizeof tr) !=
            FIA_OK) {
            fia_case_free(&c);
            continue;
        }
        if (strncmp(tr, "api=", 4) == 0) {
            seen++;
            CHECK(fia_case_expressible(&c, (fia_api)fia_api_from_name(tr + 4),
                                       NULL, 0));
            fia_case out;
            fia_error err;
            CHECK(fuzz_meta_transform(&c, tr, &out, &err) == FIA_OK);
            CHECK(fia_case_equal(&c, &out));
            fia_case_free(&out);
        }
        fia_case_free(&c);
    }
    CHECK_MSG(seen > 0, "no api= transform in 400 decodes");
    return check_summary();
}
