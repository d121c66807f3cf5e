/* mla: MLA, query_rope and key_rope (003 §参数说明 query_rope / key_rope,
 * §约束说明 "query_rope和key_rope输入时即为MLA场景" and the TND block; the
 * extended entry's fast_v2_extras).  Either rope passed makes the call an
 * MLA call.  The score of a key is (q.k + q_rope.k_rope) * scale
 * (RELEASED "Numeric pipeline"): the rope columns lengthen the Q.K^T
 * reduction only (plan: rope.D; run_mla.c), V and attention_out keep the
 * query's D.
 *
 * Two scenes by the query's D: 512 (decode-style MLA: paged K/V cache of
 * one KV head, N 32/64/128, Q_S 1..16) and 128 (token layouts only).  The
 * D = 512 scene replaces general rules that would refuse it, each exempted
 * where it lives: the GQA ratio <= 64 (check_gqa.c), the paged block_size
 * rules (check_paged.c: MLA takes 16 or 128 at any Q_S, S_MLA_BLOCK_SIZE
 * here), the Q_S = 1 sparse normalisation (003 ignores sparse_mode at Q_S
 * = 1 only without rope: S_MLA_SPARSE here), TND's D != 512 rules
 * (check_tnd.c), the 4-D cache's BNSD-only rule for a token layout and N*D
 * < 65535 at Q_S > 1 (check_layout.c: 003 documents N 128 with D 512).
 * The *_NBSD outputs (attention_out [N, B, Q_S, D]: check_layout.c) and
 * the NZ cache ([blockNum, N, D/16, blockSize, 16]: check_paged.c, its
 * exclusions here) are D 512's, and so is full quantization (an int8
 * query, key and value with bf16 ropes and output, its int8 NZ cache
 * [blockNum, N, D/32, blockSize, 32]): its rules check_query_quant_mla.c, its
 * run run_query_quant.c. */
#include "validate.h"

static const fast_opt_input mla_inputs[] = {
    {FAST_OPT_QUERY_ROPE, 2, {FIA_DT_FP16, FIA_DT_BF16}},
    {FAST_OPT_KEY_ROPE, 2, {FIA_DT_FP16, FIA_DT_BF16}},
};

/* 003: "query_rope shape中D为64" / "key_rope shape中D为64" (both scenes). */
#define MLA_ROPE_D 64

bool fast_mla_call(const fast_args *a)
{
    return a->opt[FAST_OPT_QUERY_ROPE] != NULL ||
           a->opt[FAST_OPT_KEY_ROPE] != NULL;
}

int64_t fast_mla_query_d(const fast_args *a)
{
    const fia_tensor *q = a->query;
    if (a->layout == NULL)
        return -1;
    if (fast_token_layout(a->layout, NULL, NULL))
        return q->ndim == 3 ? q->shape[2] : -1;
    if (strncmp(a->layout, "BSH", 3) == 0)
        return q->ndim == 3 && a->num_heads > 0 &&
                       q->shape[2] % a->num_heads == 0
                   ? q->shape[2] / a->num_heads : -1;
    if (strncmp(a->layout, "BSND", 4) == 0 || strncmp(a->layout, "BNSD", 4) == 0)
        return q->ndim == 4 ? q->shape[3] : -1;
    return -1;
}

bool fast_mla512(const fast_args *a)
{
    return fast_mla_call(a) && fast_mla_query_d(a) == 512;
}

/* Layer 2. */
fia_status fast_check_mla_dtypes(const fast_args *a, fast_plan *p,
                                  fia_error *err)
{
    (void)p;
    return fast_check_opt_dtypes(a, mla_inputs,
                                 sizeof mla_inputs / sizeof mla_inputs[0],
                                 err);
}

/* Antiquant ("伪量化"): the combined set, or with an fp16/bf16 query the
 * separate set or int key/value.  With an int8 query the separate set is
 * full quantization's (003 dequant_scale_key / dequant_scale_value, and
 * the offsets it refuses: check_query_quant_mla.c). */
