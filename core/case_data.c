/* Derived outputs, materialization and deterministic data generation.
 *
 * PRNG: each tensor gets its own xoshiro256** stream, seeded through
 * splitmix64 from (case seed, slot index, list index) only, so a tensor's data
 * depends on (seed, slot, list index, generator, dtype, shape) and on nothing
 * else in the case.  Uniform doubles are 53-bit: (x >> 11) * 2^-53.
 * normal(m, s) uses Box-Muller with two fresh uniforms per element:
 * m + s * sqrt(-2 ln(1 - u1)) * cos(2 pi u2).  Every value is stored with
 * fia_store_from_double (rounded to the dtype). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "case_internal.h"

/* ---- derived outputs ---------------------------------------------------- */

/* The 003 token layouts: T = the sum of the sequence lengths, no batch
 * axis.  TND and TND_NTD read the query as [T, N, D], NTD and NTD_TND as
 * [N, T, D]; the part after '_' is attention_out's layout. */
int fia_layout_token_order(const char *lay, int *q_ntd, int *o_ntd)
{
    static const struct {
        const char *name;
        int q_ntd, o_ntd;
    } tab[] = {{"TND", 0, 0}, {"NTD", 1, 1}, {"TND_NTD", 0, 1},
               {"NTD_TND", 1, 0}};
    for (size_t i = 0; lay && i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(lay, tab[i].name) == 0) {
            if (q_ntd)
                *q_ntd = tab[i].q_ntd;
            if (o_ntd)
                *o_ntd = tab[i].o_ntd;
            return 1;
        }
    return 0;
}

int fia_layout_is_tnd(const char *lay)
{
    return fia_layout_token_order(lay, NULL, NULL);
}

/* attention_out of a token layout: the query's T and N in the output's
 * order, value's head dim (003 §返回值说明: D of value). */
static void tnd_out(const fia_case *c, const fia_tensor *q, fia_tensor *out)
{
    int q_ntd = 0, o_ntd = 0;
    fia_layout_token_order(c->attrs.input_layout, &q_ntd, &o_ntd);
    if (q->ndim != 3)
        return;
    int64_t T = q->shape[q_ntd ? 1 : 0], N = q->shape[q_ntd ? 0 : 1];
    out->shape[0] = o_ntd ? N : T;
    out->shape[1] = o_ntd ? T : N;
    const fia_tensor_spec *vs = &c->tensors[FIA_SLOT_VALUE];
    if (vs->presence == FIA_PRESENT && vs->t && vs->count == 1 &&
        vs->t[0].ndim == 3)
        out->shape[2] = vs->t[0].shape[2];
}

/* The query's layout of a *_NBSD output layout (003: the query in the
 * layout before '_', attention_out as (N, B, S, D)), else lay itself. */
static const char *query_layout(const char *lay)
{
    static const char *const in[] = {"BSH", "BSND", "BNSD"};
    static const char *const nbsd[] = {"BSH_NBSD", "BSND_NBSD", "BNSD_NBSD"};
    for (size_t i = 0; lay && i < 3; i++)
        if (strcmp(lay, nbsd[i]) == 0)
            return in[i];
    return lay;
}

static void lse_dims(const fia_case *c, const fia_tensor *q, int64_t *B,
                     int64_t *N, int64_t *S)
{
    const char *lay = query_layout(c->attrs.input_layout);
    int64_t d0 = q->ndim > 0 ? q->shape[0] : 1;
    int64_t d1 = q->ndim > 1 ? q->shape[1] : 1;
    int64_t d2 = q->ndim > 2 ? q->shape[2] : 1;
    *B = d0;
    *N = c->attrs.num_heads;
    *S = d1;
    if (strcmp(lay, "BSND") == 0 && q->ndim == 4) {
        *S = d1;
        *N = d2;
    } else if ((strcmp(lay, "BNSD") == 0 || strcmp(lay, "BNSD_BSND") == 0) &&
               q->ndim == 4) {
        *N = d1;
        *S = d2;
    }
}

