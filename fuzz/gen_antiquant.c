/* Key/value antiquantization in generated cases (docs/features/antiquant.md).
 *
 * fuzz_params: in the middle of the list the modes alone now and then
 * (fz_params_antiquant, the corpus's old bytes); at the end (fz_params_antiquant_scene)
 * now and then a whole scene of the doc's table — the combined set
 * (per-tensor, per-channel in its three shapes, per-token) or the separate
 * one (modes 0..5, key 0 + value 1), int8 key/value, or at Q_S = 1 int4 as
 * its element dtype or packed eight to an int32 (last dim / 8), on both
 * paths (Q_S > 1: fp16 query + combined per-tensor / per-channel, or bf16
 * query + separate modes 0 / 1 at Q_S <= 16), offsets or not, the call
 * made paged for modes 4 / 5, per-token S' padded now and then — and, on
 * non-strict inputs, one ANTI rule of the doc's Rules table broken
 * (aq_breaks: the rule each break breaks, where it fits, how).  A path where no scene is valid
 * (Q_S > 1 with D not a multiple of 32) gets one only to break ANTI-020.
 *
 * fuzz_numeric and fuzz_metamorphic's bases (gen_antiquant_data.c): a
 * valid case's key and value quantized.
 * Fragment contract: fuzz/gen.h. */
#include <string.h>
#include "fuzz/gen.h"

/* antiquant_mode or value_antiquant_mode, then key_antiquant_mode, each
 * -1..2 now and then. */
void fz_params_antiquant(fz_gen *g)
{
    if (fz_odd(g, 2)) {
        /* which attribute, then its value: the order of clang, which
         * builds the libFuzzer targets that made the corpus (the two were
         * once arguments of one call, whose order C leaves open) */
        fia_attr a = fz_bytes_bool(g->f) ? FIA_ATTR_ANTIQUANT_MODE
                                    : FIA_ATTR_VALUE_ANTIQUANT_MODE;
        fz_case_attr(g->c, a, fz_bytes_range(g->f, -1, 2));
    }
    if (fz_odd(g, 1))
        fz_case_attr(g->c, FIA_ATTR_KEY_ANTIQUANT_MODE, fz_bytes_range(g->f, -1, 2));
}

/* ---- the scale forms ------------------------------------------------------ */

int fz_aq_shape(fz_aq_form f, int lead, int var, int64_t B, int64_t N,
                int64_t D, int64_t S, int64_t blocknum, int64_t bs,
                int64_t *sh)
{
    int nd = 0;
    switch (f) {
    case FZ_AQ_TENSOR:
        sh[nd++] = lead > 0 ? lead : 1;
        return nd;
    case FZ_AQ_CHANNEL:
        if (lead == 0 && var % 6 >= 3)
            lead = 1, var -= 3; /* 003's forms at Q_S > 1 */
        if (lead > 0)
            sh[nd++] = lead;
        switch (var % 3) {
        case 0: sh[nd++] = N, sh[nd++] = 1, sh[nd++] = D; break;
        case 1: sh[nd++] = N, sh[nd++] = D; break;
        default: sh[nd++] = N * D; break;
        }
        return nd;
    case FZ_AQ_TOKEN:
        if (lead > 0)
            sh[nd++] = lead;
        sh[nd++] = B, sh[nd++] = S;
        return nd;
    case FZ_AQ_HEAD:
        sh[nd++] = N;
        return nd;
    case FZ_AQ_TOKEN_HEAD:
        sh[nd++] = B, sh[nd++] = N, sh[nd++] = S;
        return nd;
    case FZ_AQ_PAGE_TOKEN:
        sh[nd++] = blocknum, sh[nd++] = bs;
        return nd;
    default:
        sh[nd++] = blocknum, sh[nd++] = N, sh[nd++] = bs;
        return nd;
    }
}

int fz_aq_form_of_mode(int64_t m, int per_tensor)
{
    static const fz_aq_form f[] = {FZ_AQ_CHANNEL, FZ_AQ_TOKEN, FZ_AQ_HEAD,
                                   FZ_AQ_TOKEN_HEAD, FZ_AQ_PAGE_TOKEN,
                                   FZ_AQ_PAGE_TOKEN_HEAD};
    if (m < 0 || m > 5)
        return -1;
    return m == 0 && per_tensor ? FZ_AQ_TENSOR : (int)f[m];
}

fia_dtype fz_aq_scale_dtype(fz_aq_form f, fia_dtype qdt)
{
    return f == FZ_AQ_TENSOR || f == FZ_AQ_CHANNEL || f == FZ_AQ_HEAD
               ? qdt
               : FIA_DT_FP32;
}

const fia_slot fz_aq_slot[FZ_AQ_NT] = {
    FIA_SLOT_ANTIQUANT_SCALE,     FIA_SLOT_ANTIQUANT_OFFSET,
    FIA_SLOT_KEY_ANTIQUANT_SCALE, FIA_SLOT_KEY_ANTIQUANT_OFFSET,
    FIA_SLOT_VALUE_ANTIQUANT_SCALE, FIA_SLOT_VALUE_ANTIQUANT_OFFSET};

int fz_aq_int4(fia_dtype dt) { return dt == FIA_DT_INT4 || dt == FIA_DT_INT32; }

/* Sets the dtype of every tensor of slot s (a list's too); int32 packs
 * eight int4: the last dim / 8 (left as it is when it does not divide). */
