/* layout: the four 002 layouts (BSH, BSND, BNSD, BNSD_BSND) and 003's
 * *_NBSD outputs, the shapes of query, key and value under them, B, S, N,
 * D, H and their limits. */
#include "validate.h"

/* 003 input_layout: "下划线左边表示输入query的layout，下划线右边表示输出
 * output的格式": BSH_NBSD, BSND_NBSD, BNSD_NBSD read query, key and value
 * as BSH, BSND, BNSD (every rule of those layouts holds for them) and
 * write attention_out [N, B, Q_S, D] (validate.h). */
bool fast_nbsd_layout(const char *layout, fast_layout *q)
{
    static const struct {
        const char *name;
        fast_layout q;
    } tab[] = {{"BSH_NBSD", FAST_LAYOUT_BSH},
               {"BSND_NBSD", FAST_LAYOUT_BSND},
               {"BNSD_NBSD", FAST_LAYOUT_BNSD}};
    for (size_t i = 0; layout && i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(layout, tab[i].name) == 0) {
            if (q)
                *q = tab[i].q;
            return true;
        }
    return false;
}

/* The *_NBSD outputs' own rules, once Q_S is known.  003 input_layout:
 * "输出格式为NBSD时，仅支持Q_S大于1且小于等于16" (both profiles: RELEASED is
 * silent); RELEASED "Layouts": "The *_NBSD outputs are rejected without
 * rope" (profile cann; 003 lists them for every call, so profile doc
 * accepts them and refuses them as not computed without rope, last:
 * fast_check_tnd_nbsd). */
static fia_status check_nbsd(const fast_args *a, const fast_plan *p,
                             fia_error *err)
{
    if (a->profile == FIA_PROFILE_CANN && !fast_mla_call(a))
        return FAST_REJECT("S_NBSD_ROPE", "%s without query_rope / key_rope "
                           "(released: the NBSD outputs are MLA's)", a->layout);
    if (p->Q_S <= 1 || p->Q_S > 16)
        return FAST_REJECT("S_NBSD_QS", "%s takes Q_S 2..16, not %lld", a->layout,
                           (long long)p->Q_S);
    return FIA_OK;
}

/* The released code's head dims (RELEASED "Head dims on the current
 * path"; its tiling tests tErr_PA_value_D_neq_vHeadDim and
 * tMLA_RopeCombine_BSH / _BNSD succeed): a single key and value alike but
 * for value's D 128 beside key's 192, per head (a rank-3 tensor holds
 * KV_N of them in its last dim). */
bool fast_value_d_128(const fast_args *a)
{
    if (a->key->count != 1 || a->value->count != 1 ||
        fast_token_layout(a->layout, NULL, NULL))
        return false;
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    if (k->ndim != v->ndim || (k->ndim != 3 && k->ndim != 4))
        return false;
    for (int d = 0; d + 1 < k->ndim; d++)
        if (k->shape[d] != v->shape[d])
            return false;
    const int64_t heads = k->ndim == 4 ? 1
                          : a->num_kv_heads > 0 ? a->num_kv_heads
                                                : a->num_heads;
    /* by division: heads may be any int64 a call carries */
    const int64_t kd = k->shape[k->ndim - 1], vd = v->shape[k->ndim - 1];
    return heads > 0 && kd > 0 && vd > 0 && kd % 192 == 0 &&
           kd / 192 == heads && vd % 128 == 0 && vd / 128 == heads;
}

/* Layer 4.  002 inputLayout; the ranks of query, key and value under it
 * and key and value of one shape.  Fills layout, B, Q_S and the data. */