fia_presence fia_case_output(const fia_case *c, fia_slot s, fia_tensor *out)
{
    fia_tensor dummy;
    if (!out)
        out = &dummy;
    memset(out, 0, sizeof *out);
    if (!c || (int)s < 0 || s >= FIA_SLOT_COUNT)
        return FIA_ABSENT;
    const fia_tensor_spec *sp = &c->tensors[s];
    if (sp->presence != FIA_ABSENT || !fia_slot_is_output(s)) {
        if (sp->presence == FIA_PRESENT && sp->t && sp->count > 0) {
            *out = sp->t[0];
            out->data = NULL;
            return FIA_PRESENT;
        }
        return sp->presence == FIA_PRESENT ? FIA_ABSENT : sp->presence;
    }
    /* Derived output: needs the query. */
    const fia_tensor_spec *qs = &c->tensors[FIA_SLOT_QUERY];
    if (qs->presence != FIA_PRESENT || !qs->t || qs->count < 1)
        return FIA_ABSENT;
    const fia_tensor *q = &qs->t[0];
    if (s == FIA_SLOT_ATTENTION_OUT) {
        *out = *q;
        out->data = NULL;
        if (strcmp(c->attrs.input_layout, "BNSD_BSND") == 0 && q->ndim == 4) {
            out->shape[1] = q->shape[2];
            out->shape[2] = q->shape[1];
        }
        if (fia_layout_is_tnd(c->attrs.input_layout))
            tnd_out(c, q, out);
        const char *ql = query_layout(c->attrs.input_layout);
        if (ql != c->attrs.input_layout) { /* (N, B, S, D) */
            int64_t B, N, S;
            lse_dims(c, q, &B, &N, &S);
            int64_t D = q->ndim > 0 ? q->shape[q->ndim - 1] : 1;
            if (strcmp(ql, "BSH") == 0)
                D = N > 0 ? D / N : D;
            out->ndim = 4;
            out->shape[0] = N, out->shape[1] = B, out->shape[2] = S;
            out->shape[3] = D;
        }
        if (c->tensors[FIA_SLOT_QUANT_SCALE2].presence == FIA_PRESENT)
            out->dtype = FIA_DT_INT8;
        return FIA_PRESENT;
    }
    /* softmax_lse */
    if (!c->attrs.softmax_lse_flag)
        return FIA_ABSENT;
    out->dtype = FIA_DT_FP32;
    if (fia_layout_is_tnd(c->attrs.input_layout)) {
        /* 003 §返回值说明: (T, N, 1) */
        int q_ntd = 0;
        fia_layout_token_order(c->attrs.input_layout, &q_ntd, NULL);
        out->ndim = 3;
        out->shape[0] = q->ndim == 3 ? q->shape[q_ntd ? 1 : 0] : 1;
        out->shape[1] = q->ndim == 3 ? q->shape[q_ntd ? 0 : 1]
                                     : c->attrs.num_heads;
        out->shape[2] = 1;
        return FIA_PRESENT;
    }
    int64_t B, N, S;
    lse_dims(c, q, &B, &N, &S);
    out->ndim = 4;
    out->shape[0] = B;
    out->shape[1] = N;
    out->shape[2] = S;
    out->shape[3] = 1;
    return FIA_PRESENT;
}