void fz_aq_set_kv_dtype(fia_case *c, fia_slot s, fia_dtype dt)
{
    fia_tensor_spec *sp = &c->tensors[s];
    for (int i = 0; sp->presence == FIA_PRESENT && i < sp->count; i++) {
        fia_tensor *t = &sp->t[i];
        const int was32 = t->dtype == FIA_DT_INT32;
        if (t->ndim > 0 && was32 != (dt == FIA_DT_INT32)) {
            int64_t *last = &t->shape[t->ndim - 1];
            if (dt == FIA_DT_INT32 && *last % 8 == 0)
                *last /= 8;
            else if (was32)
                *last *= 8;
        }
        t->dtype = dt;
    }
}

int64_t fz_aq_token_s(const fia_case *c, int64_t kv_s)
{
    const fia_tensor_spec *t = &c->tensors[FIA_SLOT_BLOCK_TABLE];
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    if (t->presence == FIA_PRESENT && t->count == 1 && t->t[0].ndim == 2 &&
        c->attrs.block_size > 0)
        return t->t[0].shape[1] * c->attrs.block_size;
    if (k->presence == FIA_PRESENT && k->count > 1) {
        const int sa = fz_layout_of(c->attrs.input_layout) == FZ_BNSD ||
                               fz_layout_of(c->attrs.input_layout) ==
                                   FZ_BNSD_BSND
                           ? 2 : 1;
        int64_t most = 0;
        for (int i = 0; i < k->count; i++)
            if (k->t[i].ndim > sa && k->t[i].shape[sa] > most)
                most = k->t[i].shape[sa];
        return most;
    }
    return kv_s;
}

/* ---- fuzz_params: a scene and a rule broken -------------------------------- */

/* The breaks, in the order of the doc's Rules table (break k breaks
 * aq_breaks[k].rule); the bytes pick among those that fit the call. */
enum {
    BR_CMODE, BR_SMODE, BR_QS_MODE, BR_MODE_PAIR, BR_COFF_ALONE,
    BR_COFF_MATCH, BR_CSHAPE, BR_CDTYPE, BR_SPAIR, BR_SSHAPES, BR_SOFF,
    BR_SSHAPE, BR_SDTYPE, BR_QS17, BR_SEP_QS_DT, BR_COMB_QS_DT, BR_INT4_COMB,
    BR_INT4_MODE, BR_INT4_D, BR_D32, BR_PAGE_MODE, BR_01_DT, BR_SPRIME,
    BR_INT4_OUT, BR_KV_DT, BR_NO_SCALE, BR_ALL_INT8, BR_GQA, BR_COUNT
};

/* Where a break fits: the calls on which breaking it leaves every other
 * rule as it was (as far as the path allows). */
typedef enum aq_where {
    AQW_ANY,          /* a path with a valid scene: Q_S = 1 or D % 32 = 0 */
    AQW_DECODE,       /* Q_S = 1 */
    AQW_PREFILL,      /* Q_S > 1, D % 32 = 0 */
    AQW_PREFILL16,    /* Q_S 2..16, D % 32 = 0 (the separate set's) */
    AQW_PREFILL17,    /* Q_S > 16, D % 32 = 0 */
    AQW_NOT_D32,      /* Q_S > 1, D % 32 != 0: no valid scene */
    AQW_SEPARATE,     /* where the separate set is valid */
    AQW_INT4,         /* Q_S = 1, D % 64 = 0, not paged */
    AQW_INT4_BAD_D,   /* Q_S = 1, D % 64 != 0, not paged */
    AQW_UNPAGED,      /* Q_S = 1, not paged */
    AQW_GQA           /* AQW_ANY with one query tensor (its heads grow) */
} aq_where;

/* Which set the scene takes; its key dtype. */
typedef enum aq_set { AQS_EITHER, AQS_COMBINED, AQS_SEPARATE } aq_set;
typedef enum aq_kd {
    AQK_INT8, /* int8 key/value */
    AQK_ANY,  /* int4 now and then where a valid scene has it */
    AQK_INT4  /* int4 or int32-packed always (the break is int4's) */
} aq_kd;

typedef struct aq_break {
    const char *rule;      /* the rule's id in oracle/ */
    fia_profile profile;   /* the profile whose catalogue fires it */
    aq_where where;
    aq_set set;
    aq_kd kd;
    const char *how;       /* what break_scene changes */
} aq_break;

