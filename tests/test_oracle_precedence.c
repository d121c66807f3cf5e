/* Which of several broken rules decides a case's status: the layers'
 * precedence (nullptr < dtype < not modeled < semantic), the order of the
 * late stages, and robustness on malformed cases. */
#include "oracle_testlib.h"

/* A call (a base and its override) and its expected status in each
 * profile. */
typedef struct status_case {
    const char *base, *over;
    fia_status doc, cann;
    const char *what;
} status_case;

static void check_status_cases(const status_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *t = mk(c[i].base, c[i].over);
        expect_both(t, c[i].doc, c[i].cann, c[i].what);
        free(t);
    }
}

/* Layer precedence: nullptr < dtype < not modeled < semantic. */
static void test_precedence(void)
{
    static const status_case cases[] = {
        {PREFILL, "key = null\nvalue = fp32 [1,2,32,64]\nsparse_mode = 9",
         FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR, "null beats dtype"},
        {PREFILL, "pse_shift = fp16 [1,2,16,32]\nkey = null",
         FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR,
         "null beats not modeled"},
        {PREFILL, "pse_shift = fp16 [1,2,16,32]\natten_mask = fp32 [16,32]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID,
         "dtype beats not modeled"},
        {TND, "query_padding_size = int64 [1]\nsparse_mode = 9",
         FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED,
         "not modeled beats semantic"},
        /* a late row (NM-011: dequant_scale_query outside MLA full
         * quantization) is decided after every documented rejection */
        {PREFILL, "dequant_scale_query = fp32 [1,2,16]\nsparse_mode = 9",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "semantic beats a late not modeled"},
        /* the prefix's refusal is in the last layer: its own rules and every
         * other semantic rule come first */
        {DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
          "value_shared_prefix = fp16 [1,2,8,64]\n"
          "pse_shift = fp16 [2,2,1,32]\nnum_heads = 3",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "semantic beats the prefix's late not modeled"},
        {DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
          "value_shared_prefix = fp16 [1,2,8,64]\n"
          "pse_shift = fp16 [2,2,1,31]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "pse's shape rule beats the prefix's not modeled"},
        {DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
          "value_shared_prefix = fp16 [1,2,8,64]\n"
          "pse_shift = fp16 [2,2,1,32]",
         FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED,
         "decode prefix with a narrow pse: not modeled"},
        {DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
          "value_shared_prefix = fp16 [1,2,8,64]\n"
          "pse_shift = fp16 [2,2,1,40]",
         FIA_OK, FIA_OK, "decode prefix with a pse of P + KV_S"},
        /* the sink's not-modeled row (full int8, rope) is late: a wrong sink
         * and MLA's own rules come first; a valid sink elsewhere computes */
        {MLA_D, "learnable_sink = bf16 [32]\nkey_rope = null",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "an MLA rule beats the sink's late not modeled"},
        {MLA_D, "learnable_sink = fp16 [32]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "the sink's dtype beats its late not modeled"},
        {PAGED_D, "learnable_sink = bf16 [32]",
         FIA_OK, FIA_OK, "a bf16 [N] sink is accepted"},
        {PREFILL, "query = fp32 [1,2,16,64]\nsparse_mode = 9",
         FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID, "dtype beats semantic"},
        {PREFILL, "softmax_lse_flag = true\nsoftmax_lse = null\n"
          "sparse_mode = 9",
         FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR,
         "lse null beats semantic"},
        /* the empty-query shortcut does not skip the nullptr/dtype layers */
        {PREFILL, "query = fp16 [1,2,0,64]\natten_mask = fp32 [16,32]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID,
         "empty query still checks dtypes"},
    };
    check_status_cases(cases, OTL_ROWS(cases));
    char *t;
    /* GQA-003 fires in both profiles but rejects only in doc */
    t = mk(PREFILL, "query = fp16 [1,130,2,16]\nnum_heads = 130\n"
                    "num_key_value_heads = 2\nkey = fp16 [1,2,4,16]\n"
                    "value = fp16 [1,2,4,16]");
    fia_oracle_verdict v;
    CHECK(eval(t, FIA_PROFILE_CANN, &v) == 0);
    CHECK(v.accept && v.expected == FIA_OK);
    CHECK(in_list(v.fired, v.n_fired, "GQA-003"));
    free(t);
}

/* The released code's early return for a call that reads no key (profile
 * cann, oracle/order.c): the rules of its later stage do not apply there,
 * those before it do, and the doc profile applies every rule. */
static void test_order(void)
{
    static const status_case cases[] = {
        /* PREC-002 (inner_precise 3 at Q_S = 1), every length 0 */
        {DECODE, "inner_precise = 3\nactual_seq_lengths_kv = [0,0]",
         FIA_ERR_PARAM_INVALID, FIA_OK, "late stage, no key read"},
        /* one batch reads keys: no early return */
        {DECODE, "inner_precise = 3\nactual_seq_lengths_kv = [0,4]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "late stage, keys read"},
        /* a key of S 0 without lengths; LAYOUT-011 (key N 1, KV_N 2) */
        {DECODE, "key = fp16 [2,1,0,64]\nvalue = fp16 [2,1,0,64]",
         FIA_ERR_PARAM_INVALID, FIA_OK, "key S 0, head count"},
        /* before the return: the lengths' own checks (SEQ-014) */
        {DECODE, "inner_precise = 3\nactual_seq_lengths_kv = [0,-1]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "a negative length is no empty key"},
        /* before the return: the shared prefix's shape (PREFIX-004) */
        {PREFILL, "actual_seq_lengths_kv = [0]\n"
          "key_shared_prefix = fp16 [1,1,8,64]\n"
          "value_shared_prefix = fp16 [1,1,8,64]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "prefix shape before the return"},
        /* after it: the prefix length beyond the prefix (PREFIX-007) */
        {PREFILL, "actual_seq_lengths_kv = [0]\n"
          "key_shared_prefix = fp16 [1,2,8,64]\n"
          "value_shared_prefix = fp16 [1,2,8,64]\n"
          "actual_shared_prefix_len = [9]",
         FIA_ERR_PARAM_INVALID, FIA_OK, "prefix length after it"},
        /* after it: a single value's shape against the key's (LAYOUT-014) */
        {DECODE, "value = fp16 [2,2,33,64]\nactual_seq_lengths_kv = [0,0]",
         FIA_ERR_PARAM_INVALID, FIA_OK, "single value's shape after it"},
        /* before it: a list tensor's shape against its pair's (LIST-008),
         * at Q_S > 1 (lengths all 0) and at Q_S = 1 (every key S 0) */
        {LIST3, "value = fp16 [1,2,32,64]; fp16 [1,2,21,64]; fp16 [1,2,9,64]\n"
          "actual_seq_lengths_kv = [0,0,0]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "list shapes before the return (prefill)"},
        {LIST3, "query = fp16 [3,2,1,64]\n"
          "key = fp16 [1,2,0,64]; fp16 [1,2,0,64]; fp16 [1,2,0,64]\n"
          "value = fp16 [1,2,1,64]; fp16 [1,2,0,64]; fp16 [1,2,0,64]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
         "list shapes before the return (decode, key S 0)"},
        {LIST3, "actual_seq_lengths_kv = [0,0,0]", FIA_OK, FIA_OK,
         "lists of one shape, no key read"},
    };
    check_status_cases(cases, OTL_ROWS(cases));
    for (size_t i = 0; orc_after_empty_kv_id(i) != NULL; i++)
        CHECK_MSG(fia_rule_find(orc_after_empty_kv_id(i)) != NULL,
                  "order.c names %s, no rule", orc_after_empty_kv_id(i));
}

static void test_robustness(void)
{
    static const char *const overs[] = {
        "query = fp16 []",
        "query = fp16 [0]",
        "key = fp16 []\nvalue = fp16 []",
        "query = fp16 [1,2,3,4,5,6,7,8]",
        "atten_mask = bool []",
        "atten_mask = bool [5]",
        "atten_mask = bool [1,2,3,4,5,6,7,8]",
        "softmax_lse_flag = true\nsoftmax_lse = fp32 []",
        "attention_out = fp16 []",
        "actual_seq_lengths = [1,2,3,4,5,6,7,8,9,10]",
        "actual_seq_lengths_kv = [9223372036854775807]",
        "num_heads = -9223372036854775808",
        "num_key_value_heads = -9223372036854775808",
        "num_heads = 9223372036854775807",
        "query = fp16 [9223372036854775807,9223372036854775807,2,2]",
        "input_layout = BSH",
        "input_layout = BNSD_BSND\nquery = fp16 [1,2,1]",
        "input_layout = BSH\nnum_heads = 0",
        ("sparse_mode = 3\natten_mask = bool []\n"
          "actual_seq_lengths_kv = [1,2,3]"),
        "inner_precise = -9223372036854775808",
        "scale = nan",
        "key = fp16 [1,2,32,64]; fp16 [1]\nvalue = fp16 [1]",
    };
    static const char *const bases[] = {PREFILL, DECODE, BSH};
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        for (size_t i = 0; i < sizeof overs / sizeof overs[0]; i++) {
            char *t = mk(bases[b], overs[i]);
            fia_oracle_verdict v;
            fia_case c;
            fia_error err;
            if (fia_case_parse_string(t, "<robust>", &c, &err) == 0) {
                CHECK(fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) ==
                      FIA_OK);
                CHECK(fia_oracle_evaluate(&c, FIA_PROFILE_CANN, &v, NULL) ==
                      FIA_OK);
                fia_case_free(&c);
            }
            free(t);
        }
    }
    fia_error err;
    fia_oracle_verdict v;
    CHECK(fia_oracle_evaluate(NULL, FIA_PROFILE_DOC, NULL, NULL) ==
          FIA_ERR_BAD_INPUT);
    CHECK(fia_oracle_evaluate(NULL, FIA_PROFILE_DOC, &v, &err) ==
          FIA_ERR_BAD_INPUT);
    CHECK(err.code == FIA_ERR_BAD_INPUT && err.msg[0] != '\0');
    CHECK(v.accept && v.n_fired == 0);
}

int main(void)
{
    test_precedence();
    test_order();
    test_robustness();
    return check_summary();
}