/* ---- PRNG ---------------------------------------------------------------- */

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static void rng_seed(rng *r, uint64_t seed, int slot, int32_t index)
{
    uint64_t x = seed;
    uint64_t h = splitmix64(&x);
    h ^= 0xD1B54A32D192ED03ull * (uint64_t)(slot + 1);
    x = h;
    h = splitmix64(&x) ^ (0x8CB92BA72F3D8DD7ull * (uint64_t)(index + 1));
    x = h;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static double rng_unit(rng *r)   /* [0, 1) */
{
    return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static int64_t rng_int(rng *r, int64_t lo, int64_t hi)   /* [lo, hi] */
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(((rng_next(r) >> 32) * span) >> 32);
}

static double rng_normal(rng *r)
{
    double u1 = 1.0 - rng_unit(r);   /* (0, 1] */
    double u2 = rng_unit(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- generation ----------------------------------------------------------- */

static fia_gen resolve_default(const fia_case *c, fia_slot s, fia_dtype dt)
{
    fia_gen g = {0};
    if (s == FIA_SLOT_BLOCK_TABLE && dt == FIA_DT_INT32) {
        g.kind = FIA_GEN_BLOCKS;
    } else if (s == FIA_SLOT_ATTEN_MASK) {
        int64_t m = c->attrs.sparse_mode;
        if (m >= 2 && m <= 4) {
            g.kind = FIA_GEN_CAUSAL;
        } else {
            g.kind = FIA_GEN_RANDOM;
            g.a = 0.3;
        }
    } else if (fia_dtype_is_float(dt)) {
        g.kind = FIA_GEN_NORMAL;
        g.a = 0.0;
        g.b = 1.0;
    } else {
        g.kind = FIA_GEN_DEFAULT;   /* small integers, see gen_tensor */
    }
    return g;
}

/* The effective actual_seq_lengths_kv of batch b (broadcast of a length-1
 * array); 0 without a usable array. */
static int64_t kv_len_of(const fia_case *c, int64_t b)
{
    const fia_int_array_spec *a = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    if (a->presence != FIA_PRESENT || a->count < 1 || a->values == NULL)
        return 0;
    return a->values[a->count == 1 ? 0 : b < a->count ? b : 0];
}

/* FIA_GEN_BLOCKS into the int32 table t [rows, cols]: a Fisher-Yates
 * shuffle of the cache's blocknum ids from r, dealt first to the entries
 * batch by batch reads (m < ceil(kv_len_b / block_size)), then to the
 * others, cyclically.  0 when the case has no such table to fill (then the
 * caller fills small integers). */
static int gen_blocks(const fia_case *c, fia_tensor *t, rng *r)
{
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    const int64_t bs = c->attrs.block_size;
    if (t->dtype != FIA_DT_INT32 || t->ndim != 2 || k->presence != FIA_PRESENT ||
        k->t == NULL || k->t[0].ndim < 1 || bs <= 0)
        return 0;
    const int64_t rows = t->shape[0], cols = t->shape[1];
    const int64_t blocknum = k->t[0].shape[0];
    if (blocknum <= 0 || blocknum > INT32_MAX)
        return 0;
    int32_t *perm = malloc((size_t)blocknum * sizeof *perm);
    uint8_t *dealt = calloc((size_t)(rows * cols > 0 ? rows * cols : 1), 1);
    if (perm == NULL || dealt == NULL) {
        free(perm), free(dealt);
        return 0;
    }
    for (int64_t i = 0; i < blocknum; i++)
        perm[i] = (int32_t)i;
    for (int64_t i = blocknum - 1; i > 0; i--) {
        int64_t j = rng_int(r, 0, i);
        int32_t x = perm[i];
        perm[i] = perm[j], perm[j] = x;
    }
    int32_t *ids = t->data;
    int64_t next = 0;
    for (int64_t b = 0; b < rows; b++) {
        int64_t len = kv_len_of(c, b);
        int64_t nb = len > 0 ? len / bs + (len % bs != 0) : 0;
        for (int64_t m = 0; m < nb && m < cols; m++) {
            ids[b * cols + m] = perm[next++ % blocknum];
            dealt[b * cols + m] = 1;
        }
    }
    for (int64_t i = 0; i < rows * cols; i++)
        if (!dealt[i])
            ids[i] = perm[next++ % blocknum];
    free(perm), free(dealt);
    return 1;
}

/* Generate tensor t (slot s, list index idx); values_off is the offset of
 * this tensor's first value in an explicit value list. */
static void gen_tensor(const fia_case *c, fia_slot s, int32_t idx,
                       const fia_gen *given, fia_tensor *t, int64_t numel,
                       int64_t values_off)
{
    fia_gen g = given->kind == FIA_GEN_DEFAULT
                    ? resolve_default(c, s, t->dtype) : *given;
    rng r;
    rng_seed(&r, c->seed, (int)s, idx);
    int64_t cols = t->ndim >= 1 ? t->shape[t->ndim - 1] : 1;
    int64_t rows = t->ndim >= 2 ? t->shape[t->ndim - 2] : 1;
    int64_t ilo = -4, ihi = 4;
    if (t->dtype == FIA_DT_UINT8 || t->dtype == FIA_DT_UINT64)
        ilo = 0;
    if (t->dtype == FIA_DT_BOOL) {
        ilo = 0;
        ihi = 1;
    }
    if (g.kind == FIA_GEN_BLOCKS && gen_blocks(c, t, &r))
        return;
    /* The compressed 2048x2048 causal mask of sparse modes 2-4 is in most
     * generated cases: write one-byte masks a row at a time (the same
     * values as the element loop below, a hundred times faster). */
    if (g.kind == FIA_GEN_CAUSAL && fia_dtype_bits(t->dtype) == 8 &&
        cols > 0 && rows > 0) {
        uint8_t *b = t->data;
        for (int64_t off = 0; off < numel; off += cols) {
            int64_t row = (off / cols) % rows;
            int64_t keep = row + 1 < cols ? row + 1 : cols;
            memset(b + off, 0, (size_t)keep);
            memset(b + off + keep, 1, (size_t)(cols - keep));
        }
        return;
    }
    for (int64_t i = 0; i < numel; i++) {
        double x;
        switch (g.kind) {
        case FIA_GEN_NORMAL:
            x = g.a + g.b * rng_normal(&r);
            break;
        case FIA_GEN_UNIFORM:
            x = g.a + (g.b - g.a) * rng_unit(&r);
            break;
        case FIA_GEN_RANDOM:
            x = rng_unit(&r) < g.a ? 1.0 : 0.0;
            break;
        case FIA_GEN_CAUSAL: {
            int64_t col = cols > 0 ? i % cols : 0;
            int64_t row = cols > 0 && rows > 0 ? (i / cols) % rows : 0;
            x = col > row ? 1.0 : 0.0;
            break;
        }
        case FIA_GEN_CONST:
            x = g.a;
            break;
        case FIA_GEN_VALUES:
            x = given->values[values_off + i];
            break;
        default:
            x = (double)rng_int(&r, ilo, ihi);
            break;
        }
        fia_store_from_double(t->dtype, t->data, i, x);
    }
}

/* ---- live rows (data = live_rows) ---------------------------------------- */

/* How the rows of query / key / value lie: B batches of N heads of S rows
 * of `run` contiguous elements (BNSD: run = D, N heads apart; BSH and
 * BSND: a row of all heads is contiguous, N = 1).  -1 for a rank the
 * layouts do not have (then every element is live). */
typedef struct live_geom {
    int64_t B, N, S, run;
} live_geom;

static int live_geom_of(const fia_case *c, const fia_tensor *t, live_geom *g)
{
    int bnsd = strncmp(c->attrs.input_layout, "BNSD", 4) == 0;
    if (fia_layout_is_tnd(c->attrs.input_layout))
        return -1; /* no padding rows: every token is read */
    if (t->ndim == 3) {
        *g = (live_geom){t->shape[0], 1, t->shape[1], t->shape[2]};
    } else if (t->ndim == 4 && bnsd) {
        *g = (live_geom){t->shape[0], t->shape[1], t->shape[2], t->shape[3]};
    } else if (t->ndim == 4) {
        *g = (live_geom){t->shape[0], 1, t->shape[1],
                         t->shape[2] * t->shape[3]};
    } else {
        return -1;
    }
    return g->B >= 0 && g->N >= 0 && g->S >= 0 && g->run >= 0 ? 0 : -1;
}

static int is_live_slot(fia_slot s)
{
    return s == FIA_SLOT_QUERY || s == FIA_SLOT_KEY || s == FIA_SLOT_VALUE;
}

/* Rows of batch b the call reads: the sequence-length array's value
 * (one value: every batch), clamped to [0, S]; S without the array. */
static int64_t live_len(const fia_case *c, fia_slot s, int64_t b, int64_t S)
{
    const fia_int_array_spec *ar =
        &c->arrays[s == FIA_SLOT_QUERY ? FIA_ARR_ACTUAL_SEQ_LENGTHS
                                       : FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    if (ar->presence != FIA_PRESENT || ar->count < 1 || !ar->values)
        return S;
    int64_t v = ar->values[ar->count == 1 ? 0
                                          : b < ar->count ? b : ar->count - 1];
    return v < 0 ? 0 : v > S ? S : v;
}

/* Elements of t (slot s) the call reads; numel when not a live slot. */
static int64_t live_elems(const fia_case *c, fia_slot s, const fia_tensor *t,
                          int64_t numel)
{
    live_geom g;
    if (!c->live_rows || !is_live_slot(s) || live_geom_of(c, t, &g) != 0)
        return numel;
    int64_t n = 0;
    for (int64_t b = 0; b < g.B; b++)
        n += live_len(c, s, b, g.S) * g.N * g.run;
    return n;
}

static void rng_seed_at(rng *r, uint64_t seed, int slot, int32_t index,
                        int64_t offset)
{
    uint64_t x = seed ^ (0x9E6C63D0676A9A99ull * (uint64_t)(offset + 1));
    rng_seed(r, splitmix64(&x), slot, index);
}

/* One generated value (not VALUES, not CAUSAL's fast path). */
static double gen_value(const fia_gen *g, rng *r, int64_t ilo, int64_t ihi)
{
    switch (g->kind) {
    case FIA_GEN_NORMAL:
        return g->a + g->b * rng_normal(r);
    case FIA_GEN_UNIFORM:
        return g->a + (g->b - g->a) * rng_unit(r);
    case FIA_GEN_RANDOM:
        return rng_unit(r) < g->a ? 1.0 : 0.0;
    case FIA_GEN_CONST:
        return g->a;
    default:
        return (double)rng_int(r, ilo, ihi);
    }
}

/* The live rows of t: each row from its own stream (seed, slot, index,
 * the row's offset), so it does not depend on which other rows are live.
 * The rest stays as allocated (0). */
static void gen_live(const fia_case *c, fia_slot s, int32_t idx,
                     const fia_gen *given, fia_tensor *t)
{
    fia_gen g = given->kind == FIA_GEN_DEFAULT
                    ? resolve_default(c, s, t->dtype) : *given;
    live_geom lg;
    if (live_geom_of(c, t, &lg) != 0)
        return;
    for (int64_t b = 0; b < lg.B; b++) {
        int64_t len = live_len(c, s, b, lg.S);
        for (int64_t n = 0; n < lg.N; n++)
            for (int64_t i = 0; i < len; i++) {
                int64_t off = ((b * lg.N + n) * lg.S + i) * lg.run;
                rng r;
                rng_seed_at(&r, c->seed, (int)s, idx, off);
                for (int64_t e = 0; e < lg.run; e++) {
                    double x = g.kind == FIA_GEN_CAUSAL
                                   ? (e > i ? 1.0 : 0.0)
                                   : gen_value(&g, &r, -4, 4);
                    fia_store_from_double(t->dtype, t->data, off + e, x);
                }
            }
    }
}

/* Zeroed memory for a tensor: an anonymous mapping (pages cost nothing
 * until written) for a live slot's single tensor over FIA_LIVE_MAP_BYTES,
 * else the heap.  *mapped: the mapping's size, 0 for the heap. */
static void *alloc_tensor(const fia_case *c, fia_slot s, int single,
                          size_t bytes, uint64_t *mapped)
{
    *mapped = 0;
    if (c->live_rows && is_live_slot(s) && single &&
        (int64_t)bytes > FIA_LIVE_MAP_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        *mapped = bytes;
        return p;
    }
    return calloc(1, bytes);
}

/* ---- materialize ------------------------------------------------------------ */

static int64_t *dup_i64(const int64_t *v, int64_t n)
{
    if (n <= 0 || !v)
        return NULL;
    int64_t *p = malloc((size_t)n * sizeof *p);
    if (p)
        memcpy(p, v, (size_t)n * sizeof *p);
    return p;
}

/* The tensor descriptors the call passes for slot s; count 0 when none.
 * Outputs go through fia_case_output.  Returns a pointer into c or into
 * *scratch. */
static const fia_tensor *slot_tensors(const fia_case *c, fia_slot s,
                                      fia_tensor *scratch, int32_t *count)
{
    *count = 0;
    if (fia_slot_is_output(s)) {
        if (fia_case_output(c, s, scratch) != FIA_PRESENT)
            return NULL;
        *count = 1;
        return scratch;
    }
    const fia_tensor_spec *sp = &c->tensors[s];
    if (sp->presence != FIA_PRESENT || !sp->t || sp->count < 1)
        return NULL;
    *count = sp->count;
    return sp->t;
}

/* Pass 1 for slot s, before anything is allocated: its descriptors, its
 * size against the limits (its bytes added to *total; a live-rows slot's
 * mapped bytes to *virt) and its generator against its shape. */
static fia_status check_slot(const fia_case *c, fia_slot s,
                             const fia_tensor *src, int32_t n, int with_data,
                             int64_t *total, int64_t *virt, fia_error *err)
{
    const char *file = c->name, *name = fia_slot_name(s);
    int live = c->live_rows && is_live_slot(s);
    if (n > FIA_MAX_TENSOR_LIST)
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                           "%s: more than %d tensors", name,
                           FIA_MAX_TENSOR_LIST);
    int64_t elems = 0;
    for (int32_t i = 0; i < n; i++) {
        if (src[i].ndim < 0 || src[i].ndim > FIA_MAX_RANK ||
            fia_dtype_bits(src[i].dtype) <= 0)
            return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                               "%s: bad tensor descriptor", name);
        int64_t ne = fia_tensor_numel(&src[i]);
        if (ne < 0) {
            if (!with_data)
                continue;
            return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                               "case too large: %s element count overflows",
                               name);
        }
        elems = (elems > INT64_MAX - ne) ? -1 : elems + ne;
        if (!with_data)
            continue;
        if (ne > 2 * FIA_MATERIALIZE_LIMIT && !live)
            return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                               "case too large: %s has %lld elements", name,
                               (long long)ne);
        int64_t bytes = (int64_t)fia_dtype_storage(
            src[i].dtype, live_elems(c, s, &src[i], ne));
        if (live) {
            int64_t vbytes = (int64_t)fia_dtype_storage(src[i].dtype, ne);
            if (vbytes > FIA_LIVE_VIRTUAL_LIMIT - *virt)
                return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                                   "case too large: query, key and value "
                                   "map more than %lld bytes",
                                   (long long)FIA_LIVE_VIRTUAL_LIMIT);
            *virt += vbytes;
        }
        if (bytes > FIA_MATERIALIZE_LIMIT - *total)
            return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                               "case too large: more than %lld bytes "
                               "(limit %lld)",
                               (long long)(*total > INT64_MAX - bytes
                                               ? INT64_MAX : *total + bytes),
                               (long long)FIA_MATERIALIZE_LIMIT);
        *total += bytes;
    }
    if (!with_data || n == 0)
        return FIA_OK;
    const fia_gen *g = &c->tensors[s].gen;
    if (!fia_slot_is_output(s) && g->kind == FIA_GEN_VALUES &&
        (elems != g->n_values || (g->n_values > 0 && !g->values)))
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                           "%s.values: %lld values given, the shape has "
                           "%lld elements", name, (long long)g->n_values,
                           (long long)elems);
    if (live && g->kind == FIA_GEN_VALUES)
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                           "%s.values: explicit values give every element; "
                           "data = live_rows generates the live rows", name);
    if ((int)g->kind > (int)FIA_GEN_BLOCKS)
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                           "%s: bad generator", name);
    if (c->live_rows && s == FIA_SLOT_BLOCK_TABLE)
        /* a paged cache's rows are not the layout's: which are live would
         * depend on the table's data */
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                           "data = live_rows with a block_table (page "
                           "attention) is not supported: its cache rows do "
                           "not follow the layout");
    return FIA_OK;
}