#define DOC FIA_PROFILE_DOC
static const aq_break aq_breaks[BR_COUNT] = {
    [BR_CMODE] = {"ANTI-001", DOC, AQW_DECODE, AQS_COMBINED, AQK_INT8,
                  "antiquant_mode 2, -1, 5, 3 or 255"},
    [BR_SMODE] = {"ANTI-002", DOC, AQW_DECODE, AQS_SEPARATE, AQK_INT8,
                  "both modes 6, -1, 7 or 100"},
    [BR_QS_MODE] = {"ANTI-003", DOC, AQW_PREFILL16, AQS_SEPARATE, AQK_INT8,
                    "both modes 2..5 at Q_S > 1"},
    [BR_MODE_PAIR] = {"ANTI-004", DOC, AQW_SEPARATE, AQS_SEPARATE, AQK_ANY,
                      "key 1 with value 0 or 3 (Q_S > 1: value 0)"},
    [BR_COFF_ALONE] = {"ANTI-005", DOC, AQW_ANY, AQS_COMBINED, AQK_INT8,
                       "the offset given, the scale not"},
    [BR_COFF_MATCH] = {"ANTI-006", DOC, AQW_ANY, AQS_COMBINED, AQK_INT8,
                       "the offset one off in shape or of another dtype"},
    [BR_CSHAPE] = {"ANTI-007", DOC, AQW_ANY, AQS_COMBINED, AQK_INT8,
                   "the scale (and its offset) one off in shape"},
    [BR_CDTYPE] = {"ANTI-008", DOC, AQW_ANY, AQS_COMBINED, AQK_INT8,
                   "the scale and offset of another dtype"},
    [BR_SPAIR] = {"ANTI-009", DOC, AQW_SEPARATE, AQS_SEPARATE, AQK_ANY,
                  "one of the key/value scales or offsets missing"},
    [BR_SSHAPES] = {"ANTI-010", DOC, AQW_SEPARATE, AQS_SEPARATE, AQK_ANY,
                    "the value's scale of another shape form or S' + 1"},
    [BR_SOFF] = {"ANTI-011", DOC, AQW_SEPARATE, AQS_SEPARATE, AQK_ANY,
                 "an offset off its scale in shape or dtype, or alone"},
    [BR_SSHAPE] = {"ANTI-012", DOC, AQW_SEPARATE, AQS_SEPARATE, AQK_ANY,
                   "a scale (and offset) one off in shape"},
    [BR_SDTYPE] = {"ANTI-013", DOC, AQW_SEPARATE, AQS_SEPARATE, AQK_ANY,
                   "a scale's (or both's) dtype changed"},
    [BR_QS17] = {"ANTI-014", DOC, AQW_PREFILL17, AQS_SEPARATE, AQK_INT8,
                 "the separate set as valid, Q_S > 16"},
    [BR_SEP_QS_DT] = {"ANTI-015", DOC, AQW_PREFILL16, AQS_SEPARATE, AQK_INT8,
                      "an fp16 query, int4 key/value or an fp16 output"},
    [BR_COMB_QS_DT] = {"ANTI-016", DOC, AQW_PREFILL, AQS_COMBINED, AQK_INT8,
                       "a bf16 query or int4 key/value"},
    [BR_INT4_COMB] = {"ANTI-017", DOC, AQW_INT4, AQS_COMBINED, AQK_INT4,
                      "int4 key/value with the combined set"},
    [BR_INT4_MODE] = {"ANTI-018", DOC, AQW_INT4, AQS_SEPARATE, AQK_INT4,
                      "int4 key/value with modes 2, 4, 5 or per-tensor"},
    [BR_INT4_D] = {"ANTI-019", DOC, AQW_INT4_BAD_D, AQS_SEPARATE, AQK_INT4,
                   "int4 key/value where D is not a multiple of 64"},
    [BR_D32] = {"ANTI-020", DOC, AQW_NOT_D32, AQS_EITHER, AQK_INT8,
                "any scene where D is not a multiple of 32"},
    [BR_PAGE_MODE] = {"ANTI-021", DOC, AQW_UNPAGED, AQS_SEPARATE, AQK_INT8,
                      "modes 4 / 5 on a call without a block table"},
    [BR_01_DT] = {"ANTI-022", DOC, AQW_DECODE, AQS_SEPARATE, AQK_INT8,
                  "key 0 + value 1, a bf16 query or output"},
    [BR_SPRIME] = {"ANTI-023", DOC, AQW_SEPARATE, AQS_EITHER, AQK_ANY,
                   "every per-token scale's S' one short"},
    [BR_INT4_OUT] = {"ANTI-024", DOC, AQW_INT4, AQS_SEPARATE, AQK_INT4,
                     "int4 key/value with an int8 output and quant_scale2"},
    /* the doc's ANTI-025 (key and value dtypes) has no row of its own */
    [BR_KV_DT] = {"TENS-040", DOC, AQW_ANY, AQS_EITHER, AQK_ANY,
                  "value int4, int32, fp16 or bf16 beside the key"},
    [BR_NO_SCALE] = {"ANTI-026", DOC, AQW_ANY, AQS_EITHER, AQK_INT8,
                     "no scale or offset at all"},
    [BR_ALL_INT8] = {"ANTI-027", DOC, AQW_DECODE, AQS_EITHER, AQK_INT8,
                     "the query int8 too"},
    [BR_GQA] = {"ANTI-028", FIA_PROFILE_CANN, AQW_GQA, AQS_EITHER, AQK_INT8,
                "65 query heads per key/value head"},
};
#undef DOC

typedef struct aq_scene {
    int sep, qs1, paged, list;
    fz_aq_form kf, vf;          /* the key's and value's forms */
    int64_t amode, kmode, vmode;
    int agiven, kgiven, vgiven;
    int var, offs;
    fia_dtype qdt, kd, vd, out; /* out: attention_out's float dtype */
    int64_t B, N, D, S, blocknum, bs;
    fz_aq_tensor t[FZ_AQ_NT];
} aq_scene;

static int present1(const fia_case *c, fia_slot s)
{
    const fia_tensor_spec *sp = &c->tensors[s];
    return sp->presence == FIA_PRESENT && sp->count == 1 && sp->t != NULL;
}