static bool antiquant_call(const fast_args *a)
{
    const fia_dtype qd = a->query->dtype, kd = a->key->tensors[0]->dtype;
    if (a->opt[FAST_OPT_ANTIQUANT_SCALE] || a->opt[FAST_OPT_ANTIQUANT_OFFSET])
        return true;
    if (qd == FIA_DT_INT8)
        return false;
    return a->opt[FAST_OPT_KEY_ANTIQUANT_SCALE] ||
           a->opt[FAST_OPT_KEY_ANTIQUANT_OFFSET] ||
           a->opt[FAST_OPT_VALUE_ANTIQUANT_SCALE] ||
           a->opt[FAST_OPT_VALUE_ANTIQUANT_OFFSET] || fast_kv_int(kd);
}

/* The NZ cache (a rank-5 key with a block table: 003's fp16/bf16 [blockNum,
 * N, D/16, blockSize, 16] and int8's [.., D/32, .., 32]): "当数据格式为NZ时
 * input_layout不支持BNSD、BNSD_NBSD" and "数据格式为NZ时block_size不支持配置
 * 16".  Exclusions: they read no arithmetic (int8's NZ, full
 * quantization, is judged by them too). */
static fia_status check_nz(const fast_args *a, fia_error *err)
{
    if (!a->opt[FAST_OPT_BLOCK_TABLE] || a->key->tensors[0]->ndim != 5)
        return FIA_OK;
    if (strcmp(a->layout, "BNSD") == 0 || strcmp(a->layout, "BNSD_NBSD") == 0)
        return FAST_REJECT("S_MLA_NZ_LAYOUT", "the NZ key/value cache takes no %s "
                           "query", a->layout);
    if (a->block_size == 16)
        return FAST_REJECT("S_MLA_NZ_BLOCK_SIZE", "the NZ key/value cache takes no "
                           "block_size 16");
    return FIA_OK;
}

/* Layer 3.  What each scene does not support: D 512 "不支持开启SoftMaxLse、
 * tensorlist、pse、伪量化、后量化" (full quantization is supported there:
 * check_query_quant_mla.c), D 128 "不支持tensorlist、pse、page attention、伪量化、全量化、
 * 后量化".  A query D of neither scene: S_MLA_D (layer 5). */
fia_status fast_check_mla_exclusions(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    (void)p;
    if (!fast_mla_call(a))
        return FIA_OK;
    const int64_t d = fast_mla_query_d(a);
    if (d != 512 && d != 128)
        return FIA_OK;
    if (d == 512 && a->lse_flag)
        return FAST_REJECT("S_MLA_LSE", "MLA (query D 512) takes no softmax_lse");
    if (a->key->count != 1 || a->value->count != 1)
        return FAST_REJECT("S_MLA_LIST", "MLA takes no key/value tensor lists");
    if (fast_present(a->pse))
        return FAST_REJECT("S_MLA_PSE", "MLA takes no pse_shift");
    if (d == 128 && a->opt[FAST_OPT_BLOCK_TABLE])
        return FAST_REJECT("S_MLA_PAGED_128", "MLA with query D 128 takes no page "
                           "attention");
    if (antiquant_call(a))
        return FAST_REJECT("S_MLA_ANTIQUANT", "MLA takes no key/value "
                           "antiquantization");
    /* D 128 with full quantization: the token layout's own exclusion
     * (S_TND_QUANT, check_tnd.c) refuses it first, D 128 being a token
     * layout scene (MLA-020) */
    if (a->opt[FAST_OPT_QUANT_SCALE2] || a->opt[FAST_OPT_QUANT_OFFSET2])
        return FAST_REJECT("S_MLA_OUT_QUANT", "MLA takes no output quantization");
    return d == 512 ? check_nz(a, err) : FIA_OK;
}

/* A rope's shape: its tensor's (t: query or key) but for the last dim,
 * which holds 64 where t's holds D (BSH and the 3-D cache: heads x D); an
 * NZ key (nz) holds D in two dims, D / 16 tiles of 16, the rope 64 / 16
 * tiles (003: "key_rope的数据类型、数据格式与key一致"); beside an int8 NZ
 * key's tiles of 32 (full quantization) the bf16 rope keeps tiles of 16,
 * [blockNum, N, 64/16, blockSize, 16]. */