/* Pass 2 for slot s: its descriptors copied into d and, with data, its
 * tensors allocated and generated (outputs left zero).  0, or -1 out of
 * memory (what was allocated stays in d for fia_case_data_free). */
static int fill_slot(const fia_case *c, fia_slot s, const fia_tensor *src,
                     int32_t n, int with_data, fia_case_data *d)
{
    d->t[s] = calloc((size_t)n, sizeof *d->t[s]);
    d->list[s] = calloc((size_t)n, sizeof *d->list[s]);
    if (!d->t[s] || !d->list[s])
        return -1;
    d->n[s] = n;
    int64_t off = 0;
    for (int32_t i = 0; i < n; i++) {
        fia_tensor *t = &d->t[s][i];
        *t = src[i];
        t->data = NULL;
        d->list[s][i] = t;
        if (!with_data)
            continue;
        int64_t ne = fia_tensor_numel(t);
        if (ne <= 0)
            continue;
        uint64_t mapped = 0;
        t->data = alloc_tensor(c, s, n == 1, fia_dtype_storage(t->dtype, ne),
                               &mapped);
        if (!t->data)
            return -1;
        d->mapped[s] = mapped;
        if (fia_slot_is_output(s))
            ;
        else if (c->live_rows && is_live_slot(s))
            gen_live(c, s, i, &c->tensors[s].gen, t);
        else
            gen_tensor(c, s, i, &c->tensors[s].gen, t, ne, off);
        off += ne;
    }
    return 0;
}