/* 1 when break b fits the call (aq_breaks[b].where). */
static int break_fits(const fz_gen *g, const aq_scene *s, int b)
{
    const int q1 = s->qs1, d32 = g->D % 32 == 0, d64 = g->D % 64 == 0;
    switch (aq_breaks[b].where) {
    case AQW_DECODE: return q1;
    case AQW_PREFILL: return !q1 && d32;
    case AQW_PREFILL16: return !q1 && g->Q_S <= 16 && d32;
    case AQW_PREFILL17: return !q1 && g->Q_S > 16 && d32;
    case AQW_NOT_D32: return !q1 && !d32;
    case AQW_SEPARATE: return q1 || (g->Q_S <= 16 && d32);
    case AQW_INT4: return q1 && d64 && !s->paged;
    case AQW_INT4_BAD_D: return q1 && !d64 && !s->paged;
    case AQW_UNPAGED: return q1 && !s->paged;
    case AQW_GQA: return (q1 || d32) && present1(g->c, FIA_SLOT_QUERY);
    case AQW_ANY: break;
    }
    return q1 || d32;
}

const char *fz_aq_break_rule(int brk, fia_profile *profile)
{
    if (brk < 0 || brk >= BR_COUNT)
        return NULL;
    if (profile)
        *profile = aq_breaks[brk].profile;
    return aq_breaks[brk].rule;
}

/* The call's key S a per-token scale covers: a page table's reach or a
 * list's longest tensor, else the key's; the cache's blocks. */
static void call_kv(const fz_gen *g, aq_scene *s)
{
    s->S = fz_aq_token_s(g->c, g->KV_S);
    s->blocknum = 1, s->bs = g->c->attrs.block_size;
    const fia_tensor_spec *k = &g->c->tensors[FIA_SLOT_KEY];
    if (s->paged && k->presence == FIA_PRESENT && k->t[0].ndim >= 1)
        s->blocknum = k->t[0].shape[0];
    if (s->bs <= 0)
        s->bs = 128; /* a page form's shape without a table (a break) */
}

/* The call made paged (modes 4 / 5): a cache of block_size bs holding
 * each batch's keys (lengths given), (blocknum, bs, H) or in BNSD
 * (blocknum, KV_N, bs, D), a block table of int32 [B, blocks].  0 when the
 * call has no such form. */
static int page_call(fz_gen *g, aq_scene *s, int pick)
{
    fia_case *c = g->c;
    if (s->list || s->paged || g->B < 1 || g->B > 256 || g->KV_S < 1 ||
        g->KV_S > 65536 || g->KV_N < 1 || g->D < 1 ||
        fia_layout_is_tnd(c->attrs.input_layout) || !present1(c, FIA_SLOT_KEY))
        return 0;
    const int64_t bs = (int64_t[]){32, 64, 128}[pick % 3];
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    if (a->presence != FIA_PRESENT || a->count < 1) {
        int64_t len = g->KV_S;
        fz_note(g, fz_case_array(c, FIA_ARR_ACTUAL_SEQ_LENGTHS_KV, 1, &len));
    }
    int64_t cols = 1, sum = 0;
    for (int64_t b = 0; b < g->B; b++) {
        int64_t len = a->count == 1 ? a->values[0]
                      : b < a->count ? a->values[b] : g->KV_S;
        len = len < 0 ? 0 : len;
        const int64_t nb = (len + bs - 1) / bs;
        cols = nb > cols ? nb : cols;
        sum += nb;
    }
    int64_t sh[4];
    int nd = 3;
    sh[0] = sum > 0 ? sum : 1;
    if ((g->L == FZ_BNSD || g->L == FZ_BNSD_BSND) && (pick & 4))
        nd = 4, sh[1] = g->KV_N, sh[2] = bs, sh[3] = g->D;
    else
        sh[1] = bs, sh[2] = g->KV_N * g->D;
    fz_note(g, fz_case_tensor(c, FIA_SLOT_KEY, s->kd, nd, sh));
    fz_note(g, fz_case_tensor(c, FIA_SLOT_VALUE, s->kd, nd, sh));
    int64_t tsh[2] = {g->B, cols};
    fz_note(g, fz_case_tensor(c, FIA_SLOT_BLOCK_TABLE, FIA_DT_INT32, 2, tsh));
    fz_case_attr(c, FIA_ATTR_BLOCK_SIZE, bs);
    s->paged = 1;
    s->S = cols * bs, s->blocknum = sh[0], s->bs = bs;
    return 1;
}

/* A valid separate scene's modes at Q_S = 1 (mp the bytes' pick). */
static void pick_sep_modes(fz_gen *g, aq_scene *s, int mp, int force)
{
    /* modes 0..5 (0 per-channel), 6 key 0 + value 1, 7 0 per-tensor */
    static const int int8_modes[] = {7, 0, 1, 2, 3, 4, 5, 6, 0, 1, 3, 6};
    static const int int4_modes[] = {0, 1, 3, 6};
    int m = force >= 0 ? force
            : fz_aq_int4(s->kd) ? int4_modes[mp % 4]
                                : int8_modes[mp % FZ_ARRLEN(int8_modes)];
    if ((m == 4 || m == 5) && force < 0 && !s->paged &&
        !page_call(g, s, mp >> 2))
        m = m == 4 ? 1 : 3;
    if (m == 6) { /* key 0 + value 1 */
        s->kmode = 0, s->vmode = 1;
        s->kf = FZ_AQ_CHANNEL, s->vf = FZ_AQ_TOKEN;
        if (s->kd == FIA_DT_INT8)
            s->qdt = FIA_DT_FP16;
        return;
    }
    s->kmode = s->vmode = m == 7 ? 0 : m;
    s->kf = s->vf = (fz_aq_form)fz_aq_form_of_mode(s->kmode, m == 7);
}

