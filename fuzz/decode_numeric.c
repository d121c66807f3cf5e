/* fuzz_numeric's and fuzz_metamorphic's decoder: bytes -> a small case the
 * rules accept, with data from distributions that break kernels.  Data that
 * a distribution shapes (a dominant key, sentinels, NaN in masked keys,
 * subnormals, ties) is written as explicit .values, so the printed case
 * reproduces it exactly; plain noise uses generators and the seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/fdp.h"
#include "fuzz/fuzz_internal.h"

#define ARRLEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef enum vkind {
    VK_NORMAL, VK_LARGE, VK_DOMINANT, VK_SENTINEL, VK_SUBNORMAL, VK_SMALLINT,
    VK_TIES, VK_COUNT
} vkind;

static double dtype_max(fia_dtype dt)
{
    return dt == FIA_DT_FP16 ? 65504.0 : 3.3895313892515355e38;
}

static double *alloc_values(int64_t n)
{
    return calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

/* The next representable value above x in dt (x representable). */
static double next_up(fia_dtype dt, double x)
{
    uint16_t h = dt == FIA_DT_FP16 ? fia_double_to_fp16(x) : fia_double_to_bf16(x);
    if (x >= 0)
        h++;
    else
        h--;
    return dt == FIA_DT_FP16 ? fia_fp16_to_double(h) : fia_bf16_to_double(h);
}

typedef struct shape4 { fz_layout l; int64_t B, N, S, D; } shape4;

static int64_t numel4(const shape4 *s) { return s->B * s->N * s->S * s->D; }
static int64_t at4(const shape4 *s, int64_t b, int64_t n, int64_t i, int64_t d)
{
    return fz_index(s->l, s->B, s->N, s->S, s->D, b, n, i, d);
}

/* Values for one of query (role 0), key (1), value (2). */
static double *make_values(fuzz_rng *r, vkind k, int role, fia_dtype dt,
                           const shape4 *s, double *scale)
{
    int64_t n = numel4(s);
    double *v = alloc_values(n);
    if (v == NULL)
        return NULL;
    double mx = dtype_max(dt);
    for (int64_t b = 0; b < s->B; b++)
    for (int64_t h = 0; h < s->N; h++) {
        int64_t star = s->S > 0 ? (int64_t)(fuzz_rng_next(r) % (uint64_t)s->S) : 0;
        double sent = (fuzz_rng_next(r) & 1) ? -mx / (double)s->D : -mx / 4.0 / (double)s->D;
        for (int64_t i = 0; i < s->S; i++)
        for (int64_t d = 0; d < s->D; d++) {
            double u = fuzz_rng_unit(r) * 2 - 1, x;
            switch (k) {
            case VK_LARGE: x = u * 16; break;
            case VK_DOMINANT:
                x = role == 0 ? 0.5 + fabs(u) : role == 1 && i == star ? 8 + u
                  : u * 0.25;
                break;
            case VK_SENTINEL:
                /* q = 1, k rows near -max/D: scores near -max*scale */
                x = role == 0 ? 1.0 : role == 1 ? sent * (1 - 0.01 * fabs(u)) : u;
                break;
            case VK_SUBNORMAL:
                x = u * (dt == FIA_DT_FP16 ? 6e-5 : 1e-38) * (role == 2 ? 1 : 1e3);
                break;
            case VK_SMALLINT: x = (double)((int64_t)(fuzz_rng_next(r) % 7) - 3); break;
            case VK_TIES: {
                /* q = 0: equal scores, out = mean of v; v alternates between
                 * two neighbours, so means fall on rounding ties. */
                double base = (double)((int64_t)(fuzz_rng_next(r) % 64) + 1) /
                              (d % 2 ? 8 : 1);
                x = role == 0 ? 0.0 : (i % 2) ? next_up(dt, base) : base;
                break;
            }
            default: x = u; break;
            }
            v[at4(s, b, h, i, d)] = x;
        }
    }
    if (k == VK_SENTINEL && role == 1) {
        /* scores at -65504 / -1e12 / -3e38 (within float32) */
        static const double targets[] = {65504.0, 1e12, 3e38};
        double t = targets[fuzz_rng_next(r) % 3];
        *scale = t / mx;
        if (*scale < 1)
            *scale = 1;
    }
    return v;
}