static bool rope_shape_ok(const fia_tensor *r, const fia_tensor *t,
                          int64_t D, bool nz)
{
    int64_t n;
    if (r->ndim != t->ndim || r->ndim < 1 || !fast_shape_numel(r, &n))
        return false;
    const int dd = nz ? 2 : r->ndim - 1; /* the dim of D or its tiles */
    for (int i = 0; i < r->ndim; i++)
        if (i != dd && !(nz && i == 4) && r->shape[i] != t->shape[i])
            return false;
    if (nz)
        return r->shape[dd] * 16 == MLA_ROPE_D && r->shape[4] == 16;
    const int64_t tl = t->shape[dd], rl = r->shape[dd];
    return D > 0 && tl % D == 0 && rl == tl / D * MLA_ROPE_D;
}

/* D 512's sparse rule (MLA-013) on a batched layout; a token layout keeps
 * its own (0 without a mask or 3 with one: check_tnd.c). */
static fia_status check_sparse(const fast_args *a, const fast_plan *p,
                               fia_error *err)
{
    const bool mask = fast_present(a->mask);
    if (p->Q_S == 1 && (a->sparse_mode != 0 || mask))
        return FAST_REJECT("S_MLA_SPARSE", "MLA at Q_S = 1 takes sparse_mode 0 "
                           "without atten_mask (have %lld%s)",
                           (long long)a->sparse_mode, mask ? " with a mask" : "");
    if (p->Q_S > 1 && (a->sparse_mode != 3 || !mask))
        return FAST_REJECT("S_MLA_SPARSE", "MLA at Q_S > 1 takes sparse_mode 3 "
                           "with atten_mask (have %lld%s)",
                           (long long)a->sparse_mode, mask ? "" : " without a mask");
    return FIA_OK;
}

/* The query rows of each batch (MLA-010): Q_S, or a token layout's every
 * batch, in [1, 16]. */
static fia_status check_rows(const fast_args *a, const fast_plan *p,
                             fia_error *err)
{
    if (!p->tnd.on) {
        if (p->Q_S < 1 || p->Q_S > 16)
            return FAST_REJECT("S_MLA_QS", "MLA (query D 512) takes Q_S 1..16, not "
                               "%lld", (long long)p->Q_S);
        return FIA_OK;
    }
    int64_t prev = 0;
    for (int64_t b = 0; b < a->asl->count; b++) {
        const int64_t n = a->asl->values[b] - prev;
        if (n < 1 || n > 16)
            return FAST_REJECT("S_MLA_QS", "MLA (query D 512): batch %lld has %lld "
                               "query tokens (takes 1..16)", (long long)b,
                               (long long)n);
        prev = a->asl->values[b];
    }
    return FIA_OK;
}

/* D 512's head counts: 003 lists 32, 64 and 128 (profile doc); the
 * released code takes 1 too (vendor tiling test tMLA_TND_FP16), read as
 * the powers of two up to 128 (profile cann). */
static bool heads_ok(const fast_args *a, int64_t n)
{
    if (a->profile == FIA_PROFILE_CANN)
        return n >= 1 && n <= 128 && (n & (n - 1)) == 0;
    return n == 32 || n == 64 || n == 128;
}

/* The D 512 scene's own rules (003 "当query的D等于512时"). */
static fia_status check_d512(const fast_args *a, const fast_plan *p,
                             fia_error *err)
{
    static const char *const layouts[] = {
        "BSH", "BSND", "BNSD", "BNSD_NBSD", "BSND_NBSD", "BSH_NBSD", "TND",
        "TND_NTD"};
    bool ok = false;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        ok |= strcmp(a->layout, layouts[i]) == 0;
    if (!ok)
        return FAST_REJECT("S_MLA_LAYOUT", "MLA (query D 512) takes BSH, BSND, "
                           "BNSD, the *_NBSD outputs, TND or TND_NTD, not %s",
                           a->layout);
    /* the block size before the released code's early return for a call
     * that reads no key, the scene's other limits after it (profile cann,
     * check_order.c) */
    if (p->page.on && a->block_size != 16 && a->block_size != 128)
        return FAST_REJECT("S_MLA_BLOCK_SIZE", "MLA takes block_size 16 or 128, not "
                           "%lld", (long long)a->block_size);
    if (p->kv_return)
        return FIA_OK;
    fia_status st = check_rows(a, p, err);
    if (st != FIA_OK)
        return st;
    if (!heads_ok(a, p->N))
        return FAST_REJECT("S_MLA_HEADS", "MLA (query D 512) takes num_heads %s, "
                           "not %lld", a->profile == FIA_PROFILE_CANN
                                           ? "a power of two up to 128"
                                           : "32, 64 or 128",
                           (long long)p->N);
    if (p->KV_N != 1)
        return FAST_REJECT("S_MLA_KV_HEADS", "MLA (query D 512) takes one key/value "
                           "head, not %lld", (long long)p->KV_N);
    if (!p->page.on)
        return FAST_REJECT("S_MLA_PAGED", "MLA (query D 512) needs page attention "
                           "(a block_table)");
    return p->tnd.on ? FIA_OK : check_sparse(a, p, err);
}