/* The tensor of scale slot i: shape of form f, dtype of the form. */
static void set_scale(aq_scene *s, int i, fz_aq_form f, int lead)
{
    fz_aq_tensor *t = &s->t[i];
    t->on = 1;
    t->dt = fz_aq_scale_dtype(f, s->qdt);
    t->nd = fz_aq_shape(f, lead, s->var, s->B, s->N, s->D, s->S, s->blocknum,
                        s->bs, t->sh);
    s->t[i + 1] = *t;
    s->t[i + 1].on = s->offs;
}

/* The scene's tensors (valid for its choices). */
static void scene_tensors(aq_scene *s, int extra)
{
    memset(s->t, 0, sizeof s->t);
    s->S += extra;
    if (!s->sep) {
        set_scale(s, FZ_AQ_COMB_SCALE, s->kf, 2);
        return;
    }
    const int lead = s->qs1 ? 1 : 0;
    set_scale(s, FZ_AQ_KEY_SCALE, s->kf, lead);
    set_scale(s, FZ_AQ_VAL_SCALE, s->vf, lead);
}

/* The valid scene for the bytes' choices and the break's needs. */
static void choose_scene(fz_gen *g, aq_scene *s, int brk, int kdp, int mp)
{
    const int q1 = s->qs1;
    s->B = g->B, s->N = g->KV_N, s->D = g->D;
    s->kd = FIA_DT_INT8;
    s->qdt = g->qdt == FIA_DT_BF16 ? FIA_DT_BF16 : FIA_DT_FP16;
    int force = -1;
    const aq_set set = brk < 0 ? AQS_EITHER : aq_breaks[brk].set;
    if (set != AQS_EITHER) /* the set the break needs */
        s->sep = set == AQS_SEPARATE;
    const aq_kd kd = brk < 0 ? AQK_ANY : aq_breaks[brk].kd;
    if (kd == AQK_INT4 || (kd == AQK_ANY && q1 && s->sep && g->D % 64 == 0 &&
                           !s->paged && kdp >= 2))
        s->kd = kdp & 1 ? FIA_DT_INT32 : FIA_DT_INT4;
    if (brk == BR_INT4_D && s->kd == FIA_DT_INT32 && g->D % 8 != 0)
        s->kd = FIA_DT_INT4; /* no whole int32 */
    if (brk == BR_01_DT)
        force = 6;
    else if (brk == BR_PAGE_MODE)
        force = 4 + (mp & 1);
    else if (brk == BR_INT4_MODE)
        force = (int[]){7, 2, 7, 2, 4, 5}[mp % 6];
    else if (brk == BR_SPRIME && q1)
        force = (int[]){1, 3, 6}[mp % 3];
    else if (brk == BR_SSHAPES && q1) /* not key 0 + value 1 */
        force = (int[]){0, 1, 3}[mp % 3];
    if (!q1) {
        /* combined: fp16 query; separate: bf16 query, modes 0 / 1 equal */
        if (g->Q_S > 16 && brk != BR_QS17)
            s->sep = 0;
        s->qdt = s->sep ? FIA_DT_BF16 : FIA_DT_FP16;
        s->kmode = s->vmode = brk == BR_SPRIME || (mp & 1);
        s->kf = s->vf = s->sep && s->kmode ? FZ_AQ_TOKEN
                        : !s->sep && (mp & 2)   ? FZ_AQ_TENSOR
                                                : FZ_AQ_CHANNEL;
        s->amode = (mp >> 2) & 1;
        s->agiven = (mp & 8) != 0;
        s->kgiven = s->vgiven = s->sep && (s->kmode != 0 || (mp & 16));
        if (s->sep && s->kf == FZ_AQ_CHANNEL && s->var % 6 < 3 && (mp & 32))
            s->var += 3; /* 003's forms with the leading 1 */
        return;
    }
    if (!s->sep) { /* 0 per-tensor / per-channel, 1 per-token */
        const int m = brk == BR_SPRIME ? 1 : mp % 3;
        s->amode = m == 2;
        s->kf = s->vf = m == 0 ? FZ_AQ_TENSOR
                        : m == 1 && brk != BR_SPRIME ? FZ_AQ_CHANNEL
                                                     : FZ_AQ_TOKEN;
        if (brk == BR_SPRIME)
            s->amode = 1;
        s->agiven = s->amode || (mp & 8);
        return;
    }
    pick_sep_modes(g, s, mp, force);
    s->kgiven = s->kmode != 0 || (mp & 16);
    s->vgiven = s->vmode != 0 || (mp & 32);
}

/* Another dtype than dt for a scale of form f: the other half precision,
 * fp32 for a qdt form; a half precision for fp32. */