/* Shared by numeric and metamorphic: a valid small case.  meta: keep
 * row-invalid correction on in prefill (fully masked rows defined), and
 * sequence-length arrays of length 1 now and then. */
static void small_case(fdp *f, fia_case *c, int meta)
{
    fia_case_init(c);
    snprintf(c->name, sizeof c->name, meta ? "fuzz_metamorphic" : "fuzz_numeric");
    c->seed = fdp_u8(f);
    int qs1 = fdp_chance(f, 30);
    fz_layout L = (fz_layout)fdp_pick(f, qs1 ? 3 : 4);
    fb_layout(c, fz_layout_name(L));
    fia_dtype dt = fdp_bool(f) ? FIA_DT_BF16 : FIA_DT_FP16;
    int64_t B = fdp_range(f, 1, 3), KV_N = fdp_range(f, 1, 2);
    int64_t N = KV_N * fdp_range(f, 1, 3);
    int64_t D = fdp_chance(f, 75) ? 16 : 32;
    if (qs1 && fdp_chance(f, 30))
        D = fdp_range(f, 1, 40);
    int64_t Q_S = qs1 ? 1 : fdp_range(f, 2, 12);
    int64_t KV_S = fdp_chance(f, 3) ? 0 : fdp_range(f, 1, 20);
    int64_t sh[FIA_MAX_RANK];
    fz_shape(L, B, N, Q_S, D, sh);
    fb_tensor(c, FIA_SLOT_QUERY, dt, L == FZ_BSH ? 3 : 4, sh);
    fz_shape(L, B, KV_N, KV_S, D, sh);
    fb_tensor(c, FIA_SLOT_KEY, dt, L == FZ_BSH ? 3 : 4, sh);
    fb_tensor(c, FIA_SLOT_VALUE, dt, L == FZ_BSH ? 3 : 4, sh);
    fb_attr(c, FIA_ATTR_NUM_HEADS, N);
    if (KV_N != N || fdp_bool(f))
        fb_attr(c, FIA_ATTR_NUM_KEY_VALUE_HEADS, KV_N);
    fb_scale(c, 1.0 / sqrt((double)D));

    int64_t sparse = 0;
    if (!qs1) {
        static const int sw[] = {40, 24, 10, 14, 12};
        sparse = fdp_weighted(f, sw, ARRLEN(sw));
        if (sparse == 1 && KV_S == 0)
            sparse = 0; /* an empty mask counts as absent (MASK-009) */
    }
    if (sparse)
        fb_attr(c, FIA_ATTR_SPARSE_MODE, sparse);
    int64_t ip = fdp_range(f, 0, qs1 ? 1 : 3);
    if (meta && !qs1)
        ip |= 2;
    fb_attr(c, FIA_ATTR_INNER_PRECISE, ip);
    if (fdp_bool(f))
        fb_lse_flag(c, 1);

    /* sequence lengths */
    int64_t ql[3], kl[3];
    for (int a = 0; a < 2; a++) {
        int64_t S = a ? KV_S : Q_S, *len = a ? kl : ql;
        int present = !(a == 0 && qs1) && fdp_chance(f, 35);
        int one = fdp_chance(f, meta ? 50 : 30);
        for (int64_t b = 0; b < B; b++)
            len[b] = present ? (fdp_chance(f, 30) ? S : fdp_range(f, 0, S)) : S;
        if (present && one)
            for (int64_t b = 1; b < B; b++)
                len[b] = len[0];
        if (present)
            fb_array(c, a ? FIA_ARR_ACTUAL_SEQ_LENGTHS_KV : FIA_ARR_ACTUAL_SEQ_LENGTHS,
                     one ? 1 : B, len);
    }

    /* mask */
    int64_t msh[4];
    int mnd = 0, mask_b = 0, mrows = Q_S, mcols = KV_S;
    if (sparse >= 2) {
        int k = fdp_pick(f, 3);
        msh[0] = msh[1] = 1;
        msh[k] = msh[k + 1] = 2048;
        mnd = k + 2;
        fb_tensor(c, FIA_SLOT_ATTEN_MASK, FIA_DT_BOOL, mnd, msh);
        if (sparse == 4) {
            fb_attr(c, FIA_ATTR_PRE_TOKENS, fdp_range(f, -3, 12));
            fb_attr(c, FIA_ATTR_NEXT_TOKENS, fdp_range(f, -3, 12));
        }
    } else if (sparse == 1 || fdp_chance(f, 45)) {
        if (fdp_chance(f, 20))
            mcols = (KV_S + 31) / 32 * 32;
        if (qs1) {
            mnd = 2 + fdp_pick(f, 3);
            msh[0] = B, msh[1] = msh[2] = 1, msh[mnd - 1] = mcols;
            mask_b = 1, mrows = 1;
        } else {
            if (fdp_chance(f, 20))
                mrows = (Q_S + 15) / 16 * 16;
            switch (fdp_pick(f, 5)) {
            case 0: mnd = 2, msh[0] = mrows, msh[1] = mcols; break;
            case 1: mnd = 3, msh[0] = B, msh[1] = mrows, msh[2] = mcols, mask_b = 1; break;
            case 2: mnd = 3, msh[0] = 1, msh[1] = mrows, msh[2] = mcols; break;
            case 3: mnd = 4, msh[0] = B, msh[1] = 1, msh[2] = mrows, msh[3] = mcols; mask_b = 1; break;
            default: mnd = 4, msh[0] = msh[1] = 1, msh[2] = mrows, msh[3] = mcols; break;
            }
            if (sparse == 0 && fdp_bool(f)) {
                fb_attr(c, FIA_ATTR_PRE_TOKENS, fdp_range(f, -2, 12));
                fb_attr(c, FIA_ATTR_NEXT_TOKENS, fdp_range(f, -2, 12));
            }
        }
        static const fia_dtype md[] = {FIA_DT_BOOL, FIA_DT_INT8, FIA_DT_UINT8};
        fb_tensor(c, FIA_SLOT_ATTEN_MASK, md[fdp_pick(f, 3)], mnd, msh);
    }
    /* mask content for modes 0/1 and decode; masked_col[b][j]: key j is
     * masked in every row of batch b */
    static uint8_t masked_col[3][64];
    memset(masked_col, 0, sizeof masked_col);
    fuzz_rng rng = {fdp_u64(f)};
    if (mnd > 0 && sparse < 2) {
        int pattern = fdp_pick(f, 4); /* random, rows off, cols off, none */
        if (pattern == 0 && fdp_bool(f)) {
            fb_gen(c, FIA_SLOT_ATTEN_MASK, FIA_GEN_RANDOM,
                   (double[]){0.1, 0.3, 0.7}[fdp_pick(f, 3)], 0);
        } else {
            int64_t nb = mask_b ? B : 1, n = nb * mrows * mcols;
            double *m = alloc_values(n);
            uint64_t rowbits = fuzz_rng_next(&rng), colbits = fuzz_rng_next(&rng);
            for (int64_t b = 0; b < nb && m; b++)
                for (int64_t i = 0; i < mrows; i++)
                    for (int64_t j = 0; j < mcols; j++) {
                        int x = pattern == 0 ? (fuzz_rng_next(&rng) % 4 == 0)
                              : pattern == 1 ? (int)((rowbits >> ((i + 7 * b) % 64)) & 1)
                              : pattern == 2 ? (int)((colbits >> ((j + 5 * b) % 64)) & 1)
                              : 0;
                        m[(b * mrows + i) * mcols + j] = x;
                    }
            if (pattern == 2)
                for (int64_t b = 0; b < B; b++)
                    for (int64_t j = 0; j < KV_S && j < 64; j++)
                        masked_col[b][j] = (colbits >> ((j + 5 * (mask_b ? b : 0)) % 64)) & 1;
            if (m)
                fb_values(c, FIA_SLOT_ATTEN_MASK, m, n);
        }
    }

    /* data */
    static const int kw[] = {30, 12, 12, 10, 10, 14, 8};
    vkind k = (vkind)fdp_weighted(f, kw, ARRLEN(kw));
    int nan_masked = fdp_chance(f, 25);
    double scale = c->attrs.scale;
    if (k == VK_LARGE)
        scale = (double[]){1.0, 0.25, 4.0}[fdp_pick(f, 3)];
    shape4 qs = {L, B, N, Q_S, D}, ks = {L, B, KV_N, KV_S, D};
    if (k == VK_NORMAL && !nan_masked) {
        double sd = (double[]){0.5, 1, 2, 4}[fdp_pick(f, 4)];
        fb_gen(c, FIA_SLOT_QUERY, FIA_GEN_NORMAL, 0, sd);
        fb_gen(c, FIA_SLOT_KEY, FIA_GEN_NORMAL, 0, sd);
        if (fdp_bool(f))
            fb_gen(c, FIA_SLOT_VALUE, FIA_GEN_UNIFORM, -sd, sd);
    } else {
        double *qv = make_values(&rng, k, 0, dt, &qs, &scale);
        double *kv = make_values(&rng, k, 1, dt, &ks, &scale);
        double *vv = make_values(&rng, k == VK_SENTINEL ? VK_NORMAL : k, 2, dt,
                                 &ks, &scale);
        if (nan_masked && qv && kv && vv) {
            static const double poison[] = {NAN, INFINITY, -INFINITY};
            fz_geom g;
            if (fz_geom_of(c, &g) == 0)
                for (int64_t b = 0; b < B; b++) {
                    int64_t kvl = fz_kv_len(c, &g, b), qln = fz_q_len(c, &g, b);
                    for (int64_t j = 0; j < KV_S; j++) {
                        if (j < kvl && !(j < 64 && masked_col[b][j]))
                            continue;
                        for (int64_t h = 0; h < KV_N; h++)
                            for (int64_t d = 0; d < D; d++) {
                                kv[at4(&ks, b, h, j, d)] = poison[(j + d) % 3];
                                vv[at4(&ks, b, h, j, d)] = poison[(j + d + 1) % 3];
                            }
                    }
                    for (int64_t i = qln; i < Q_S; i++)
                        for (int64_t h = 0; h < N; h++)
                            for (int64_t d = 0; d < D; d++)
                                qv[at4(&qs, b, h, i, d)] = NAN;
                }
        }
        if (qv) fb_values(c, FIA_SLOT_QUERY, qv, numel4(&qs));
        if (kv) fb_values(c, FIA_SLOT_KEY, kv, numel4(&ks));
        if (vv) fb_values(c, FIA_SLOT_VALUE, vv, numel4(&ks));
    }
    if (scale != c->attrs.scale)
        fb_scale(c, scale);
    if (fdp_chance(f, 5))
        fb_scale(c, (double[]){0.0, -0.5, 1e-3, 100.0}[fdp_pick(f, 4)]);
}

