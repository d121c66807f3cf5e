/* fuzz_numeric's data of query, key and value: distributions that break
 * kernels.  Data a distribution shapes (a dominant key, sentinels, NaN in
 * masked keys, subnormals, ties) is written as explicit .values, so the
 * printed case reproduces it exactly; plain noise uses generators and the
 * seed.  Fragment contract: fuzz/gen.h. */
#include <math.h>
#include <stdlib.h>
#include "fuzz/gen.h"

typedef enum vkind {
    VK_NORMAL, VK_LARGE, VK_DOMINANT, VK_SENTINEL, VK_SUBNORMAL, VK_SMALLINT,
    VK_TIES, VK_NEGINF, VK_COUNT
} vkind;

static double dtype_max(fia_dtype dt)
{
    return dt == FIA_DT_FP16 ? 65504.0 : 3.3895313892515355e38;
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

/* Values for one of query (role 0), key (1), value (2); NULL out of
 * memory.  The sentinel key sets *scale so that the scores reach the
 * chosen sentinel. */
static double *make_values(fuzz_rng *r, vkind k, int role, fia_dtype dt,
                           const shape4 *s, double *scale)
{
    int64_t n = numel4(s);
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
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
            case VK_NEGINF: {
                /* q > 0 and keys with k[0] = -inf: score -inf, weight 0.
                 * Every other (batch, head): one such key with inf / NaN
                 * values, which 0 * v turns into NaN columns
                 * (docs/semantics.md "Non-finite inputs"), the others
                 * finite; or a leading run of them with finite values
                 * (16 keys, a block of 64 and around it, two blocks), so
                 * that a kernel's first blocks see only -inf (its running
                 * max -inf; all keys -inf make the row NaN).  Chosen
                 * without the rng: the same in K and V. */
                static const int64_t leads[] = {16, 63, 64, 65, 128};
                const int64_t S1 = s->S > 0 ? s->S : 1;
                const int lead_run = (b + h) % 2 == 1;
                int64_t lead = leads[(b * 7 + h * 3) % 5];
                lead = lead < S1 - 1 ? lead : S1 - 1;
                const int64_t neg = (b * 5 + h * 3 + 1) % S1;
                const int ninf = lead_run ? i < lead : i == neg;
                x = role == 0   ? 0.5 + fabs(u)
                    : !ninf     ? u * (role == 1 ? 0.25 : 1.0)
                    : role == 1 ? (d == 0 ? -INFINITY : u * 0.25)
                    : lead_run  ? u
                                : (d % 3 == 0 ? NAN : d % 3 == 1 ? INFINITY : u);
                break;
            }
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

/* NaN and infinities where the documents say the data does not matter:
 * keys past a batch's kv length or masked in every row, query rows past its
 * q length.  A kernel that reads them leaks them into the output. */
static void poison_unread(const fz_gen *g, const shape4 *qs, const shape4 *ks,
                          double *qv, double *kv, double *vv)
{
    static const double poison[] = {NAN, INFINITY, -INFINITY};
    fz_geom geom;
    if (fz_geom_of(g->c, &geom) != 0)
        return;
    for (int64_t b = 0; b < g->B; b++) {
        int64_t kvl = fz_kv_len(g->c, &geom, b), qln = fz_q_len(g->c, &geom, b);
        for (int64_t j = 0; j < g->KV_S; j++) {
            if (j < kvl && !(j < FZ_NUM_MAX_KV_S && b < FZ_NUM_MAX_B &&
                             g->masked_col[b][j]))
                continue;
            for (int64_t h = 0; h < g->KV_N; h++)
                for (int64_t d = 0; d < g->D; d++) {
                    kv[at4(ks, b, h, j, d)] = poison[(j + d) % 3];
                    vv[at4(ks, b, h, j, d)] = poison[(j + d + 1) % 3];
                }
        }
        for (int64_t i = qln; i < g->Q_S; i++)
            for (int64_t h = 0; h < g->N; h++)
                for (int64_t d = 0; d < g->D; d++)
                    qv[at4(qs, b, h, i, d)] = NAN;
    }
}

/* Sets rng, the generator of the bulk data (mask patterns and values):
 * 8 input bytes, not one per element. */
void fz_numeric_tensors_data_seed(fz_gen *g) { g->rng.s = fz_bytes_u64(g->f); }

/* The data of query, key and value, from one distribution; sets scale to
 * what the distribution asks (large values: scaled; sentinels: scores at
 * the sentinel). */
void fz_numeric_tensors_data(fz_gen *g)
{
    fz_bytes *f = g->f;
    fia_case *c = g->c;
    static const int kw[] = {30, 12, 12, 10, 10, 14, 8, 6};
    vkind k = (vkind)fz_bytes_weighted(f, kw, FZ_ARRLEN(kw));
    int nan_masked = fz_bytes_chance(f, 25);
    /* Scores at a sentinel (-65504 .. -3e38) flush every other weight, and
     * the reference's MPFR escalation then costs 30-60 ms a row: kept to
     * small problems (two 10-minute campaigns gave fuzz_numeric timeouts
     * of 9-15 s cases of 226-304 rows); larger ones get dominant keys */
    if (k == VK_SENTINEL && g->B * g->N * g->Q_S > FZ_SENTINEL_MAX_ROWS)
        k = VK_DOMINANT;
    g->vkind = (int)k;
    g->scale = c->attrs.scale;
    if (c->live_rows)
        return; /* the case model generates the live rows (normal(0, 1)) */
    if (k == VK_LARGE)
        g->scale = (double[]){1.0, 0.25, 4.0}[fz_bytes_pick(f, 3)];
    shape4 qs = {g->L, g->B, g->N, g->Q_S, g->D};
    shape4 ks = {g->L, g->B, g->KV_N, g->KV_S, g->D};
    if (k == VK_NORMAL && !nan_masked) {
        double sd = (double[]){0.5, 1, 2, 4}[fz_bytes_pick(f, 4)];
        fz_case_gen(c, FIA_SLOT_QUERY, FIA_GEN_NORMAL, 0, sd);
        fz_case_gen(c, FIA_SLOT_KEY, FIA_GEN_NORMAL, 0, sd);
        if (fz_bytes_bool(f))
            fz_case_gen(c, FIA_SLOT_VALUE, FIA_GEN_UNIFORM, -sd, sd);
        return;
    }
    fia_dtype dt = g->qdt;
    double *qv = make_values(&g->rng, k, 0, dt, &qs, &g->scale);
    double *kv = make_values(&g->rng, k, 1, dt, &ks, &g->scale);
    double *vv = make_values(&g->rng, k == VK_SENTINEL ? VK_NORMAL : k, 2, dt,
                             &ks, &g->scale);
    if (nan_masked && qv && kv && vv)
        poison_unread(g, &qs, &ks, qv, kv, vv);
    if (qv) fz_case_values(c, FIA_SLOT_QUERY, qv, numel4(&qs));
    if (kv) fz_case_values(c, FIA_SLOT_KEY, kv, numel4(&ks));
    if (vv) fz_case_values(c, FIA_SLOT_VALUE, vv, numel4(&ks));
    if (!qv || !kv || !vv)
        fz_note(g, FIA_ERR_NOMEM);
}

double *fz_numeric_data_values(fz_gen *g, int role, int64_t B, int64_t H, int64_t S)
{
    shape4 s = {g->L == FZ_BNSD_BSND ? FZ_BNSD : g->L, B, H, S, g->D};
    vkind k = g->vkind >= 0 && g->vkind < VK_COUNT ? (vkind)g->vkind
                                                   : VK_NORMAL;
    double scale = g->scale; /* a sentinel key asks for it again: kept */
    return make_values(&g->rng, role == 2 && k == VK_SENTINEL ? VK_NORMAL : k,
                       role, g->qdt, &s, &scale);
}