static fia_dtype other_scale_dtype(fia_dtype dt, int pick)
{
    if (dt == FIA_DT_FP32)
        return pick & 1 ? FIA_DT_BF16 : FIA_DT_FP16;
    if (pick & 1)
        return FIA_DT_FP32;
    return dt == FIA_DT_FP16 ? FIA_DT_BF16 : FIA_DT_FP16;
}

/* A tensor's shape off: a dim + 1 (or - 1 when above 1), or its rank; a
 * per-token S' (fp32, not a page form's block) is not moved (a longer one
 * is valid, a shorter one ANTI-023's). */
static void shape_off(fz_aq_tensor *t, int pick)
{
    if (pick % 5 == 4 && t->nd < 4) {
        t->sh[t->nd++] = 1 + (pick & 1);
        return;
    }
    int at = pick % t->nd;
    if (t->dt == FIA_DT_FP32 && at == t->nd - 1)
        at = 0;
    int64_t *d = &t->sh[at];
    *d += (pick & 8) && *d > 1 ? -1 : 1;
}

/* Breaks the scene's rule brk (details from aux). */
static void break_scene(aq_scene *s, int brk, int aux)
{
    fz_aq_tensor *t = s->t;
    switch (brk) {
    case BR_CMODE:
        s->amode = (int64_t[]){2, -1, 5, 3, 255}[aux % 5], s->agiven = 1;
        break;
    case BR_SMODE:
    case BR_QS_MODE: {
        const int64_t m = brk == BR_SMODE ? (int64_t[]){6, -1, 7, 100}[aux % 4]
                                          : 2 + aux % 4;
        s->kmode = s->vmode = m, s->kgiven = s->vgiven = 1;
        /* at Q_S > 1 now and then the scales of the mode's own form: with
         * the scene's per-channel / per-token ones an implementation that
         * skipped the mode check would still reject the call by their
         * shape, with the same status */
        if (brk == BR_QS_MODE && (aux & 4)) {
            s->kf = s->vf = (fz_aq_form)fz_aq_form_of_mode(m, 0);
            scene_tensors(s, 0);
        }
        break;
    }
    case BR_MODE_PAIR: /* value 0 + key 1, or 1 / 3, or at Q_S > 1 0 / 1 */
        if (s->qs1 && (aux & 1)) {
            s->kf = FZ_AQ_TOKEN, s->vf = FZ_AQ_CHANNEL;
            s->kmode = 1, s->vmode = 0;
        } else {
            s->kf = FZ_AQ_TOKEN;
            s->vf = s->qs1 ? FZ_AQ_TOKEN_HEAD : FZ_AQ_CHANNEL;
            s->kmode = 1, s->vmode = s->qs1 ? 3 : 0;
        }
        s->kgiven = s->vgiven = 1;
        scene_tensors(s, 0);
        break;
    case BR_COFF_ALONE: t[FZ_AQ_COMB_SCALE].on = 0, t[FZ_AQ_COMB_OFF].on = 1; break;
    case BR_COFF_MATCH:
        t[FZ_AQ_COMB_OFF].on = 1;
        if (aux & 1)
            shape_off(&t[FZ_AQ_COMB_OFF], aux >> 1);
        else
            t[FZ_AQ_COMB_OFF].dt = other_scale_dtype(t[FZ_AQ_COMB_OFF].dt, aux >> 1);
        break;
    case BR_CSHAPE:
        shape_off(&t[FZ_AQ_COMB_SCALE], aux);
        t[FZ_AQ_COMB_OFF].nd = t[FZ_AQ_COMB_SCALE].nd;
        memcpy(t[FZ_AQ_COMB_OFF].sh, t[FZ_AQ_COMB_SCALE].sh, sizeof t->sh);
        break;
    case BR_CDTYPE:
        t[FZ_AQ_COMB_SCALE].dt = t[FZ_AQ_COMB_OFF].dt =
            s->qs1 ? other_scale_dtype(t[FZ_AQ_COMB_SCALE].dt, aux)
                   : (aux & 1 ? FIA_DT_BF16 : FIA_DT_FP32);
        break;
    case BR_SPAIR: /* one of a pair missing */
        t[(int[]){FZ_AQ_KEY_SCALE, FZ_AQ_VAL_SCALE, FZ_AQ_KEY_OFF,
                  FZ_AQ_VAL_OFF}[aux % 4]].on = 0;
        if (aux % 4 >= 2)
            t[FZ_AQ_KEY_OFF + (aux % 4 == 2) * 2].on = 1;
        break;
    case BR_SSHAPES: /* both of their mode, not the same */
        if (s->vf == FZ_AQ_CHANNEL) {
            s->var = (s->var % 3 + 1) % 3 + (s->qs1 ? 0 : s->var / 3 * 3);
            s->t[FZ_AQ_VAL_SCALE].nd =
                fz_aq_shape(s->vf, s->qs1, s->var, s->B, s->N, s->D, s->S,
                            s->blocknum, s->bs, s->t[FZ_AQ_VAL_SCALE].sh);
        } else {
            t[FZ_AQ_VAL_SCALE].sh[t[FZ_AQ_VAL_SCALE].nd - 1] += 1; /* S' */
        }
        t[FZ_AQ_VAL_OFF].nd = t[FZ_AQ_VAL_SCALE].nd;
        memcpy(t[FZ_AQ_VAL_OFF].sh, t[FZ_AQ_VAL_SCALE].sh, sizeof t->sh);
        break;
    case BR_SOFF: {
        fz_aq_tensor *o = &t[aux & 2 ? FZ_AQ_VAL_OFF : FZ_AQ_KEY_OFF];
        switch (aux % 3) {
        case 0: /* offsets without the scales */
            t[FZ_AQ_KEY_SCALE].on = t[FZ_AQ_VAL_SCALE].on = 0;
            t[FZ_AQ_KEY_OFF].on = t[FZ_AQ_VAL_OFF].on = 1;
            break;
        case 1: o->dt = other_scale_dtype(o->dt, aux >> 2), o->on = 1; break;
        default: shape_off(o, aux >> 2), o->on = 1; break;
        }
        if (aux % 3)
            t[aux & 2 ? FZ_AQ_KEY_OFF : FZ_AQ_VAL_OFF].on = 1;
        break;
    }
    case BR_SSHAPE: {
        const int k = aux & 1 ? FZ_AQ_VAL_SCALE : FZ_AQ_KEY_SCALE;
        shape_off(&t[k], aux >> 1);
        t[k + 1].nd = t[k].nd;
        memcpy(t[k + 1].sh, t[k].sh, sizeof t->sh);
        if (!s->qs1 || s->kf == s->vf) { /* the pair's shapes alike */
            t[FZ_AQ_KEY_SCALE + FZ_AQ_VAL_SCALE - k] = t[k];
            t[FZ_AQ_KEY_OFF + FZ_AQ_VAL_OFF - k - 1] = t[k + 1];
            t[FZ_AQ_KEY_OFF + FZ_AQ_VAL_OFF - k - 1].on = s->offs;
        }
        break;
    }
    case BR_SDTYPE:
        for (int i = FZ_AQ_KEY_SCALE; i < FZ_AQ_NT; i++)
            if ((i < FZ_AQ_VAL_SCALE) == !(aux & 1) || s->kf == s->vf)
                t[i].dt = s->qs1 ? other_scale_dtype(t[i].dt, aux >> 1)
                        : t[i].dt == FIA_DT_FP32 ? FIA_DT_BF16 : FIA_DT_FP16;
        break;
    case BR_SEP_QS_DT:
        if (aux % 3 == 0)
            s->qdt = FIA_DT_FP16;
        else if (aux % 3 == 1)
            s->kd = s->vd = FIA_DT_INT4;
        else
            s->out = FIA_DT_FP16;
        break;
    case BR_COMB_QS_DT:
        if (aux & 1)
            s->qdt = FIA_DT_BF16;
        else
            s->kd = s->vd = FIA_DT_INT4;
        break;
    case BR_01_DT:
        if (aux & 1)
            s->qdt = FIA_DT_BF16;
        else
            s->out = FIA_DT_BF16;
        break;
    case BR_SPRIME: /* S' one short of what the keys need */
        for (int i = 0; i < FZ_AQ_NT; i++)
            if (t[i].dt == FIA_DT_FP32 && t[i].nd >= 2)
                t[i].sh[t[i].nd - 1] -= 1;
        break;
    case BR_KV_DT:
        s->vd = (fia_dtype[]){FIA_DT_INT4, FIA_DT_INT32, FIA_DT_FP16,
                              FIA_DT_BF16}[aux % 4];
        if (fz_aq_int4(s->vd) && fz_aq_int4(s->kd))
            s->vd = FIA_DT_INT8;
        break;
    case BR_NO_SCALE: memset(t, 0, sizeof s->t); break;
    default: break; /* the others: by their choices (choose_scene) */
    }
}