/* The case's present integer arrays copied into d. */
static fia_status copy_arrays(const fia_case *c, fia_case_data *d,
                              fia_error *err)
{
    for (int a = 0; a < FIA_ARR_COUNT; a++) {
        const fia_int_array_spec *ar = &c->arrays[a];
        if (ar->presence != FIA_PRESENT)
            continue;
        d->arr_present[a] = 1;
        d->arr[a].count = ar->count;
        if (ar->count == 0)
            continue;
        if (!ar->values)
            return fia_fail_at(err, FIA_ERR_BAD_INPUT, c->name, 0,
                               "%s: values missing",
                               fia_array_name((fia_array)a));
        d->arr[a].values = dup_i64(ar->values, ar->count);
        if (!d->arr[a].values)
            return fia_fail_at(err, FIA_ERR_NOMEM, c->name, 0,
                               "out of memory materializing the case");
    }
    return FIA_OK;
}

fia_status fia_case_materialize(const fia_case *c, int with_data,
                                fia_case_data *d, fia_error *err)
{
    fia_error local;
    if (!err)
        err = &local;
    const char *file = c ? c->name : "";
    fia_error_clear(err);
    if (!d)
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0,
                           "no case data to fill");
    memset(d, 0, sizeof *d);
    if (!c)
        return fia_fail_at(err, FIA_ERR_BAD_INPUT, file, 0, "no case");
    fia_tensor scratch[FIA_SLOT_COUNT];
    const fia_tensor *src[FIA_SLOT_COUNT];
    int32_t n[FIA_SLOT_COUNT];
    int64_t total = 0, virt = 0;
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        src[s] = slot_tensors(c, (fia_slot)s, &scratch[s], &n[s]);
        fia_status st = check_slot(c, (fia_slot)s, src[s], n[s], with_data,
                                   &total, &virt, err);
        if (st != FIA_OK)
            return st;
    }
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        if (n[s] > 0 && fill_slot(c, (fia_slot)s, src[s], n[s], with_data, d) != 0) {
            fia_case_data_free(d);
            return fia_fail_at(err, FIA_ERR_NOMEM, file, 0,
                               "out of memory materializing the case");
        }
    d->key_list.count = d->n[FIA_SLOT_KEY];
    d->key_list.tensors = d->list[FIA_SLOT_KEY];
    d->value_list.count = d->n[FIA_SLOT_VALUE];
    d->value_list.tensors = d->list[FIA_SLOT_VALUE];
    fia_status st = copy_arrays(c, d, err);
    if (st != FIA_OK)
        fia_case_data_free(d);
    return st;
}

void fia_case_data_free(fia_case_data *d)
{
    if (!d)
        return;
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        if (d->t[s] && d->mapped[s])
            munmap(d->t[s][0].data, (size_t)d->mapped[s]);
        else if (d->t[s])
            for (int32_t i = 0; i < d->n[s]; i++)
                free(d->t[s][i].data);
        free(d->t[s]);
        free((void *)d->list[s]);
    }
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        free((void *)d->arr[a].values);
    memset(d, 0, sizeof *d);
}

const fia_tensor *fia_case_data_tensor(const fia_case_data *d, fia_slot s)
{
    if (!d || (int)s < 0 || s >= FIA_SLOT_COUNT || !d->t[s] || d->n[s] < 1)
        return NULL;
    return &d->t[s][0];
}
