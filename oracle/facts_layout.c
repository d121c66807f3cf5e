/* oracle/facts_layout: the layout, and the dims of query and key read
 * through it (BSH: [B, S, H] with H = N * D; BSND: [B, S, N, D]; BNSD and
 * BNSD_BSND: [B, N, S, D]).  The token layouts are read by facts_tnd.c
 * (after the lengths, which give their B).  The *_NBSD outputs (003
 * §参数说明 input_layout: "下划线左边表示输入query的layout，下划线右边表示输出
 * output的格式") read the query, key and value in the layout before '_':
 * BSH_NBSD is BSH with o_nbsd set (attention_out (N, B, Q_S, D), OUT-003;
 * their own rules are MLA's, rules_mla.c). */
#include <string.h>
#include "oracle_internal.h"

static const struct {
    const char *name;
    orc_layout layout;
    int o_nbsd;
} layout_names[] = {
    {"BSH", ORC_LAYOUT_BSH, 0},
    {"BSND", ORC_LAYOUT_BSND, 0},
    {"BNSD", ORC_LAYOUT_BNSD, 0},
    {"BNSD_BSND", ORC_LAYOUT_BNSD_BSND, 0},
    /* 003 §参数说明 > input_layout; NTD by RELEASED "Layouts" only. */
    {"TND", ORC_LAYOUT_TND, 0},
    {"TND_NTD", ORC_LAYOUT_TND_NTD, 0},
    {"NTD_TND", ORC_LAYOUT_NTD_TND, 0},
    {"NTD", ORC_LAYOUT_NTD, 0},
    {"BSH_NBSD", ORC_LAYOUT_BSH, 1},
    {"BSND_NBSD", ORC_LAYOUT_BSND, 1},
    {"BNSD_NBSD", ORC_LAYOUT_BNSD, 1},
};

int orc_is_prefill(const fia_oracle_facts *f)
{
    return f->path == ORC_PATH_PREFILL;
}

int orc_is_decode(const fia_oracle_facts *f)
{
    return f->path == ORC_PATH_DECODE;
}

/* B, Q_S, N axis, D and H of the query; the path from Q_S. */
static void query_dims(const fia_tensor *q, fia_oracle_facts *f)
{
    f->q_rank_ok = 1;
    f->B = q->shape[0];
    switch (f->layout) {
    case ORC_LAYOUT_BSH:
        f->Q_S = q->shape[1];
        f->H = q->shape[2];
        if (f->N > 0 && f->H % f->N == 0) {
            f->D = f->H / f->N;
            f->q_d_ok = 1;
        }
        break;
    case ORC_LAYOUT_BSND:
        f->Q_S = q->shape[1];
        f->QN = q->shape[2];
        f->D = q->shape[3];
        f->q_d_ok = 1;
        break;
    default: /* BNSD, BNSD_BSND */
        f->QN = q->shape[1];
        f->Q_S = q->shape[2];
        f->D = q->shape[3];
        f->q_d_ok = 1;
        break;
    }
    f->path = f->Q_S == 1 ? ORC_PATH_DECODE : ORC_PATH_PREFILL;
}

/* The same of the key (first tensor of the list), through KV_N. */
static void key_dims(const fia_tensor *k, fia_oracle_facts *f)
{
    f->k_rank_ok = 1;
    f->KB = k->shape[0];
    switch (f->layout) {
    case ORC_LAYOUT_BSH:
        f->KV_S = k->shape[1];
        f->KH = k->shape[2];
        if (f->KV_N > 0 && f->KH % f->KV_N == 0) {
            f->KD = f->KH / f->KV_N;
            f->k_d_ok = 1;
        }
        break;
    case ORC_LAYOUT_BSND:
        f->KV_S = k->shape[1];
        f->KN = k->shape[2];
        f->KD = k->shape[3];
        f->k_d_ok = 1;
        break;
    default:
        f->KN = k->shape[1];
        f->KV_S = k->shape[2];
        f->KD = k->shape[3];
        f->k_d_ok = 1;
        break;
    }
    /* int4 packed eight to an int32: the last dim is D/8 or H/8 (002 当Q_S
     * 等于1时 "KV的N、D或者H是实际值的八分之一"); the real dims are 8x. */
    if (k->dtype == FIA_DT_INT32) {
        if (f->KH > INT64_MAX / 8 || f->KD > INT64_MAX / 8) {
            f->k_d_ok = 0;
            return;
        }
        if (f->layout == ORC_LAYOUT_BSH) {
            f->KH *= 8;
            if (f->KV_N > 0 && f->KH % f->KV_N == 0)
                f->KD = f->KH / f->KV_N, f->k_d_ok = 1;
        } else {
            f->KD *= 8;
        }
    }
}

