/* The executor: a validated plan plus its per-batch lengths, the workspace
 * contract (phase two's checks; api.c is the entry that runs it), destroy,
 * and the final rounding to fp16 / bf16. */
#include <stdlib.h>
#include "fast_internal.h"

void fast_plan_finish(fast_plan *p)
{
    int64_t N = p->N, KV_N = p->KV_N, D = p->D;
    if (p->layout == FAST_LAYOUT_BSH || p->layout == FAST_LAYOUT_BSND) {
        /* [B, S, N, D] (BSH is the same with H = N*D) */
        p->q_sn = D, p->q_ss = N * D, p->q_sb = p->Q_S * N * D;
        p->k_sn = D, p->k_ss = KV_N * D, p->k_sb = p->KV_S * KV_N * D;
    } else {
        /* [B, N, S, D] */
        p->q_ss = D, p->q_sn = p->Q_S * D, p->q_sb = N * p->Q_S * D;
        p->k_ss = D, p->k_sn = p->KV_S * D, p->k_sb = KV_N * p->KV_S * D;
    }
    if (p->page.on && p->page.nz) {
        /* NZ (blocknum, KV_N, D/w, block_size, w), w = nz_w (16, int8's
         * 32): a row's tiles block_size * w apart, its rows w apart
         * within a tile */
        p->page.k_sd = p->page.block_size * p->page.nz_w;
        p->k_ss = p->page.nz_w, p->k_sn = D * p->page.block_size;
        p->page.k_sblk = KV_N * p->k_sn, p->k_sb = 0;
    } else if (p->page.on && p->page.cache4d) {
        /* (blocknum, KV_N, block_size, D) */
        p->k_ss = D, p->k_sn = p->page.block_size * D;
        p->page.k_sblk = KV_N * p->k_sn, p->k_sb = 0;
    } else if (p->page.on) {
        /* (blocknum, block_size, KV_N*D) */
        p->k_sn = D, p->k_ss = KV_N * D;
        p->page.k_sblk = p->page.block_size * p->k_ss, p->k_sb = 0;
    }
    if (p->tnd.on) {
        /* [T, N, D] or [N, T, D]; batch b starts at token q_tok[b] */
        p->q_sb = p->k_sb = p->o_sb = 0;
        p->q_sn = p->tnd.q_ntd ? p->tnd.T * D : D;
        p->q_ss = p->tnd.q_ntd ? D : N * D;
        if (!p->page.on) { /* a cache keeps its strides (MLA) */
            p->k_sn = p->tnd.q_ntd ? p->tnd.T_kv * D : D;
            p->k_ss = p->tnd.q_ntd ? D : KV_N * D;
        }
        /* attention_out has value's D (003 §返回值说明) */
        p->o_sn = p->tnd.o_ntd ? p->tnd.T * p->tnd.Dv : p->tnd.Dv;
        p->o_ss = p->tnd.o_ntd ? p->tnd.Dv : N * p->tnd.Dv;
    } else if (p->layout == FAST_LAYOUT_BNSD_BSND) {
        p->o_sn = D, p->o_ss = N * D, p->o_sb = p->Q_S * N * D;
    } else if (p->o_nbsd) {
        /* [N, B, Q_S, D] */
        p->o_ss = D, p->o_sb = p->Q_S * D, p->o_sn = p->B * p->Q_S * D;
    } else {
        p->o_sn = p->q_sn, p->o_ss = p->q_ss, p->o_sb = p->q_sb;
    }
    /* the shared prefix, [1, S_p, KV_N, D] or [1, KV_N, S_p, D]: the key's
     * row stride, its own head stride */
    p->prefix.k_sn =
        p->layout == FAST_LAYOUT_BSH || p->layout == FAST_LAYOUT_BSND
            ? D : p->prefix.S_p * D;
    /* MLA: query_rope / key_rope have the query's / key's shape with
     * rope.D for D, and every stride above is a multiple of D by one factor */
    if (p->rope.D > 0) {
        p->rope.q_sb = p->q_sb / D * p->rope.D;
        p->rope.q_sn = p->q_sn / D * p->rope.D;
        p->rope.q_ss = p->q_ss / D * p->rope.D;
        p->rope.k_sb = p->k_sb / D * p->rope.D;
        p->rope.k_sn = p->k_sn / D * p->rope.D;
        p->rope.k_ss = p->k_ss / D * p->rope.D;
        p->rope.k_sblk = p->page.k_sblk / D * p->rope.D;
        if (p->page.nz) { /* (blocknum, KV_N, rope.D/16, block_size, 16):
                           * bf16 tiles of 16 also beside an int8 key's
                           * of 32 */
            p->page.kr_sd = p->page.block_size * 16, p->rope.k_ss = 16;
            p->rope.k_sn = p->rope.D * p->page.block_size;
            p->rope.k_sblk = KV_N * p->rope.k_sn;
        }
    }
    p->v_own = false; /* value's strides: the key's (one shape) */
    p->v_sn = p->k_sn, p->v_ss = p->k_ss;
    if (p->tnd.on && p->tnd.Dv != D && p->rope.D == 0 && !p->page.on)
        fast_plan_narrow_value(p); /* TND 192/128 (plan_tnd.c) */
    if (p->query_quant.on) {
        /* dequant_scale_query: the query's shape without D, (B, S, N) for
         * BSH / BSND, (B, N, S) for BNSD (check_query_quant_mla.c) */
        const bool bn = p->layout == FAST_LAYOUT_BNSD;
        p->query_quant.dsq_sb = N * p->Q_S;
        p->query_quant.dsq_sn = bn ? p->Q_S : 1;
        p->query_quant.dsq_ss = bn ? 1 : N;
    }
    fast_plan_schedule(p); /* threads, splits and the workspace size */
}

