/* seqlen: actual_seq_lengths and actual_seq_lengths_kv (the executor
 * expands them per batch, executor.c). */
#include "validate.h"

/* Checks an actual_seq_lengths(_kv) array (002 参数说明: length 1 is
 * broadcast, length >= B takes the first B, other lengths unsupported; each
 * value not above the tensor's S).  Negative values are rejected: a length
 * cannot be negative (003 states it for TND; 002 is silent, decided here). */
static fia_status check_lengths(const fast_args *a, const fia_int_array *arr,
                                int64_t B, int64_t S, const char *what,
                                const char *id_len, const char *id_val,
                                fia_error *err)
{
    if (arr->count <= 0)
        return FAST_REJECT(id_len, "%s has length %lld (must be 1 or >= B = %lld)",
                           what, (long long)arr->count, (long long)B);
    if (arr->count != 1 && arr->count < B)
        return FAST_REJECT(id_len, "%s has length %lld (must be 1 or >= B = %lld)",
                           what, (long long)arr->count, (long long)B);
    if (arr->values == NULL)
        return FAST_REJECT(id_len, "%s has %lld elements but no values", what,
                           (long long)arr->count);
    int64_t n = arr->count == 1 ? 1 : B;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = arr->values[i];
        if (v < 0 || v > S)
            return FAST_REJECT(id_val, "%s[%lld] = %lld outside [0, %lld]", what,
                               (long long)i, (long long)v, (long long)S);
    }
    return FIA_OK;
}

/* Layer 4.  002 actualSeqLengths (ignored when Q_S = 1 without rope) and
 * actualSeqLengthsKv. */
fia_status fast_check_seqlen(const fast_args *a, fast_plan *p, fia_error *err)
{
    if (p->tnd.on)
        return FIA_OK; /* cumulative counts: check_tnd.c */
    if ((p->Q_S > 1 || p->rope.D > 0) && a->asl) { /* MLA reads it at Q_S 1 */
        fia_status st = check_lengths(a, a->asl, p->B, p->Q_S,
                                      "actual_seq_lengths", "S_ASL_LEN",
                                      "S_ASL_VALUE", err);
        if (st != FIA_OK)
            return st;
    }
    if (a->aslkv) {
        fia_status st = check_lengths(a, a->aslkv, p->B, p->KV_S,
                                      "actual_seq_lengths_kv", "S_ASLKV_LEN",
                                      "S_ASLKV_VALUE", err);
        if (st != FIA_OK)
            return st;
    }
    return FIA_OK;
}