void orc_facts_layout(const fia_case *c, fia_oracle_facts *f)
{
    f->layout = ORC_LAYOUT_INVALID;
    for (size_t i = 0; i < sizeof layout_names / sizeof layout_names[0]; i++)
        if (strcmp(c->attrs.input_layout, layout_names[i].name) == 0) {
            f->layout = layout_names[i].layout;
            f->o_nbsd = layout_names[i].o_nbsd;
        }
    f->layout_modeled = f->layout <= ORC_LAYOUT_BNSD_BSND;
    f->tnd = f->layout >= ORC_LAYOUT_TND && f->layout <= ORC_LAYOUT_NTD;
    f->q_ntd = f->layout == ORC_LAYOUT_NTD || f->layout == ORC_LAYOUT_NTD_TND;
    f->o_ntd = f->layout == ORC_LAYOUT_NTD || f->layout == ORC_LAYOUT_TND_NTD;
    f->q_rank_want = !f->layout_modeled ? 0
                     : f->layout == ORC_LAYOUT_BSH ? 3 : 4;

    f->B = f->Q_S = f->QN = f->D = f->H = -1;
    f->KB = f->KV_S = f->KN = f->KD = f->KH = -1;

    const fia_tensor *q = f->t[FIA_SLOT_QUERY];
    if (q && f->q_rank_want && q->ndim == f->q_rank_want)
        query_dims(q, f);
    /* a paged call's key is a cache of blocks: facts_paged.c */
    f->paged = f->given[FIA_SLOT_BLOCK_TABLE];
    const fia_tensor *k = f->t[FIA_SLOT_KEY];
    if (k && !f->paged && f->q_rank_want && k->ndim == f->q_rank_want)
        key_dims(k, f);
    const fia_tensor *v = f->t[FIA_SLOT_VALUE];
    f->v_rank_ok = v && !f->paged && f->q_rank_want &&
                   v->ndim == f->q_rank_want;
}

/* The key's and value's last dims: equal, or 192 / 128 per head (KV_N
 * heads folded into a rank-3 tensor's last dim). */
static int last_pair(int64_t k, int64_t v, int64_t heads)
{
    /* by division: heads may be any int64 a call carries */
    return heads > 0 && k > 0 && v > 0 && k % 192 == 0 && k / 192 == heads &&
           v % 128 == 0 && v / 128 == heads;
}

int orc_value_d_pair(const fia_oracle_facts *f)
{
    if (f->tnd || !f->layout_modeled || f->count[FIA_SLOT_KEY] != 1 ||
        f->count[FIA_SLOT_VALUE] != 1 || !f->given[FIA_SLOT_KEY] ||
        !f->given[FIA_SLOT_VALUE])
        return 0;
    const fia_tensor *k = f->t[FIA_SLOT_KEY], *v = f->t[FIA_SLOT_VALUE];
    if (k->ndim != v->ndim || (k->ndim != 3 && k->ndim != 4))
        return 0;
    for (int d = 0; d + 1 < k->ndim; d++)
        if (k->shape[d] != v->shape[d])
            return 0;
    const int last = k->ndim - 1;
    return last_pair(k->shape[last], v->shape[last], k->ndim == 3 ? f->KV_N : 1);
}