fia_status fast_check_layout_shapes(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    const fia_tensor *q = a->query;
    const fia_tensor *k = a->key->tensors[0], *v = a->value->tensors[0];
    int64_t qn, kn, vn;
    if (a->layout == NULL)
        return FAST_REJECT("S_LAYOUT", "input_layout is a nullptr");
    if (fast_token_layout(a->layout, &p->tnd.q_ntd, &p->tnd.o_ntd)) {
        p->tnd.on = true; /* its shapes: check_tnd.c */
        return FIA_OK;
    }
    if (strcmp(a->layout, "BSH") == 0) p->layout = FAST_LAYOUT_BSH;
    else if (strcmp(a->layout, "BSND") == 0) p->layout = FAST_LAYOUT_BSND;
    else if (strcmp(a->layout, "BNSD") == 0) p->layout = FAST_LAYOUT_BNSD;
    else if (strcmp(a->layout, "BNSD_BSND") == 0) p->layout = FAST_LAYOUT_BNSD_BSND;
    else if (fast_nbsd_layout(a->layout, &p->layout)) p->o_nbsd = true;
    else return FAST_REJECT("S_LAYOUT", "input_layout \"%.32s\" not in {BSH, BSND, "
                            "BNSD, BNSD_BSND, BSH_NBSD, BSND_NBSD, BNSD_NBSD}",
                            a->layout);
    int rank = p->layout == FAST_LAYOUT_BSH ? 3 : 4;
    if (q->ndim != rank || !fast_shape_numel(q, &qn))
        return FAST_REJECT("S_QUERY_SHAPE", "query must be a valid rank-%d tensor "
                           "for %s", rank, a->layout);
    p->B = q->shape[0];
    p->Q_S = p->layout == FAST_LAYOUT_BSH || p->layout == FAST_LAYOUT_BSND
                 ? q->shape[1] : q->shape[2];
    if (p->o_nbsd) {
        fia_status st = check_nbsd(a, p, err);
        if (st != FIA_OK)
            return st;
    }
    /* A paged call's key and value are caches whose rank does not follow
     * the query's layout (check_paged.c reads them). */
    const int krank = a->opt[FAST_OPT_BLOCK_TABLE] ? k->ndim : rank;
    if (k->ndim != krank || !fast_shape_numel(k, &kn) || v->ndim != krank ||
        !fast_shape_numel(v, &vn))
        return FAST_REJECT("S_KV_SHAPE", "key/value must be valid rank-%d tensors "
                           "for %s", rank, a->layout);
    /* 002 约束说明: key and value shapes identical; the released code
     * also takes value's D 128 beside key's 192, and checks it only after
     * the early return for a call that reads no key (check_order.c) */
    if (!fast_same_shape(k, v) && !p->kv_return &&
        !(a->profile == FIA_PROFILE_CANN && fast_value_d_128(a)))
        return FAST_REJECT("S_KV_SHAPE", "key and value shapes differ");
    p->q_numel = qn;
    p->kv_numel = kn;
    p->q = q->data;
    p->k = k->data;
    p->v = v->data;
    return FIA_OK;
}

/* Layer 4.  002 numHeads: N from the query's layout, and D. */
fia_status fast_check_layout_heads(const fast_args *a, fast_plan *p,
                                   fia_error *err)
{
    const fia_tensor *q = a->query;
    if (a->num_heads <= 0)
        return FAST_REJECT("S_NUM_HEADS", "num_heads %lld must be positive",
                           (long long)a->num_heads);
    p->N = a->num_heads;
    if (p->tnd.on)
        return FIA_OK; /* the query's N axis: check_tnd.c */
    switch (p->layout) {
    case FAST_LAYOUT_BSH:
        if (q->shape[2] % p->N != 0)
            return FAST_REJECT("S_NUM_HEADS", "query H %lld not divisible by "
                               "num_heads %lld", (long long)q->shape[2],
                               (long long)p->N);
        p->D = q->shape[2] / p->N;
        break;
    case FAST_LAYOUT_BSND:
        if (q->shape[2] != p->N)
            return FAST_REJECT("S_NUM_HEADS", "query N %lld != num_heads %lld",
                               (long long)q->shape[2], (long long)p->N);
        p->D = q->shape[3];
        break;
    default:
        if (q->shape[1] != p->N)
            return FAST_REJECT("S_NUM_HEADS", "query N %lld != num_heads %lld",
                               (long long)q->shape[1], (long long)p->N);
        p->D = q->shape[3];
        break;
    }
    return FIA_OK;
}

