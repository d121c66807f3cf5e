/* The oracle's two profiles: the valid bases accepted in both, the released
 * code's readings (profile cann accepts where the documents reject, and what
 * both still reject), and the rows whose profiles disagree, each with its
 * reason. */
#include "oracle_testlib.h"

static void test_baselines(void)
{
    expect_both(PREFILL, FIA_OK, FIA_OK, "prefill base");
    expect_both(PREFILL3, FIA_OK, FIA_OK, "prefill3 base");
    expect_both(DECODE, FIA_OK, FIA_OK, "decode base");
    expect_both(BSH, FIA_OK, FIA_OK, "bsh base");
    expect_both(MLA_NBSD, FIA_OK, FIA_OK, "MLA BSH_NBSD base");
    expect_both(MLA_NZ, FIA_OK, FIA_OK, "MLA NZ cache base");
    expect_both(MLA_QUERY_QUANT, FIA_OK, FIA_OK, "MLA full quantization base");
    expect_both(MLA_QUERY_QUANT_NZ, FIA_OK, FIA_OK,
                "MLA full quantization NZ base");
    char *t;
    /* learnable_sink with MLA (NM-015 narrowed): accepted, computed */
    static const struct {
        const char *base, *over, *what;
    } sk[] = {
        {MLA_D, "learnable_sink = bf16 [32]", "MLA decode + sink"},
        {MLA_P, "learnable_sink = bf16 [32]", "MLA Q_S 4 sparse 3 + sink"},
        {MLA_NZ, "learnable_sink = bf16 [32]", "MLA NZ + sink"},
        {MLA_T, "learnable_sink = bf16 [4]", "MLA D 128 TND + sink"},
        {MLA_QUERY_QUANT, "learnable_sink = bf16 [32]",
         "MLA full quant + sink"},
        {MLA_QUERY_QUANT_NZ, "learnable_sink = bf16 [32]",
         "MLA full quant NZ + sink"},
    };
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++) {
        t = mk(sk[i].base, sk[i].over);
        expect_both(t, FIA_OK, FIA_OK, sk[i].what);
        free(t);
    }
    /* value's D below the query's (003 TND list; RELEASED head dims):
     * computed, attention_out of value's D; 192/192 is 003's only, 128/192
     * and NTD_TND's 192/192 nobody's */
    static const struct {
        const char *over;
        fia_status doc, cann;
    } vd[] = {
        {"query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
         "value = bf16 [43,2,128]", FIA_OK, FIA_OK},
        {"query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
         "value = bf16 [43,2,192]\nattention_out = bf16 [17,4,192]", FIA_OK,
         FIA_ERR_INNER_TILING_ERROR},
        {"query = bf16 [17,4,128]\nkey = bf16 [43,2,128]\n"
         "value = bf16 [43,2,192]\nattention_out = bf16 [17,4,192]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR},
        {"input_layout = NTD_TND\nquery = bf16 [4,17,192]\n"
         "key = bf16 [2,43,192]\nvalue = bf16 [2,43,128]", FIA_OK, FIA_OK},
        {"input_layout = NTD_TND\nquery = bf16 [4,17,192]\n"
         "key = bf16 [2,43,192]\nvalue = bf16 [2,43,192]\n"
         "attention_out = bf16 [17,4,192]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR},
    };
    for (size_t i = 0; i < sizeof vd / sizeof vd[0]; i++) {
        t = mk(TND, vd[i].over);
        expect_both(t, vd[i].doc, vd[i].cann, vd[i].over);
        free(t);
    }
    /* a richer valid case: GQA, BSND, mask, seq lengths, lse, precise */
    expect_both("query = bf16 [2,16,8,64]\nkey = bf16 [2,40,2,64]\n"
                "value = bf16 [2,40,2,64]\nnum_heads = 8\n"
                "num_key_value_heads = 2\ninput_layout = BSND\n"
                "atten_mask = uint8 [2,1,16,48]\nactual_seq_lengths = [9,16]\n"
                "actual_seq_lengths_kv = [40]\nsoftmax_lse_flag = true\n"
                "inner_precise = 2\npre_tokens = 3\nnext_tokens = 0\n"
                "scale = 0.125\n",
                FIA_OK, FIA_OK, "rich prefill");
    expect_both("query = fp16 [3,1,256]\nkey = fp16 [3,100,64]\n"
                "value = fp16 [3,100,64]\nnum_heads = 4\n"
                "num_key_value_heads = 1\ninput_layout = BSH\n"
                "atten_mask = bool [3,1,1,100]\n"
                "actual_seq_lengths_kv = [0,50,100]\ninner_precise = 0\n"
                "softmax_lse_flag = true\n",
                FIA_OK, FIA_OK, "rich decode");
    /* the v verdict lists the obeyed rules */
    fia_oracle_verdict v;
    t = mk(PREFILL, "atten_mask = bool [16,32]");
    CHECK(eval(t, FIA_PROFILE_DOC, &v) == 0);
    CHECK(v.accept && v.n_fired == 0 && v.n_obeyed > 10);
    CHECK(in_list(v.obeyed, v.n_obeyed, "MASK-005"));
    CHECK(!in_list(v.obeyed, v.n_obeyed, "MASK-008")); /* decode only */
    free(t);
}

/* The released code's tiling tests (issue 33): what profile cann accepts
 * where the documents reject, and what both still reject. */
static void test_vendor_readings(void)
{
    static const struct {
        const char *base, *over;
        fia_status doc, cann;
        const char *what;
    } vt[] = {
        /* tCrossover_BNSD_BSND_success: BNSD_BSND at Q_S = 1 */
        {DECODE, "input_layout = BNSD_BSND\nattention_out = fp16 [2,1,2,64]",
         FIA_ERR_PARAM_INVALID, FIA_OK, "BNSD_BSND decode (LAYOUT-002)"},
        /* tMLA_G16_FP16_BSH, tMLA_TND_FP16: 16 and 1 heads at D 512 */
        {MLA_D, "num_heads = 16\nquery = bf16 [2,1,8192]\n"
         "query_rope = bf16 [2,1,1024]", FIA_ERR_PARAM_INVALID, FIA_OK,
         "MLA 16 heads (MLA-011)"},
        {MLA_D, "num_heads = 1\nquery = bf16 [2,1,512]\n"
         "query_rope = bf16 [2,1,64]", FIA_ERR_PARAM_INVALID, FIA_OK,
         "MLA 1 head (MLA-011)"},
        /* tMLA_RopeCombine_*: value D 128 beside 192, out of value's D,
         * not computed in cann (NM-018) */
        {PREFILL, "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
         "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_NOT_MODELED, "value D 128 prefill"},
        /* tErr_value_D_neq_out_D: out of the query's D at Q_S > 1 */
        {PREFILL, "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
         "value = fp16 [1,2,32,128]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "value D 128, out 192 prefill"},
        /* tErr_PA_value_D_neq_vHeadDim: decode keeps the query's D */
        {DECODE, "query = fp16 [2,2,1,192]\nkey = fp16 [2,2,32,192]\n"
         "value = fp16 [2,2,32,128]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_NOT_MODELED, "value D 128 decode"},
        /* tErr_PA_4D_kv_D_mismatch: 128 / 64 stays a rejection */
        {DECODE, "query = fp16 [2,2,1,128]\nkey = fp16 [2,2,32,128]\n"
         "value = fp16 [2,2,32,64]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "value D 64 beside 128"},
        /* not a power of two: both reject (MLA-011 / MLA-017) */
        {MLA_D, "num_heads = 12\nquery = bf16 [2,1,6144]\n"
         "query_rope = bf16 [2,1,768]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "MLA 12 heads (MLA-017)"},
        {MLA_D, "num_heads = 256\nquery = bf16 [2,1,131072]\n"
         "query_rope = bf16 [2,1,16384]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "MLA 256 heads (MLA-017)"},
    };
    for (size_t i = 0; i < sizeof vt / sizeof vt[0]; i++) {
        char *t = mk(vt[i].base, vt[i].over);
        expect_both(t, vt[i].doc, vt[i].cann, vt[i].what);
        free(t);
    }
}

/* fiacheck rules --profiles-differ: the rows the released code reads
 * otherwise are listed, each with its reason; rows whose profiles agree
 * are not. */
static void test_profiles_differ(void)
{
    static const char *const differ[] = {
        "LAYOUT-002", "LAYOUT-006", "LAYOUT-014", "LIST-008", "OUT-003",
        "OUT-005", "MLA-011", "MLA-017", "NM-018", "MLA-030", "PSE-003",
        "PSE-006", "NM-019"};
    for (size_t i = 0; i < sizeof differ / sizeof differ[0]; i++) {
        const fia_rule *r = fia_rule_find(differ[i]);
        CHECK_MSG(r && fia_rule_profiles_differ(r), "%s not listed",
                  differ[i]);
    }
    static const char *const agree[] = {"LAYOUT-001", "LAYOUT-013",
                                        "OUT-001", "MLA-012", "NM-017",
                                        "LAYOUT-N01"};
    for (size_t i = 0; i < sizeof agree / sizeof agree[0]; i++)
        CHECK_MSG(!fia_rule_profiles_differ(fia_rule_find(agree[i])),
                  "%s listed", agree[i]);
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        CHECK_MSG(!r->cann_only || r->doc_status == FIA_OK,
                  "%s: a cann-only row with a doc status", r->id);
        if (!fia_rule_profiles_differ(r))
            continue;
        CHECK_MSG(r->disagreement != NULL, "%s differs without a reason",
                  r->id);
        CHECK_MSG(r->kind != FIA_RULE_NORMALIZE, "%s", r->id);
        const int doc_ok = r->doc_status == FIA_OK,
                  cann_ok = r->cann_status == FIA_OK;
        CHECK_MSG(doc_ok != cann_ok ||
                      (r->doc_status == FIA_ERR_NOT_MODELED) !=
                          (r->cann_status == FIA_ERR_NOT_MODELED),
                  "%s: the outcomes agree", r->id);
    }
}

int main(void)
{
    test_baselines();
    test_vendor_readings();
    test_profiles_differ();
    return check_summary();
}