fia_status fast_executor_create(const fast_plan *plan,
                                const fia_int_array *asl,
                                const fia_int_array *aslkv,
                                fast_executor **out, fia_error *err)
{
    /* B <= 65536 was checked, so this is at most 2 MiB. */
    int64_t B = plan->empty ? 0 : plan->B;
    const bool padded = plan->padding.q_scene || plan->padding.kv_scene;
    const int64_t arrays = plan->tnd.on || padded ? 4 : 2;
    size_t bytes = sizeof(fast_executor) +
                   (size_t)(arrays * B) * sizeof(int64_t);
    fast_executor *ex = malloc(bytes);
    if (ex == NULL)
        return fast_fail(err, FIA_ERR_NOMEM, "NOMEM",
                         "cannot allocate an executor of %zu bytes", bytes);
    ex->magic = FAST_EXECUTOR_MAGIC;
    ex->plan = *plan;
    ex->plan.q_len = ex->lens;
    ex->plan.kv_len = ex->lens + B;
    ex->plan.tnd.q_tok = ex->plan.tnd.kv_tok = NULL;
    /* left padding: q_start / kv_start, filled at run time (run_padding.c;
     * token layouts take no padding: check_padding.c) */
    ex->plan.padding.q_start =
        plan->padding.q_scene && B > 0 ? ex->lens + 2 * B : NULL;
    ex->plan.padding.kv_start =
        plan->padding.kv_scene && B > 0 ? ex->lens + 3 * B : NULL;
    if (padded && !plan->tnd.on)
        memset(ex->lens + 2 * B, 0, (size_t)(2 * B) * sizeof(int64_t));
    if (plan->tnd.on) {
        /* cumulative counts (check_tnd.c validated them): batch b's tokens
         * are [values[b - 1], values[b]) */
        ex->plan.tnd.q_tok = ex->lens + 2 * B;
        ex->plan.tnd.kv_tok = ex->lens + 3 * B;
        for (int64_t b = 0; b < B; b++) {
            ex->plan.tnd.q_tok[b] = b ? asl->values[b - 1] : 0;
            /* a paged cache (MLA): each batch's own length */
            ex->plan.tnd.kv_tok[b] =
                b && !plan->page.on ? aslkv->values[b - 1] : 0;
            ex->plan.q_len[b] = asl->values[b] - ex->plan.tnd.q_tok[b];
            ex->plan.kv_len[b] = aslkv->values[b] - ex->plan.tnd.kv_tok[b];
        }
        *out = ex;
        return FIA_OK;
    }
    for (int64_t b = 0; b < B; b++) {
        /* docs/features/seqlen.md: length 1 broadcasts, a longer
         * array gives its first B values. */
        ex->plan.q_len[b] = asl ? asl->values[asl->count == 1 ? 0 : b]
                                : plan->Q_S;
        /* a list's batch reads its own tensor's S by default; the logical
         * length counts a shared prefix's P keys first (prefix.md) */
        ex->plan.kv_len[b] = plan->prefix.P +
            (aslkv ? aslkv->values[aslkv->count == 1 ? 0 : b]
                   : plan->list.on ? plan->list.s[b] : plan->KV_S);
    }
    *out = ex;
    return FIA_OK;
}

void fastExecutorDestroy(fast_executor *executor)
{
    if (executor == NULL)
        return;
    executor->magic = 0;
    free(executor);
}

/* Page attention: every block id the run will read, those of blocks m <
 * ceil(kv_len[b] / block_size) of each batch, inside the cache.  The
 * operator does not validate them (002: "当前不会对blockid的合法性进行校验");
 * fast/ never reads outside the cache, so an id out of range is a runtime
 * error rather than a read anywhere. */
static fia_status check_block_ids(const fast_plan *p, fia_error *err)
{
    for (int64_t b = 0; b < p->B; b++) {
        const int64_t len = p->kv_len[b];
        const int64_t nb =
            len / p->page.block_size + (len % p->page.block_size != 0);
        if (nb > 0 && p->page.bt == NULL)
            return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                             "block_table has no data");
        for (int64_t m = 0; m < nb; m++) {
            const int32_t id = p->page.bt[b * p->page.bt_cols + m];
            if (id < 0 || id >= p->page.blocknum)
                return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_BLOCK_ID",
                                 "block_table[%lld][%lld] = %d outside the "
                                 "cache's %lld blocks", (long long)b,
                                 (long long)m, (int)id,
                                 (long long)p->page.blocknum);
        }
    }
    return FIA_OK;
}