/* The number of heads past 64 per KV head (ANTI-028, the cann profile):
 * the query's heads grown to KV_N * 65, its pse and output let go. */
static void many_heads(fz_gen *g)
{
    int64_t sh[FIA_MAX_RANK];
    const int64_t N = g->KV_N * 65;
    const int nd = fz_shape(g->L, g->B, N, g->Q_S, g->D, sh);
    fz_note(g, fz_case_tensor(g->c, FIA_SLOT_QUERY, g->qdt, nd, sh));
    fz_case_attr(g->c, FIA_ATTR_NUM_HEADS, N);
    fz_case_attr(g->c, FIA_ATTR_NUM_KEY_VALUE_HEADS, g->KV_N);
    fz_case_absent(g->c, FIA_SLOT_PSE_SHIFT);
    fz_case_absent(g->c, FIA_SLOT_ATTENTION_OUT);
}

static void set_mode(fia_case *c, fia_attr a, int given, int64_t v)
{
    if (given) {
        fz_case_attr(c, a, v);
        return;
    }
    fz_case_attr(c, a, 0);
    c->attr_given[a] = false;
}

/* Writes the scene into the call. */
static void write_scene(fz_gen *g, const aq_scene *s)
{
    fia_case *c = g->c;
    const fia_dtype old = g->qdt;
    fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    if (present1(c, FIA_SLOT_QUERY))
        q->t[0].dtype = s->qdt;
    /* the inputs that follow the query's dtype follow it */
    for (int k = 0; k < 2; k++) {
        const fia_slot sl = k ? FIA_SLOT_ATTENTION_OUT : FIA_SLOT_PSE_SHIFT;
        if (present1(c, sl) && c->tensors[sl].t[0].dtype == old)
            c->tensors[sl].t[0].dtype = s->qdt;
    }
    if (s->out != FIA_DT_INVALID) {
        int64_t osh[FIA_MAX_RANK];
        int ond = fz_shape(fz_out_layout(g->L), g->B, g->N, g->Q_S, g->D, osh);
        fz_note(g, fz_case_tensor(c, FIA_SLOT_ATTENTION_OUT, s->out, ond, osh));
    }
    g->qdt = s->qdt;
    fz_aq_set_kv_dtype(c, FIA_SLOT_KEY, s->kd);
    fz_aq_set_kv_dtype(c, FIA_SLOT_VALUE, s->vd);
    fz_aq_set_kv_dtype(c, FIA_SLOT_KEY_SHARED_PREFIX, s->kd);
    fz_aq_set_kv_dtype(c, FIA_SLOT_VALUE_SHARED_PREFIX, s->vd);
    for (int i = 0; i < FZ_AQ_NT; i++) {
        if (s->t[i].on)
            fz_note(g, fz_case_tensor(c, fz_aq_slot[i], s->t[i].dt, s->t[i].nd,
                                 s->t[i].sh));
        else
            fz_case_absent(c, fz_aq_slot[i]);
    }
    set_mode(c, FIA_ATTR_ANTIQUANT_MODE, s->agiven, s->amode);
    set_mode(c, FIA_ATTR_KEY_ANTIQUANT_MODE, s->kgiven, s->kmode);
    set_mode(c, FIA_ATTR_VALUE_ANTIQUANT_MODE, s->vgiven, s->vmode);
}