/* The key's last dim in int4 elements: an int32 packs eight (002 Q_S = 1
 * "KV的N、D或者H是实际值的八分之一"; the other dims are the real ones).  -1
 * when that overflows (no head dim matches it). */
static int64_t kv_last_dim(const fia_tensor *k)
{
    const int64_t d = k->shape[k->ndim - 1];
    if (k->dtype != FIA_DT_INT32)
        return d;
    return d > INT64_MAX / 8 ? -1 : d * 8;
}

/* Layer 4.  The key's batch, KV heads (KV_N from check_gqa.c), KV_S and
 * head dim under the layout (not for a paged call's cache); an int32 key's
 * last dim counts eight int4. */
fia_status fast_check_layout_kv(const fast_args *a, fast_plan *p,
                                fia_error *err)
{
    const fia_tensor *k = a->key->tensors[0];
    if (a->opt[FAST_OPT_BLOCK_TABLE])
        return FIA_OK; /* a cache of blocks: check_paged.c */
    if (p->tnd.on)
        return FIA_OK; /* token layouts: check_tnd.c */
    if (a->key->count > 1)
        return FIA_OK; /* a tensor per batch: check_tensor_list.c */
    if (k->shape[0] != p->B)
        return FAST_REJECT("S_KV_SHAPE", "key batch %lld != query batch %lld",
                           (long long)k->shape[0], (long long)p->B);
    int64_t kv_d;
    const int64_t last = kv_last_dim(k);
    switch (p->layout) {
    case FAST_LAYOUT_BSH:
        if (last < 0 || last % p->KV_N != 0)
            return FAST_REJECT("S_KV_HEADS", "key H %lld not divisible by "
                               "num_key_value_heads %lld", (long long)last,
                               (long long)p->KV_N);
        p->KV_S = k->shape[1];
        kv_d = last / p->KV_N;
        break;
    case FAST_LAYOUT_BSND:
        if (k->shape[2] != p->KV_N && !p->kv_return) /* check_order.c */
            return FAST_REJECT("S_KV_HEADS", "key N %lld != num_key_value_heads %lld",
                               (long long)k->shape[2], (long long)p->KV_N);
        p->KV_S = k->shape[1];
        kv_d = last;
        break;
    default:
        if (k->shape[1] != p->KV_N && !p->kv_return) /* check_order.c */
            return FAST_REJECT("S_KV_HEADS", "key N %lld != num_key_value_heads %lld",
                               (long long)k->shape[1], (long long)p->KV_N);
        p->KV_S = k->shape[2];
        kv_d = last;
        break;
    }
    if (kv_d != p->D)
        return FAST_REJECT("S_KV_D", "key/value head dim %lld != query head dim %lld",
                           (long long)kv_d, (long long)p->D);
    return FIA_OK;
}

/* The batch limit of the interface a call came through (a->api), on the
 * prefill (Q_S > 1) and the decode (Q_S = 1) path.  The documents
 * disagree, each for its own interface, so each is read as its own door's
 * limit:
 *   002 (aclnn_v2) 约束说明 当Q_S大于1时 / 当Q_S等于1时: "支持B轴小于等于
 *       65536" both (002 lines 194 and 263);
 *   003 (torch_npu_v2) 约束说明 当Q_S大于1时 / 当Q_S等于1时: 65536 both
 *       (003 lines 241 and 342);
 *   004 (torchair_v2) 约束说明: "其他约束与torch_npu.npu_fused_infer_
 *       attention_score_v2接口保持一致": 003's (004 line 45);
 *   000 (mindspore) 约束 全量推理场景（Q_S > 1）: "支持B轴小于等于65535"
 *       (000 line 186), 增量推理场景（Q_S = 1）: 65536 (000 line 236);
 *   001 (incre_flash_attention) 约束说明: "Atlas A2 训练系列产品/...支持B轴
 *       小于等于65535" on either path (001 line 90; A2 is the product
 *       fiacheck models; 001 line 91's 256 for the Atlas 推理系列加速卡产品
 *       is another product's).
 * An empty query has left the walk before this row; Q_S <= 1 here is 1. */
