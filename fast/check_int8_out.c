/* int8_out: an int8 attention_out, quantized with quant_scale2 and
 * quant_offset2 ("后量化"; docs/features/int8_out.md, rows OQ-*).  Checked
 * the way the tiling checks them: which scales go with which output and
 * their dtypes (layer 5, beside int8_quant's), their shape against the
 * output's H and the Q_S > 1 interceptions (layer 5, last: they read D, the
 * sparse band, the lengths and the prefix).  A call every rule accepts
 * has its quantization filled into the plan in layer 6 (run_output.c
 * computes it, after full quantization's x with an int8 query). */
#include "validate.h"

/* Element count, or -1 for a shape that has none (a rank outside 0..8, a
 * negative dim, int64 overflow). */
static int64_t numel_of(const fia_tensor *t)
{
    int64_t n;
    return fast_shape_numel(t, &n) ? n : -1;
}

/* The same rank and dims (fast_same_shape trusts the rank). */
static bool same_shape(const fia_tensor *x, const fia_tensor *y)
{
    if (x->ndim < 0 || x->ndim > FIA_MAX_RANK || x->ndim != y->ndim)
        return false;
    return fast_same_shape(x, y);
}

/* Layer 5, after int8_quant's row.  002 int8量化相关入参 (the three scenes
 * and the quant_scale2 / quant_offset2 paragraph), 000, 003.  A scale
 * counts when its pointer is not null (002 "即不为nullptr"). */
fia_status fast_check_int8_out(const fast_args *a, fast_plan *p,
                               fia_error *err)
{
    (void)p;
    const fia_tensor *qs2 = a->opt[FAST_OPT_QUANT_SCALE2];
    const fia_tensor *qo2 = a->opt[FAST_OPT_QUANT_OFFSET2];
    const fia_dtype qd = a->query->dtype, od = a->out->dtype;
    if (od != FIA_DT_INT8) {
        /* 002 int8量化相关入参: the int8-in, fp16-out scene rejects them;
         * with an fp16/bf16 input and output they have no scene (001:
         * passing them makes the output int8). */
        if (qs2 || qo2)
            return FAST_REJECT("OQ-002", "%s with attention_out of dtype %s "
                               "(output quantization takes an int8 attention_out)",
                               qs2 ? "quant_scale2" : "quant_offset2",
                               fast_dtype_name(od));
        return FIA_OK;
    }
    if (qs2 == NULL)
        return FAST_REJECT("OQ-001", "int8 attention_out needs quant_scale2");
    /* 002 int8量化相关入参: the fp16/bf16-in, int8-out scene rejects the
     * input-path scales. */
    if (qd != FIA_DT_INT8) {
        static const fast_optional in[3] = {FAST_OPT_DEQUANT_SCALE1,
                                            FAST_OPT_QUANT_SCALE1,
                                            FAST_OPT_DEQUANT_SCALE2};
        for (int i = 0; i < 3; i++)
            if (a->opt[in[i]] != NULL)
                return FAST_REJECT("OQ-003", "%s with a %s query and an int8 "
                                   "attention_out", fast_optional_name(in[i]),
                                   fast_dtype_name(qd));
    }
    if (qo2 && (qo2->dtype != qs2->dtype || !same_shape(qo2, qs2)))
        return FAST_REJECT("OQ-004", "quant_offset2 (%s, rank %d) is not of "
                           "quant_scale2's dtype and shape (%s, rank %d)",
                           fast_dtype_name(qo2->dtype), (int)qo2->ndim,
                           fast_dtype_name(qs2->dtype), (int)qs2->ndim);
    /* 002 int8量化相关入参: bf16 scales with a bf16 input only, fp32
     * otherwise (quant_offset2 has quant_scale2's dtype: OQ-004). */
    if (qs2->dtype == FIA_DT_BF16 && qd != FIA_DT_BF16)
        return FAST_REJECT("OQ-005", "quant_scale2 bf16 with a %s query (bf16 only "
                           "with a bf16 query)", fast_dtype_name(qd));
    return FIA_OK;
}

/* The batch's actual length from a length array (length 1 broadcast), or
 * S without one; the seqlen rows checked the array. */
static int64_t len_of(const fia_int_array *arr, int64_t b, int64_t S)
{
    if (arr == NULL || arr->values == NULL || arr->count <= 0)
        return S;
    return arr->values[arr->count == 1 ? 0 : b];
}

/* The shared prefix length P: the prefix tensors' S, or
 * actual_shared_prefix_len with them (the prefix rows checked both).
 * Without the tensors there are no prefix keys: 0. */
static int64_t prefix_len(const fast_args *a, const fast_plan *p)
{
    const fia_tensor *kp = a->opt[FAST_OPT_KEY_SHARED_PREFIX];
    if (kp == NULL || a->opt[FAST_OPT_VALUE_SHARED_PREFIX] == NULL)
        return 0;
    if (a->prefix_len && a->prefix_len->count == 1 && a->prefix_len->values)
        return a->prefix_len->values[0];
    const int sa = p->layout == FAST_LAYOUT_BSH ||
                   p->layout == FAST_LAYOUT_BSND ? 1 : 2;
    return kp->ndim > sa ? kp->shape[sa] : 0;
}

/* Bounded to +-2^40 so that the sums below cannot overflow whatever the
 * rows before let through (they bound every term far lower). */
static int64_t bounded(int64_t x)
{
    const int64_t m = (int64_t)1 << 40;
    return x > m ? m : x < -m ? -m : x;
}