/* Layer 5, after the layout, token, paged and limit rows (D, N, KV_N, Q_S,
 * the cache are in the plan) and before the sparse and mask rows (MLA's
 * sparse rule replaces the Q_S = 1 normalisation).  Fills rope.D and the
 * rope data (the strides: executor.c). */
fia_status fast_check_mla_rules(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    if (!fast_mla_call(a))
        return FIA_OK;
    const fia_tensor *qr = a->opt[FAST_OPT_QUERY_ROPE];
    const fia_tensor *kr = a->opt[FAST_OPT_KEY_ROPE];
    if (qr == NULL || kr == NULL)
        return FAST_REJECT("S_MLA_BOTH", "query_rope and key_rope go together (only "
                           "%s given)", qr ? "query_rope" : "key_rope");
    /* 003 "query_rope的数据类型...与query一致" / "key_rope的数据类型...与key
     * 一致", but for full quantization ("输入query/key/value全为int8，
     * query_rope和key_rope为bfloat16"), whose list overrides them (a
     * disagreement within 003) */
    if (a->query->dtype == FIA_DT_INT8) {
        if (qr->dtype != FIA_DT_BF16 || kr->dtype != FIA_DT_BF16)
            return FAST_REJECT("S_MLA_FQ_ROPE", "an int8 query (full quantization) "
                               "takes bf16 query_rope and key_rope, not %s / %s",
                               fast_dtype_name(qr->dtype), fast_dtype_name(kr->dtype));
    } else if (qr->dtype != a->query->dtype ||
               kr->dtype != a->key->tensors[0]->dtype)
        return FAST_REJECT("S_MLA_DTYPE", "query_rope %s / key_rope %s: they take "
                           "the query's / key's dtype (%s / %s)",
                           fast_dtype_name(qr->dtype), fast_dtype_name(kr->dtype),
                           fast_dtype_name(a->query->dtype),
                           fast_dtype_name(a->key->tensors[0]->dtype));
    if (p->D != 512 && p->D != 128)
        return FAST_REJECT("S_MLA_D", "MLA takes query D 512 or 128, not %lld",
                           (long long)p->D);
    if (p->D == 512) {
        fia_status st = check_d512(a, p, err);
        if (st != FIA_OK)
            return st;
    } else {
        if (!p->tnd.on || (strcmp(a->layout, "TND") != 0 &&
                        strcmp(a->layout, "NTD_TND") != 0))
            return FAST_REJECT("S_MLA_LAYOUT", "MLA with query D 128 takes TND or "
                               "NTD_TND, not %s", a->layout);
        /* Q_D = K_D = V_D = 128 (MLA-022): check_tnd.c's head dims (S_KV_D,
         * S_TND_D: 128/128 is the one pair of a query D 128) */
    }
    if (!rope_shape_ok(qr, a->query, p->D, false))
        return FAST_REJECT("S_MLA_QROPE_SHAPE", "query_rope must have the query's "
                           "shape with D %d", MLA_ROPE_D);
    if (!rope_shape_ok(kr, a->key->tensors[0], p->D, p->page.nz))
        return FAST_REJECT("S_MLA_KROPE_SHAPE", "key_rope must have the key's shape "
                           "with D %d", MLA_ROPE_D);
    p->rope.D = MLA_ROPE_D;
    p->rope.q = qr->data;
    p->rope.k = kr->data;
    fast_shape_numel(qr, &p->rope.q_numel);
    fast_shape_numel(kr, &p->rope.k_numel);
    return FIA_OK;
}