/* Phase two's checks, before anything runs (api.c's
 * fastFusedInferAttentionScoreV2 consumes the executor on every path). */
fia_status fast_executor_check_run(const fast_executor *ex,
                                   const void *workspace,
                                   uint64_t workspace_size, fia_error *err)
{
    /* RELEASED "Return codes": null executor 161001. */
    if (ex == NULL)
        return fast_fail(err, FIA_ERR_PARAM_NULLPTR, "R_EXECUTOR",
                         "executor is a nullptr");
    const fast_plan *p = &ex->plan;
    if (p->sched.workspace_size > 0 && workspace == NULL)
        /* RELEASED: workspace null with size > 0 -> 161001. */
        return fast_fail(err, FIA_ERR_PARAM_NULLPTR, "R_WORKSPACE_NULL",
                         "workspace is NULL but %llu bytes are required",
                         (unsigned long long)p->sched.workspace_size);
    if (workspace_size < p->sched.workspace_size)
        /* RELEASED: workspace smaller than required -> 161002. */
        return fast_fail(err, FIA_ERR_PARAM_INVALID, "R_WORKSPACE_SIZE",
                         "workspace of %llu bytes < %llu required",
                         (unsigned long long)workspace_size,
                         (unsigned long long)p->sched.workspace_size);
    if (!p->empty &&
        ((p->q == NULL && p->q_numel > 0) ||
         (p->k == NULL && p->kv_numel > 0) ||
         (p->v == NULL && p->kv_numel > 0) ||
         (p->out == NULL && p->out_numel > 0) ||
         (p->mask.on && p->mask.data == NULL && p->sparse.mode < 2) ||
         (p->pse.on && p->pse.data == NULL) ||
         (p->lse == NULL && p->lse_numel > 0)))
        /* Status-only runs carry no data; running one is a runtime error. */
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "a tensor needed by phase two has no data");
    if (!p->empty && p->rope.D > 0 &&
        ((p->rope.q == NULL && p->rope.q_numel > 0) ||
         (p->rope.k == NULL && p->rope.k_numel > 0)))
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "query_rope / key_rope has no data");
    if (!p->empty && p->sink.on && p->sink.data == NULL)
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "learnable_sink has no data");
    if (!p->empty && p->prefix.P > 0 &&
        (p->prefix.k == NULL || p->prefix.v == NULL))
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "key_shared_prefix / value_shared_prefix has no "
                         "data");
    for (int64_t b = 0; !p->empty && p->list.on && b < p->B; b++)
        if ((p->list.k[b] == NULL || p->list.v[b] == NULL) && p->list.s[b] > 0)
            return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                             "key/value[%lld] has no data", (long long)b);
    if (!p->empty && p->int8_out.on && (p->int8_out.s == NULL ||
                               (p->int8_out.o_given && p->int8_out.o == NULL)))
        return fast_fail(err, FIA_ERR_RUNTIME_ERROR, "R_NO_DATA",
                         "quant_scale2 / quant_offset2 has no data");
    fia_status st = fast_aq_check_data(p, err);
    if (st == FIA_OK)
        st = fast_int8_quant_check_data(p, err);
    if (st == FIA_OK)
        st = fast_query_quant_check_data(p, err);
    if (st != FIA_OK)
        return st;
    if (!p->empty && p->page.on)
        return check_block_ids(p, err);
    return FIA_OK;
}

/* ---- final rounding -------------------------------------------------------- */
/* x rounded once, nearest-even, to a binary format with `mant` fraction bits,
 * exponent bias `bias` and maximum finite exponent emax; returns the bits. */
static uint16_t round_narrow(double x, int mant, int bias, int ebits)
{
    uint16_t sign = signbit(x) ? (uint16_t)(1u << (mant + ebits)) : 0;
    uint16_t inf = (uint16_t)(((1u << ebits) - 1u) << mant);
    double a = fabs(x);
    if (isnan(x))
        return (uint16_t)(sign | inf | (1u << (mant - 1)));
    int emax = (1 << (ebits - 1)) - 1, emin = 1 - emax;
    /* Overflow threshold: max finite + half an ulp rounds to infinity. */
    double big = ldexp(2.0 - ldexp(1.0, -mant - 1), emax);
    if (a >= big)
        return (uint16_t)(sign | inf);
    if (a < ldexp(1.0, emin)) { /* subnormal: spacing 2^(emin - mant) */
        double q = rint(ldexp(a, mant - emin));
        return (uint16_t)(sign | (uint16_t)q); /* q == 2^mant -> min normal */
    }
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    e -= 1;       /* a in [2^e, 2^(e+1)) */
    double q = rint(ldexp(a, mant - e)); /* in [2^mant, 2^(mant+1)] */
    uint32_t bits = ((uint32_t)(e + bias) << mant) + ((uint32_t)q - (1u << mant));
    return (uint16_t)(sign | bits); /* a carry into the exponent is right */
}

uint16_t fast_double_to_fp16(double x) { return round_narrow(x, 10, 15, 5); }
uint16_t fast_double_to_bf16(double x) { return round_narrow(x, 7, 127, 8); }