static int64_t batch_max(fast_api api, int64_t q_s)
{
    switch (api) {
    case FAST_API_IFA: return 65535;
    case FAST_API_MINDSPORE: return q_s > 1 ? 65535 : 65536;
    case FAST_API_ACLNN_V2:
    case FAST_API_TORCH_NPU_V2:
    case FAST_API_TORCHAIR_V2:
    default: return 65536;
    }
}

/* Layer 4.  The batch limit of the call's interface (batch_max); 002
 * 约束说明 (Q_S>1 and Q_S=1): N <= 256, D <= 512. */
fia_status fast_check_layout_limits(const fast_args *a, fast_plan *p,
                                    fia_error *err)
{
    const int64_t b_max = batch_max(a->api, p->Q_S);
    if (p->B > b_max)
        return FAST_REJECT("S_B_MAX", "batch %lld > %lld (the limit of %s at "
                           "Q_S %s 1)", (long long)p->B, (long long)b_max,
                           fast_api_label(a->api), p->Q_S > 1 ? ">" : "=");
    if (p->N > 256)
        return FAST_REJECT("S_N_MAX", "num_heads %lld > 256", (long long)p->N);
    if (p->D > 512)
        return FAST_REJECT("S_D_MAX", "head dim %lld > 512", (long long)p->D);
    if (p->tnd.on) {
        /* 003 gives the token layouts their own list (check_tnd.c) */
    } else if (p->Q_S > 1) {
        /* 002 约束说明 Q_S>1: N*D < 65535 for BSH/BSND. */
        /* (003 MLA documents N 128 with D 512 in BSH/BSND at Q_S <= 16:
         * its own rules replace this one) */
        if ((p->layout == FAST_LAYOUT_BSH || p->layout == FAST_LAYOUT_BSND) &&
            p->N * p->D >= 65535 && !fast_mla512(a))
            return FAST_REJECT("S_ND_MAX", "N*D = %lld must be < 65535 for %s",
                               (long long)(p->N * p->D), a->layout);
        /* 002 约束说明 Q_S>1: fp16/bf16 need D % 16 == 0 (RELEASED: Q_S = 1
         * accepts any D).  This also makes the "B <= 128 when D is not
         * aligned" rule unreachable.  With an int8 or int4 query, key or
         * value D has its own, larger alignment (Q8-008, ANTI-019/020). */
        const fia_dtype qd = a->query->dtype;
        const fia_dtype kd = a->key->tensors[0]->dtype;
        const fia_dtype vd = a->value->tensors[0]->dtype;
        const bool fp = (qd == FIA_DT_FP16 || qd == FIA_DT_BF16) &&
                        (kd == FIA_DT_FP16 || kd == FIA_DT_BF16) &&
                        (vd == FIA_DT_FP16 || vd == FIA_DT_BF16);
        if (fp && p->D % 16 != 0)
            return FAST_REJECT("S_D_ALIGN", "head dim %lld not 16-aligned (Q_S > 1)",
                               (long long)p->D);
        /* 002 约束说明 Q_S>1: S <= 20971520. */
        if (p->Q_S > 20971520 || p->KV_S > 20971520)
            return FAST_REJECT("S_S_MAX", "Q_S %lld / KV_S %lld above 20971520",
                               (long long)p->Q_S, (long long)p->KV_S);
    } else if (p->layout == FAST_LAYOUT_BNSD_BSND &&
               a->profile != FIA_PROFILE_CANN) {
        /* 002 inputLayout: BNSD_BSND only with Q_S > 1.  The released
         * code takes it at Q_S = 1 too (its tiling test
         * tCrossover_BNSD_BSND_success): profile doc only. */
        return FAST_REJECT("S_LAYOUT_QS1", "BNSD_BSND needs Q_S > 1");
    } else if (p->KV_S > 262144) {
        /* 001 and 003 (Q_S = 1 constraints): KV_S <= 262144; 002 is
         * silent.  Found by fiacheck's corpus against the rule table. */
        return FAST_REJECT("S_KV_S_MAX_QS1", "KV_S %lld above 262144 (Q_S = 1)",
                           (long long)p->KV_S);
    }
    return FIA_OK;
}