void fuzz_decode_numeric(const uint8_t *data, size_t size, fia_case *c)
{
    fdp f;
    fdp_init(&f, data, size);
    small_case(&f, c, 0);
}

void fuzz_decode_metamorphic(const uint8_t *data, size_t size, fia_case *c,
                             char *transform, size_t tlen)
{
    fdp f;
    fdp_init(&f, data, size);
    int pick = fdp_u8(&f), to = fdp_u8(&f);
    small_case(&f, c, 1);
    /* the transforms that apply to this case; pick one */
    fz_geom g;
    char opts[8][32];
    int n = 0;
    if (fz_geom_of(c, &g) != 0) {
        snprintf(transform, tlen, "none");
        return;
    }
    static const char *const lay[] = {"BSH", "BSND", "BNSD", "BNSD_BSND"};
    for (int k = 0; k < 4; k++) {
        int l = (to + k) % 4;
        if ((fz_layout)l != g.layout && !(l == FZ_BNSD_BSND && g.Q_S == 1)) {
            snprintf(opts[n++], sizeof opts[0], "layout=%s", lay[l]);
            break;
        }
    }
    if (g.KV_N != g.N)
        snprintf(opts[n++], sizeof opts[0], "mha");
    for (int a = 0; a < 2; a++)
        if (g.B > 1 && c->arrays[a].presence == FIA_PRESENT &&
            c->arrays[a].count == 1) {
            snprintf(opts[n++], sizeof opts[0], "seqlen-expand");
            break;
        }
    int64_t sm = c->attrs.sparse_mode;
    if (g.Q_S > 1 && c->tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_PRESENT &&
        (sm >= 2 || (sm == 0 && (c->attr_given & (1u << FIA_ATTR_PRE_TOKENS)))))
        snprintf(opts[n++], sizeof opts[0], "sparse-to-mask=%d", to & 1);
    snprintf(transform, tlen, "%s", opts[pick % n]);
}
