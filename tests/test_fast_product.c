/* fast/ product checks (fast/check_product.c, the productName reading of
 * fast/api.c): 001's inference card.  Each check broken and obeyed, with
 * its status in both profiles and its id: the product names (unknown, the
 * card through another interface than 001's), the card's dtypes (layer
 * 2, 161002 in both profiles), its exclusions (pse_shift, output
 * quantization: 161002 / 561002), its limits B <= 256 and S <= 65536 —
 * and the same calls on the A2 products (no productName) accepted, so a
 * check that fired for every product would fail here.  Phase one only
 * (no data). */
#include <string.h>
#include "check.h"
#include "fast_expect.h"
#include "fia/fast.h"

typedef struct call {
    const char *api, *product;
    fia_dtype qdt, kdt, vdt;
    int64_t B, KVS;
    bool pse, pse_empty, out_quant, aq;
    fia_dtype aqdt;
} call;

static call base(void)
{
    return (call){.api = "incre_flash_attention",
                  .product = "atlas_inference_card", .qdt = FIA_DT_FP16,
                  .kdt = FIA_DT_FP16, .vdt = FIA_DT_FP16, .B = 2, .KVS = 16,
                  .aqdt = FIA_DT_FP16};
}

static fia_status phase_one(const call *c)
{
    const int64_t N = 2, D = 64;
    fia_tensor q = {.dtype = c->qdt, .ndim = 3, .shape = {c->B, 1, N * D}};
    fia_tensor k = {.dtype = c->kdt, .ndim = 3, .shape = {c->B, c->KVS, N * D}};
    fia_tensor v = k;
    v.dtype = c->vdt;
    fia_tensor out = q;
    if (c->out_quant)
        out.dtype = FIA_DT_INT8;
    fia_tensor pse = {.dtype = c->qdt, .ndim = 4,
                      .shape = {c->B, N, 1, c->pse_empty ? 0 : c->KVS}};
    fia_tensor qs2 = {.dtype = FIA_DT_FP32, .ndim = 1, .shape = {1}};
    fia_tensor aq = {.dtype = c->aqdt, .ndim = 2, .shape = {2, N * D}};
    const fia_tensor *kp = &k, *vp = &v;
    fia_tensor_list kl = {1, &kp}, vl = {1, &vp};
    fast_v2_extras x = {.apiName = c->api, .productName = c->product};
    fast_executor *ex = NULL;
    uint64_t ws = 0;
    fia_status st = fastFusedInferAttentionScoreV2ExtGetWorkspaceSize(
        &q, &kl, &vl, c->pse ? &pse : NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, c->out_quant ? &qs2 : NULL, NULL, c->aq ? &aq : NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, N, 0.125,
        2147483647, 2147483647, "BSH", 0, 0, 1, 0, 0, false, 0, 0, &x, &out,
        NULL, &ws, &ex);
    fastExecutorDestroy(ex);
    return st;
}

/* Phase one's status in the profile set. */
static fia_status product_status(void *c)
{
    return phase_one(c);
}

/* want_doc under profile doc; a semantic 161002 is 561002 under cann
 * unless dtype_layer (161002 in both). */
static void expect(const call *c, fia_status want_doc, bool dtype_layer,
                   const char *id, int line)
{
    ftl_expect_profiles(product_status, (void *)c, want_doc,
                        ftl_cann_status(want_doc, dtype_layer), id, line);
}

/* The call broken on the card, then the same call on the A2 products. */
static void card_only(call c, bool dtype_layer, const char *id, int line)
{
    expect(&c, FIA_ERR_PARAM_INVALID, dtype_layer, id, line);
    c.product = NULL;
    expect(&c, FIA_OK, false, NULL, line);
    c.product = "atlas_a2";
    expect(&c, FIA_OK, false, NULL, line);
}

int main(void)
{
    call c = base();
    expect(&c, FIA_OK, false, NULL, __LINE__);

    /* names: unknown, and the card through an interface not listing it */
    c.product = "atlas_a3";
    expect(&c, FIA_ERR_PARAM_INVALID, true, "P_PRODUCT", __LINE__);
    c = base();
    c.api = "aclnn_v2";
    expect(&c, FIA_ERR_PARAM_INVALID, true, "P_PRODUCT", __LINE__);
    c.api = NULL;
    expect(&c, FIA_ERR_PARAM_INVALID, true, "P_PRODUCT", __LINE__);

    /* layer 2: query fp16 only; value fp16 / int8; antiquant fp16 */
    c = base();
    c.qdt = c.kdt = c.vdt = FIA_DT_BF16;
    card_only(c, true, "T_CARD_QUERY", __LINE__);
    c = base();
    c.kdt = c.vdt = FIA_DT_INT8;
    c.aq = true;
    expect(&c, FIA_OK, false, NULL, __LINE__);
    c.aqdt = FIA_DT_BF16;
    expect(&c, FIA_ERR_PARAM_INVALID, true, "T_CARD_ANTIQUANT", __LINE__);
    c.aqdt = FIA_DT_FP32;
    expect(&c, FIA_ERR_PARAM_INVALID, true, "T_CARD_ANTIQUANT", __LINE__);
    c = base();
    c.vdt = FIA_DT_BF16;
    expect(&c, FIA_ERR_PARAM_INVALID, true, "T_CARD_VALUE", __LINE__);

    /* layer 3: pse (an empty one is absent), output quantization */
    c = base();
    c.pse = true;
    card_only(c, false, "X_CARD_PSE", __LINE__);
    c.pse_empty = true;
    expect(&c, FIA_OK, false, NULL, __LINE__);
    c = base();
    c.out_quant = true;
    card_only(c, false, "X_CARD_OUT_QUANT", __LINE__);

    /* layer 5: B <= 256, S <= 65536, at and over the limits */
    c = base();
    c.B = 256;
    expect(&c, FIA_OK, false, NULL, __LINE__);
    c.B = 257;
    card_only(c, false, "S_CARD_B", __LINE__);
    c = base();
    c.B = 1;
    c.KVS = 65536;
    expect(&c, FIA_OK, false, NULL, __LINE__);
    c.KVS = 65537;
    card_only(c, false, "S_CARD_S", __LINE__);
    return check_summary();
}
