/* gqa: num_key_value_heads and the query-to-KV head map (query head n
 * reads KV head n / group). */
#include "validate.h"

/* Layer 4.  002 numKeyValueHeads.  Fills KV_N and group. */
fia_status fast_check_gqa(const fast_args *a, fast_plan *p, fia_error *err)
{
    if (a->num_kv_heads < 0)
        return FAST_REJECT("S_KV_HEADS", "num_key_value_heads %lld is negative",
                           (long long)a->num_kv_heads);
    /* RELEASED: 0 means num_heads. */
    p->KV_N = a->num_kv_heads == 0 ? p->N : a->num_kv_heads;
    if (p->KV_N > p->N || p->N % p->KV_N != 0)
        return FAST_REJECT("S_KV_HEADS", "num_heads %lld not a multiple of "
                           "num_key_value_heads %lld", (long long)p->N,
                           (long long)p->KV_N);
    p->group = p->N / p->KV_N;
    /* 002: ratio <= 64.  RELEASED: accepted on the fp16/bf16 non-quantized
     * path, so only the DOC profile rejects there; a quantized path (an
     * int8 query, int8/int4 key/value: ANTI-028) rejects in both. */
    const fia_dtype kd = a->key->tensors[0]->dtype;
    const bool quantized = a->query->dtype == FIA_DT_INT8 ||
                           (kd != FIA_DT_FP16 && kd != FIA_DT_BF16);
    /* (003 MLA, query D 512, documents N 128 with one KV head, its full
     * quantization included) */
    if (p->group > 64 && quantized && !fast_mla512(a))
        return FAST_REJECT("ANTI-028", "num_heads / num_key_value_heads = %lld > 64 "
                           "on a quantized path (%s query, %s key/value)",
                           (long long)p->group, fast_dtype_name(a->query->dtype),
                           fast_dtype_name(kd));
    /* 003 MLA (query D 512): N 32/64/128 with one KV head is documented */
    if (p->group > 64 && a->profile == FIA_PROFILE_DOC && !fast_mla512(a))
        return FAST_REJECT("S_GQA_RATIO", "num_heads / num_key_value_heads = %lld "
                           "> 64", (long long)p->group);
    return FIA_OK;
}