/* 002 当Q_S大于1时 (int8 output with a non-null, non-empty quant_offset2):
 * the sparse band leaves a row of some batch without keys, q, kv the
 * batch's actual lengths, P the prefix length, pre / next as passed (the
 * sparse row clamped them to int32, which keeps their sign and, the
 * lengths being at most 20971520, every verdict). */
static fia_status check_uncomputed_rows(const fast_args *a,
                                        const fast_plan *p, fia_error *err)
{
    const int mode = p->sparse.mode;
    const int64_t pre = p->sparse.pre, next = p->sparse.next;
    if (mode == 0 && !p->mask.on)
        return FIA_OK;
    if (mode == 1 || mode == 2)
        return FIA_OK; /* 002: never */
    if (mode == 0 && next < 0)
        return FAST_REJECT("OQ-009", "int8 attention_out with quant_offset2, "
                           "sparse_mode 0 with atten_mask and next_tokens %lld < 0",
                           (long long)a->next);
    /* mode 4 with pre < 0: OQ-008 rejected it already */
    const int64_t P = bounded(prefix_len(a, p));
    for (int64_t b = 0; b < p->B; b++) {
        const int64_t S_kv = p->list.on && b < FAST_LIST_MAX ? p->list.s[b]
                                                             : p->KV_S;
        const int64_t q = bounded(len_of(a->asl, b, p->Q_S));
        const int64_t kv = bounded(len_of(a->aslkv, b, S_kv));
        bool bad;
        if (mode == 0)
            bad = q - kv - P - pre > 0;
        else if (mode == 3)
            bad = kv + P - q < 0;
        else
            bad = next + kv + P - q < 0;
        if (bad)
            return FAST_REJECT("OQ-009", "int8 attention_out with quant_offset2, "
                               "sparse_mode %d: batch %lld (q %lld, kv %lld, prefix "
                               "%lld) has rows without keys", mode, (long long)b,
                               (long long)q, (long long)kv, (long long)P);
    }
    return FIA_OK;
}

/* Layer 5, last (after the layout's limits, the sparse mode, the mask, the
 * lengths and the prefix).  002 int8量化相关入参 (per-channel element
 * count) and 当Q_S大于1时 (输出为int8: D 32-aligned, the band, the rows
 * left without keys). */
fia_status fast_check_int8_out_shape(const fast_args *a, fast_plan *p,
                                     fia_error *err)
{
    if (a->out->dtype != FIA_DT_INT8 || p->tnd.on)
        return FIA_OK; /* a token layout refused it (OQ-001, TND-X06) */
    const fia_tensor *qs2 = a->opt[FAST_OPT_QUANT_SCALE2];
    const fia_tensor *qo2 = a->opt[FAST_OPT_QUANT_OFFSET2];
    /* The output's H: BSH its last dim, the others N*D (N <= 256, D <=
     * 512 here). */
    const int64_t H = p->N * p->D, n = numel_of(qs2);
    if (n != 1 && n != H)
        return FAST_REJECT("OQ-006", "quant_scale2 of %lld elements: per-tensor "
                           "takes 1, per-channel the output's H = %lld",
                           (long long)n, (long long)H);
    if (p->Q_S <= 1)
        return FIA_OK;
    if (n > 1 && p->D % 32 != 0)
        return FAST_REJECT("OQ-007", "per-channel quant_scale2 at Q_S > 1: head dim "
                           "%lld not a multiple of 32", (long long)p->D);
    if (p->D % 32 != 0)
        return FAST_REJECT("OQ-010", "int8 attention_out at Q_S > 1: head dim %lld "
                           "not a multiple of 32", (long long)p->D);
    if (p->sparse.mode == 4 && (a->pre < 0 || a->next < 0))
        return FAST_REJECT("OQ-008", "int8 attention_out at Q_S > 1: sparse_mode 4 "
                           "with pre_tokens %lld / next_tokens %lld negative",
                           (long long)a->pre, (long long)a->next);
    if (qo2 && numel_of(qo2) > 0)
        return check_uncomputed_rows(a, p, err);
    return FIA_OK;
}

/* Layer 6: every rule accepts the int8 output; its arithmetic is not
 * modeled yet. */
fia_status fast_check_int8_out_compute(const fast_args *a, fast_plan *p,
                                       fia_error *err)
{
    p->int8_out.on = false;
    if (a->out->dtype != FIA_DT_INT8)
        return FIA_OK;
    /* either query (fp16/bf16, or int8: full quantization, whose x is
     * quantized the same way); the rules above made quant_scale2 one
     * element or N x D, fp32 or bf16, and quant_offset2 like it */
    const fia_tensor *qs2 = a->opt[FAST_OPT_QUANT_SCALE2];
    const fia_tensor *qo2 = a->opt[FAST_OPT_QUANT_OFFSET2];
    const int64_t n = qs2 != NULL ? numel_of(qs2) : -1;
    if (n < 1 ||
        (qs2->dtype != FIA_DT_FP32 && qs2->dtype != FIA_DT_BF16))
        return FAST_NOTMOD("NM-005", "int8 attention_out with a %s query and this "
                           "quant_scale2 is not computed",
                           fast_dtype_name(a->query->dtype));
    p->int8_out.on = true;
    p->int8_out.pc = n > 1;
    p->int8_out.dt = qs2->dtype;
    p->int8_out.s = qs2->data;
    p->int8_out.o = qo2 != NULL && numel_of(qo2) > 0 ? qo2->data : NULL;
    p->int8_out.o_given = qo2 != NULL && numel_of(qo2) > 0;
    return FIA_OK;
}