int fz_aq_params_break = -1; /* the last scene's break (tests) */

void fz_params_antiquant_scene(fz_gen *g)
{
    fz_bytes *f = g->f;
    if (!fz_bytes_rare(f, 14))
        return;
    const int want = fz_odd(g, 45) ? fz_bytes_pick(f, BR_COUNT) : -1;
    aq_scene s;
    memset(&s, 0, sizeof s);
    s.sep = fz_bytes_bool(f);
    const int kdp = fz_bytes_pick(f, 4), mp = fz_bytes_u8(f), aux = fz_bytes_u8(f);
    s.var = fz_bytes_pick(f, 6);
    s.offs = fz_bytes_bool(f);
    const int extra = fz_bytes_rare(f, 25) ? (int)fz_bytes_range(f, 1, 5) : 0;
    const int combined_too = fz_bytes_rare(f, 15);
    const fia_tensor_spec *k = &g->c->tensors[FIA_SLOT_KEY];
    s.paged = g->c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT;
    s.list = k->presence == FIA_PRESENT && k->count > 1;
    /* the path is the query's S (an edge of Q_S is 1 off the decode
     * path's choice too) */
    s.qs1 = g->Q_S == 1;
    /* the break: one of those that fit, each as likely */
    int fits[BR_COUNT], nf = 0, brk = -1;
    for (int i = 0; i < BR_COUNT; i++)
        if (break_fits(g, &s, i))
            fits[nf++] = i;
    if (want >= 0 && nf > 0)
        brk = fits[want % nf];
    if (brk < 0 && !s.qs1 && g->D % 32 != 0)
        return; /* no valid scene on this path */
    fz_aq_params_break = brk;
    call_kv(g, &s);
    choose_scene(g, &s, brk, kdp, mp);
    s.vd = s.kd;
    s.out = FIA_DT_INVALID;
    scene_tensors(&s, brk == BR_SPRIME ? 0 : extra);
    /* the combined set given beside the separate one: ignored (ANTI-N01) */
    if (s.sep && combined_too && brk < 0) {
        int64_t two = 2;
        s.t[FZ_AQ_COMB_SCALE] = (fz_aq_tensor){1, s.qdt, 1, {two}};
        s.agiven = 1, s.amode = mp % 7;
    }
    break_scene(&s, brk, aux);
    write_scene(g, &s);
    if (brk == BR_INT4_OUT) { /* post-quantized output (per-tensor) */
        int64_t osh[FIA_MAX_RANK], one = 1;
        int ond = fz_shape(fz_out_layout(g->L), g->B, g->N, g->Q_S, g->D, osh);
        fz_note(g, fz_case_tensor(g->c, FIA_SLOT_ATTENTION_OUT, FIA_DT_INT8, ond,
                             osh));
        fz_note(g, fz_case_tensor(g->c, FIA_SLOT_QUANT_SCALE2, FIA_DT_FP32, 1, &one));
    } else if (fz_aq_int4(s.kd)) {
        /* int4 takes no output quantization (ANTI-024): a quant_scale2
         * another fragment chose would make the scene invalid */
        fz_case_absent(g->c, FIA_SLOT_QUANT_SCALE2);
        fz_case_absent(g->c, FIA_SLOT_QUANT_OFFSET2);
        if (present1(g->c, FIA_SLOT_ATTENTION_OUT) &&
            g->c->tensors[FIA_SLOT_ATTENTION_OUT].t[0].dtype == FIA_DT_INT8)
            g->c->tensors[FIA_SLOT_ATTENTION_OUT].t[0].dtype = s.qdt;
    } else if (brk == BR_ALL_INT8 && present1(g->c, FIA_SLOT_QUERY)) {
        g->c->tensors[FIA_SLOT_QUERY].t[0].dtype = FIA_DT_INT8;
    } else if (brk == BR_GQA) {
        many_heads(g);
    }
}
