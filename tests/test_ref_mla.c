/* The reference reads MLA (ref/read_mla.c): query_rope / key_rope add
 * q_rope . k_rope to every score, scale * ([q | q_rope] . [k | k_rope]).
 *
 *  1. MLA(q, k, v, q_rope, k_rope) gives, bit for bit (outputs, exact
 *     values, bounds, lse), the plain reference of the call whose query and
 *     key carry the rope columns after their own (head dim D + Dr) and
 *     whose value carries Dr zero columns: attention_out's first D columns
 *     are MLA's, its last Dr exact zeros.  Every layout has the head dim
 *     innermost (element (b, n, s, d) at row(b, n, s) * W + d, W the
 *     tensor's head dim), so concatenating each physical row of a tensor
 *     with the same row of its rope is that concatenation in the same
 *     layout: BNSD, BSH, BSND and the token layouts TND / NTD_TND, fp16 and
 *     bf16, Q_S 1 and > 1, sparse mode 3; and paged MLA (caches of block
 *     size 16, 3-D and 4-D, shuffled ids, NaN in every cache row no key
 *     uses) against the plain contiguous call.
 *  2. A zero rope (q_rope 0, k_rope anything; both 0) gives exactly the
 *     no-rope result (outputs, exact values, lse), its bounds no smaller.
 *  3. A rope whose shape, dtype or presence disagrees is refused
 *     (FIA_ERR_PARAM_INVALID, a message naming it, nothing computed);
 *     rope with antiquant or a shared prefix is not modeled.
 *  4. The tolerance bound covers the rope term: large rope products with a
 *     small q . k (the same q_rope . k_rope for every key, so the softmax
 *     is q . k's) make a float32 kernel's score errors the rope's; three
 *     float32 pipelines (q k and q_rope k_rope summed apart then added; one
 *     loop, rope last; one loop, rope first) stay within the bound, while
 *     their error exceeds the bound of the same call without rope (which
 *     is what a bound leaving out the rope term would be). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/ref.h"
#include "ref_testlib.h"

/* ---- tensors as physical rows ------------------------------------------ */

/* n values of the dtype in (-4, 4) times f */
static double *gen(int64_t n, double f, const char *dt)
{
    double *x = rnd_array(n);
    for (int64_t i = 0; i < n; i++)
        x[i] *= f;
    snap(x, n, dt);
    return x;
}

/* [rows][Wa + Wb]: row r of a then row r of b (NULL: zeros) */
static double *concat(const double *a, int64_t Wa, const double *b,
                      int64_t Wb, int64_t rows)
{
    double *x = malloc((size_t)(rows * (Wa + Wb) + 1) * sizeof *x);
    for (int64_t r = 0; r < rows; r++) {
        memcpy(x + r * (Wa + Wb), a + r * Wa, (size_t)Wa * sizeof *x);
        for (int64_t d = 0; d < Wb; d++)
            x[r * (Wa + Wb) + Wa + d] = b ? b[r * Wb + d] : 0.0;
    }
    return x;
}

static void emit(sbuf *sb, const char *name, const char *dt,
                 const char *shape, const double *x, int64_t n)
{
    sb_printf(sb, "%s = %s %s\n%s.values = ", name, dt, shape, name);
    for (int64_t i = 0; i < n; i++)
        sb_printf(sb, i ? ",%.17g" : "%.17g", x[i]);
    sb_printf(sb, "\n");
}

/* One call's geometry.  Token layouts: QS is T, KVS is T_kv (the lengths
 * in extra).  bs > 0: MLA's key, key_rope and value are caches of nblk
 * blocks of bs rows (cache4d: (nblk, KVN, bs, W), else (nblk, bs, KVN*W))
 * behind a shuffled block table; the plain call is contiguous in layout. */
typedef struct geom {
    const char *layout, *dt;
    int64_t B, N, KVN, QS, KVS, D, Dr;
    int64_t bs, nblk;
    int cache4d;
    const int64_t *kv_len;   /* paged: per batch */
    const char *extra;
} geom;

static int tokens(const geom *g)
{
    return strcmp(g->layout, "TND") == 0 || strcmp(g->layout, "NTD_TND") == 0;
}

/* The shape of a query-like (kv 0) or key-like (kv 1) tensor of head dim
 * W, contiguous. */
static void shape(char *buf, size_t n, const geom *g, int kv, int64_t W)
{
    int64_t H = kv ? g->KVN : g->N, S = kv ? g->KVS : g->QS;
    long long B = (long long)g->B;
    if (strcmp(g->layout, "BSH") == 0)
        snprintf(buf, n, "[%lld,%lld,%lld]", B, (long long)S,
                 (long long)(H * W));
    else if (strcmp(g->layout, "BSND") == 0)
        snprintf(buf, n, "[%lld,%lld,%lld,%lld]", B, (long long)S,
                 (long long)H, (long long)W);
    else if (strcmp(g->layout, "TND") == 0)
        snprintf(buf, n, "[%lld,%lld,%lld]", (long long)S, (long long)H,
                 (long long)W);
    else if (strcmp(g->layout, "NTD_TND") == 0)
        snprintf(buf, n, "[%lld,%lld,%lld]", (long long)H, (long long)S,
                 (long long)W);
    else
        snprintf(buf, n, "[%lld,%lld,%lld,%lld]", B, (long long)H,
                 (long long)S, (long long)W);
}

static void cache_shape(char *buf, size_t n, const geom *g, int64_t W)
{
    if (g->cache4d)
        snprintf(buf, n, "[%lld,%lld,%lld,%lld]", (long long)g->nblk,
                 (long long)g->KVN, (long long)g->bs, (long long)W);
    else
        snprintf(buf, n, "[%lld,%lld,%lld]", (long long)g->nblk,
                 (long long)g->bs, (long long)(g->KVN * W));
}

static int64_t q_rows(const geom *g)
{
    return tokens(g) ? g->QS * g->N : g->B * g->QS * g->N;
}

static int64_t k_rows(const geom *g)
{
    return tokens(g) ? g->KVS * g->KVN : g->B * g->KVS * g->KVN;
}

/* Row of key (b, kn, j) in the contiguous layout (not a token one). */
static int64_t kv_row(const geom *g, int64_t b, int64_t kn, int64_t j)
{
    if (strcmp(g->layout, "BNSD") == 0)
        return (b * g->KVN + kn) * g->KVS + j;
    return (b * g->KVS + j) * g->KVN + kn;
}

static int64_t cache_row(const geom *g, int64_t id, int64_t kn, int64_t o)
{
    return g->cache4d ? (id * g->KVN + kn) * g->bs + o
                      : (id * g->bs + o) * g->KVN + kn;
}

static void header(sbuf *sb, const geom *g)
{
    sb_printf(sb, "input_layout = %s\nnum_heads = %lld\n"
                  "num_key_value_heads = %lld\nscale = 0.1875\n"
                  "softmax_lse_flag = true\n%s\n",
              g->layout, (long long)g->N, (long long)g->KVN,
              g->extra ? g->extra : "");
}

/* The MLA call of q, k, v, qr, kr (contiguous rows of g) and its plain
 * twin, as texts. */
typedef struct pair {
    char *mla, *plain;
} pair;

static pair texts(const geom *g, const double *q, const double *k,
                  const double *v, const double *qr, const double *kr)
{
    const int64_t D = g->D, Dr = g->Dr, nq = q_rows(g), nk = k_rows(g);
    char s[128];
    sbuf m = {0}, p = {0};
    header(&m, g);
    header(&p, g);
    /* plain: [q | qr], [k | kr], [v | 0] in the same layout */
    double *pq = concat(q, D, qr, Dr, nq), *pk = concat(k, D, kr, Dr, nk),
           *pv = concat(v, D, NULL, Dr, nk);
    shape(s, sizeof s, g, 0, D + Dr);
    emit(&p, "query", g->dt, s, pq, nq * (D + Dr));
    shape(s, sizeof s, g, 1, D + Dr);
    emit(&p, "key", g->dt, s, pk, nk * (D + Dr));
    emit(&p, "value", g->dt, s, pv, nk * (D + Dr));
    if (g->kv_len) {
        sb_printf(&p, "actual_seq_lengths_kv = [");
        for (int64_t b = 0; b < g->B; b++)
            sb_printf(&p, b ? ",%lld" : "%lld", (long long)g->kv_len[b]);
        sb_printf(&p, "]\n");
    }
    shape(s, sizeof s, g, 0, D);
    emit(&m, "query", g->dt, s, q, nq * D);
    shape(s, sizeof s, g, 0, Dr);
    emit(&m, "query_rope", g->dt, s, qr, nq * Dr);
    if (g->bs == 0) {
        shape(s, sizeof s, g, 1, D);
        emit(&m, "key", g->dt, s, k, nk * D);
        emit(&m, "value", g->dt, s, v, nk * D);
        shape(s, sizeof s, g, 1, Dr);
        emit(&m, "key_rope", g->dt, s, kr, nk * Dr);
    } else {
        /* the blocks dealt in a shuffled order; NaN where no key is */
        const int64_t cr = g->nblk * g->bs * g->KVN;
        const int64_t cols = (g->KVS + g->bs - 1) / g->bs;
        double *ck = malloc((size_t)(cr * D) * sizeof *ck),
               *cv = malloc((size_t)(cr * D) * sizeof *cv),
               *ckr = malloc((size_t)(cr * Dr) * sizeof *ckr);
        int64_t *perm = malloc((size_t)g->nblk * sizeof *perm);
        for (int64_t i = 0; i < cr * D; i++)
            ck[i] = cv[i] = NAN;
        for (int64_t i = 0; i < cr * Dr; i++)
            ckr[i] = NAN;
        for (int64_t i = 0; i < g->nblk; i++)
            perm[i] = i;
        for (int64_t i = g->nblk - 1; i > 0; i--) {
            int64_t j = (int64_t)(rng() % (uint64_t)(i + 1)), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        sb_printf(&m, "block_size = %lld\nblock_table = int32 [%lld,%lld]\n"
                      "block_table.values = ",
                  (long long)g->bs, (long long)g->B, (long long)cols);
        int64_t next = 0;
        for (int64_t b = 0; b < g->B; b++)
            for (int64_t c = 0; c < cols; c++) {
                int64_t nb = (g->kv_len[b] + g->bs - 1) / g->bs;
                int64_t id = c < nb ? perm[next++] : perm[g->nblk - 1];
                sb_printf(&m, b + c ? ",%lld" : "%lld", (long long)id);
                for (int64_t kn = 0; c < nb && kn < g->KVN; kn++)
                    for (int64_t o = 0; o < g->bs; o++) {
                        int64_t j = c * g->bs + o;
                        if (j >= g->kv_len[b])
                            break;
                        int64_t r = cache_row(g, id, kn, o),
                                rr = kv_row(g, b, kn, j);
                        memcpy(ck + r * D, k + rr * D, (size_t)D * sizeof(double));
                        memcpy(cv + r * D, v + rr * D, (size_t)D * sizeof(double));
                        memcpy(ckr + r * Dr, kr + rr * Dr, (size_t)Dr * sizeof(double));
                    }
            }
        sb_printf(&m, "\nactual_seq_lengths_kv = [");
        for (int64_t b = 0; b < g->B; b++)
            sb_printf(&m, b ? ",%lld" : "%lld", (long long)g->kv_len[b]);
        sb_printf(&m, "]\n");
        cache_shape(s, sizeof s, g, D);
        emit(&m, "key", g->dt, s, ck, cr * D);
        emit(&m, "value", g->dt, s, cv, cr * D);
        cache_shape(s, sizeof s, g, Dr);
        emit(&m, "key_rope", g->dt, s, ckr, cr * Dr);
        free(ck), free(cv), free(ckr), free(perm);
    }
    free(pq), free(pk), free(pv);
    return (pair){m.s, p.s};
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* MLA run m (D columns) against plain run p (D + Dr): the first D columns
 * bit for bit (bits, exact, bound, unspecified), the last Dr exact zeros;
 * lse all alike.  bounds_equal 0: p's bound may only be smaller. */
static void compare_runs(const run *m, const run *p, int64_t D, int64_t Dr,
                         int bounds_equal, const char *what)
{
    CHECK_MSG(m->ok && m->st == FIA_OK && p->ok && p->st == FIA_OK,
              "%s: statuses %d %d (%s / %s)", what, (int)m->st, (int)p->st,
              m->err.msg, p->err.msg);
    if (!(m->ok && m->st == FIA_OK && p->ok && p->st == FIA_OK))
        return;
    const int64_t rows = m->r.out_numel / D;
    CHECK_MSG(p->r.out_numel == rows * (D + Dr), "%s: %lld vs %lld outputs",
              what, (long long)m->r.out_numel, (long long)p->r.out_numel);
    if (p->r.out_numel != rows * (D + Dr))
        return;
    int bad = 0, zero_bad = 0, spec = 0;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t d = 0; d < D; d++) {
            const int64_t a = r * D + d, b = r * (D + Dr) + d;
            spec += !m->r.out_unspecified[a];
            if (m->r.out_unspecified[a] != p->r.out_unspecified[b]) {
                bad++;
                continue;
            }
            if (m->r.out_unspecified[a])
                continue;
            bad += out_bits(m, a) != out_bits(p, b);
            bad += !same_double(m->r.out_exact[a], p->r.out_exact[b]);
            bad += bounds_equal ? !same_double(m->r.out_bound[a],
                                               p->r.out_bound[b])
                                : !(m->r.out_bound[a] >= p->r.out_bound[b]);
        }
        for (int64_t d = D; d < D + Dr; d++) {
            const int64_t b = r * (D + Dr) + d;
            zero_bad += !p->r.out_unspecified[b] &&
                        (out_bits(p, b) != 0 || p->r.out_exact[b] != 0.0);
        }
    }
    CHECK_MSG(spec > 0, "%s: nothing specified", what);
    CHECK_MSG(bad == 0, "%s: %d output values differ", what, bad);
    CHECK_MSG(zero_bad == 0, "%s: %d zero-value columns not 0", what,
              zero_bad);
    CHECK_MSG(m->r.has_lse && p->r.has_lse &&
                  m->r.lse_numel == p->r.lse_numel,
              "%s: lse shapes", what);
    if (!(m->r.has_lse && p->r.has_lse && m->r.lse_numel == p->r.lse_numel))
        return;
    int lbad = 0;
    for (int64_t i = 0; i < m->r.lse_numel; i++) {
        if (m->r.lse_unspecified[i] != p->r.lse_unspecified[i]) {
            lbad++;
            continue;
        }
        if (m->r.lse_unspecified[i])
            continue;
        lbad += ((const uint32_t *)m->r.lse.data)[i] !=
                ((const uint32_t *)p->r.lse.data)[i];
        lbad += !same_double(m->r.lse_exact[i], p->r.lse_exact[i]);
        lbad += bounds_equal
                    ? !same_double(m->r.lse_bound[i], p->r.lse_bound[i])
                    : !(m->r.lse_bound[i] >= p->r.lse_bound[i]);
    }
    CHECK_MSG(lbad == 0, "%s: %d lse values differ", what, lbad);
}

/* ---- 1. MLA is the concatenated dot product ---------------------------- */

static void concat_case(const geom *g, const char *what)
{
    const int64_t nq = q_rows(g), nk = k_rows(g);
    double *q = gen(nq * g->D, 0.5, g->dt), *qr = gen(nq * g->Dr, 0.5, g->dt);
    double *k = gen(nk * g->D, 0.5, g->dt), *kr = gen(nk * g->Dr, 0.5, g->dt);
    double *v = gen(nk * g->D, 1.0, g->dt);
    pair t = texts(g, q, k, v, qr, kr);
    run m, p;
    run_text(&m, t.mla, 0);
    run_text(&p, t.plain, 0);
    compare_runs(&m, &p, g->D, g->Dr, 1, what);
    run_free(&m), run_free(&p);
    free(t.mla), free(t.plain);
    free(q), free(qr), free(k), free(kr), free(v);
}

static void test_concat(void)
{
    static const char *dts[] = {"fp16", "bf16"};
    for (int i = 0; i < 2; i++) {
        const char *dt = dts[i];
        char what[96];
        geom g = {"BNSD", dt, 2, 4, 2, 1, 20, 16, 8, .extra = ""};
        snprintf(what, sizeof what, "BNSD %s Q_S 1", dt);
        concat_case(&g, what);
        g.QS = 5; /* right-down causal, ragged kv lengths */
        g.extra = "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
                  "actual_seq_lengths_kv = [20,13]";
        snprintf(what, sizeof what, "BNSD %s Q_S 5 sparse 3", dt);
        concat_case(&g, what);
        geom h = {"BSH", dt, 2, 4, 1, 1, 18, 16, 8, .extra = ""};
        snprintf(what, sizeof what, "BSH %s Q_S 1", dt);
        concat_case(&h, what);
        h.QS = 4, h.extra = "actual_seq_lengths = [4,2]";
        snprintf(what, sizeof what, "BSH %s Q_S 4", dt);
        concat_case(&h, what);
        geom s = {"BSND", dt, 1, 2, 2, 3, 9, 16, 4, .extra = ""};
        snprintf(what, sizeof what, "BSND %s Q_S 3 Dr 4", dt);
        concat_case(&s, what);
        /* token layouts: lengths 3 and 2 over 10 and 12 keys */
        geom t = {"TND", dt, 2, 2, 1, 5, 22, 16, 8,
                  .extra = "actual_seq_lengths = [3,5]\n"
                           "actual_seq_lengths_kv = [10,22]"};
        snprintf(what, sizeof what, "TND %s", dt);
        concat_case(&t, what);
        t.layout = "NTD_TND";
        t.extra = "actual_seq_lengths = [3,5]\nactual_seq_lengths_kv = "
                  "[10,22]\nsparse_mode = 3\natten_mask = bool [2048,2048]";
        snprintf(what, sizeof what, "NTD_TND %s sparse 3", dt);
        concat_case(&t, what);
    }
    /* paged MLA (block size 16, 3-D and 4-D caches) against the plain
     * contiguous call; 8 blocks, 4 of them read */
    static const int64_t lens[2] = {40, 17};
    for (int c4 = 0; c4 < 2; c4++)
        for (int64_t qs = 1; qs <= 3; qs += 2) {
            char what[96];
            geom g = {c4 ? "BNSD" : "BSH", c4 ? "bf16" : "fp16", 2, 4, 2,
                      qs, 40, 16, 8, 16, 8, c4, lens, ""};
            snprintf(what, sizeof what, "paged %s %s Q_S %lld", g.layout,
                     c4 ? "4-D" : "3-D", (long long)qs);
            concat_case(&g, what);
        }
}

/* ---- 2. a zero rope is no rope ------------------------------------------ */

static void zero_case(const geom *g, int kr_zero, const char *what)
{
    const int64_t nq = q_rows(g), nk = k_rows(g);
    double *q = gen(nq * g->D, 0.5, g->dt), *k = gen(nk * g->D, 0.5, g->dt);
    double *v = gen(nk * g->D, 1.0, g->dt);
    double *qr = gen(nq * g->Dr, 0.0, g->dt);
    double *kr = gen(nk * g->Dr, kr_zero ? 0.0 : 4.0, g->dt);
    pair t = texts(g, q, k, v, qr, kr);
    /* the no-rope call: g's plain twin with Dr 0 */
    geom g0 = *g;
    g0.Dr = 0;
    pair t0 = texts(&g0, q, k, v, qr, kr);
    run m, p;
    run_text(&m, t.mla, 0);
    run_text(&p, t0.plain, 0);
    compare_runs(&m, &p, g->D, 0, 0, what);
    run_free(&m), run_free(&p);
    free(t.mla), free(t.plain), free(t0.mla), free(t0.plain);
    free(q), free(qr), free(k), free(kr), free(v);
}

static void test_zero_rope(void)
{
    geom g = {"BNSD", "fp16", 2, 4, 2, 2, 20, 16, 8, .extra = ""};
    zero_case(&g, 0, "BNSD fp16, q_rope 0");
    zero_case(&g, 1, "BNSD fp16, rope 0");
    geom h = {"BSH", "bf16", 2, 2, 1, 1, 12, 16, 8, .extra = ""};
    zero_case(&h, 0, "BSH bf16 Q_S 1, q_rope 0");
    geom t = {"TND", "bf16", 2, 2, 1, 5, 22, 16, 8,
              .extra = "actual_seq_lengths = [3,5]\n"
                       "actual_seq_lengths_kv = [10,22]"};
    zero_case(&t, 0, "TND bf16, q_rope 0");
}

/* ---- 3. refusals --------------------------------------------------------- */

static void refused(const char *text, fia_status want, const char *needle,
                    const char *what)
{
    run x;
    run_text(&x, text, 0);
    CHECK_MSG(x.ok && x.st == want && strstr(x.err.msg, needle) != NULL &&
                  x.r.out.data == NULL,
              "%s: status %d (want %d), message '%s' (want '%s')", what,
              (int)x.st, (int)want, x.err.msg, needle);
    run_free(&x);
}

static void test_refusals(void)
{
    char t[1024];
    const char *bnsd = "input_layout = BNSD\nnum_heads = 2\n"
                       "num_key_value_heads = 1\n"
                       "query = fp16 [1,2,3,16]\nkey = fp16 [1,1,9,16]\n"
                       "value = fp16 [1,1,9,16]\n";
    static const struct {
        const char *rope, *needle, *what;
        fia_status st;
    } bad[] = {
        {"query_rope = fp16 [1,2,4,8]\nkey_rope = fp16 [1,1,9,8]",
         "query_rope shape [1,2,4,8]", "query_rope S", FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,1,3,8]\nkey_rope = fp16 [1,1,9,8]",
         "query_rope shape", "query_rope N", FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,2,3,8]\nkey_rope = fp16 [1,1,8,8]",
         "key_rope shape [1,1,8,8]", "key_rope S", FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,2,3,8]\nkey_rope = fp16 [1,1,9,4]",
         "replaced by 8", "key_rope Dr unlike query_rope's",
         FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,2,3,8]\nkey_rope = fp16 [1,9,8]",
         "key_rope shape [1,9,8]", "key_rope rank", FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,2,3,0]\nkey_rope = fp16 [1,1,9,0]",
         "outside [1, 2^40)", "Dr 0", FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,2,3,8]", "query_rope given without key_rope",
         "query_rope alone", FIA_ERR_PARAM_INVALID},
        {"key_rope = fp16 [1,1,9,8]", "key_rope given without query_rope",
         "key_rope alone", FIA_ERR_PARAM_INVALID},
        {"query_rope = bf16 [1,2,3,8]\nkey_rope = fp16 [1,1,9,8]",
         "query_rope bf16", "query_rope dtype", FIA_ERR_PARAM_INVALID},
        {"query_rope = fp16 [1,2,3,8]\nkey_rope = fp16 [1,1,9,8]\n"
         "key_shared_prefix = fp16 [1,1,4,16]\n"
         "value_shared_prefix = fp16 [1,1,4,16]",
         "shared prefix", "rope with a prefix", FIA_ERR_NOT_MODELED},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(t, sizeof t, "%s%s\n", bnsd, bad[i].rope);
        refused(t, bad[i].st, bad[i].needle, bad[i].what);
    }
    /* BSH: H_r not N Dr / key's H_r not KV_N Dr */
    refused("input_layout = BSH\nnum_heads = 2\nnum_key_value_heads = 1\n"
            "query = fp16 [1,3,32]\n"
            "key = fp16 [1,9,16]\nvalue = fp16 [1,9,16]\n"
            "query_rope = fp16 [1,3,15]\nkey_rope = fp16 [1,9,8]\n",
            FIA_ERR_PARAM_INVALID, "not divisible by N", "BSH H_r");
    refused("input_layout = BSH\nnum_heads = 2\nnum_key_value_heads = 2\n"
            "query = fp16 [1,3,32]\nkey = fp16 [1,9,32]\n"
            "value = fp16 [1,9,32]\nquery_rope = fp16 [1,3,16]\n"
            "key_rope = fp16 [1,9,8]\n",
            FIA_ERR_PARAM_INVALID, "key_rope shape [1,9,8]", "BSH key H_r");
    /* a paged key_rope must be a cache like the key's */
    refused("input_layout = BNSD\nnum_heads = 2\n"
            "num_key_value_heads = 1\nquery = fp16 [1,2,1,16]\nkey = fp16 [4,1,16,16]\n"
            "value = fp16 [4,1,16,16]\nblock_size = 16\n"
            "block_table = int32 [1,2]\nactual_seq_lengths_kv = [20]\n"
            "query_rope = fp16 [1,2,1,8]\nkey_rope = fp16 [2,1,16,8]\n",
            FIA_ERR_PARAM_INVALID, "key_rope shape [2,1,16,8]",
            "paged key_rope blocknum");
    refused("input_layout = BNSD\nnum_heads = 2\n"
            "num_key_value_heads = 1\nquery = fp16 [1,2,1,16]\nkey = fp16 [4,16,16]\n"
            "value = fp16 [4,16,16]\nblock_size = 16\n"
            "block_table = int32 [1,2]\nactual_seq_lengths_kv = [20]\n"
            "query_rope = fp16 [1,2,1,8]\nkey_rope = fp16 [4,1,16,8]\n",
            FIA_ERR_PARAM_INVALID, "key_rope shape [4,1,16,8]",
            "paged key_rope rank");
    /* token layout: key_rope's T_kv */
    refused("input_layout = TND\nnum_heads = 2\nnum_key_value_heads = 1\n"
            "query = bf16 [5,2,16]\n"
            "key = bf16 [22,1,16]\nvalue = bf16 [22,1,16]\n"
            "actual_seq_lengths = [3,5]\nactual_seq_lengths_kv = [10,22]\n"
            "query_rope = bf16 [5,2,8]\nkey_rope = bf16 [21,1,8]\n",
            FIA_ERR_PARAM_INVALID, "key_rope shape [21,1,8]", "TND T_kv");
    /* int8 key/value with rope: antiquant, not modeled */
    refused("input_layout = BNSD\nnum_heads = 2\n"
            "num_key_value_heads = 1\nquery = fp16 [1,2,1,16]\nkey = int8 [1,1,9,16]\n"
            "value = int8 [1,1,9,16]\nantiquant_scale = fp16 [2,1,16]\n"
            "query_rope = fp16 [1,2,1,8]\nkey_rope = fp16 [1,1,9,8]\n",
            FIA_ERR_NOT_MODELED, "antiquant", "rope with antiquant");
}

/* ---- 4. the bound covers the rope term ----------------------------------- */

/* A float32 kernel's scores of row (n, i): order 0 q k and q_rope k_rope
 * apart, then added; 1 one loop, rope last; 2 one loop, rope first. */
static void f32_scores(int order, const double *q, const double *qr,
                       const double *k, const double *kr, int64_t D,
                       int64_t Dr, int64_t KVS, float scale, double *s)
{
    for (int64_t j = 0; j < KVS; j++) {
        float a = 0.0f, r = 0.0f, acc = 0.0f;
        for (int64_t d = 0; d < D; d++)
            a += (float)q[d] * (float)k[j * D + d];
        for (int64_t d = 0; d < Dr; d++)
            r += (float)qr[d] * (float)kr[j * Dr + d];
        if (order == 0) {
            acc = a + r;
        } else if (order == 1) {
            for (int64_t d = 0; d < D; d++)
                acc += (float)q[d] * (float)k[j * D + d];
            for (int64_t d = 0; d < Dr; d++)
                acc += (float)qr[d] * (float)kr[j * Dr + d];
        } else {
            for (int64_t d = 0; d < Dr; d++)
                acc += (float)qr[d] * (float)kr[j * Dr + d];
            for (int64_t d = 0; d < D; d++)
                acc += (float)q[d] * (float)k[j * D + d];
        }
        s[j] = (double)(acc * scale);
    }
}

static void test_bound(void)
{
    /* BNSD, B 1, N 2 on one KV head, Q_S 3, 24 keys, D 16 + Dr 8, fp16 at
     * high precision (P not rounded): q, k small (|q k| < 2^-4 each), the
     * rope 64 everywhere: q_rope . k_rope = 32768 for every key, a float32
     * ulp of 2^-8 there */
    const int64_t N = 2, QS = 3, KVS = 24, D = 16, Dr = 8;
    geom g = {"BNSD", "fp16", 1, N, 1, QS, KVS, D, Dr,
              .extra = "inner_precise = 0"};
    double *q = gen(N * QS * D, 0.0625, "fp16"), *k = gen(KVS * D, 0.0625, "fp16");
    double *v = gen(KVS * D, 1.0, "fp16");
    double *qr = gen(N * QS * Dr, 0.0, "fp16"), *kr = gen(KVS * Dr, 0.0, "fp16");
    for (int64_t i = 0; i < N * QS * Dr; i++)
        qr[i] = 64.0;
    for (int64_t i = 0; i < KVS * Dr; i++)
        kr[i] = 64.0;
    pair t = texts(&g, q, k, v, qr, kr);
    geom g0 = g;
    g0.Dr = 0;
    pair t0 = texts(&g0, q, k, v, qr, kr);
    run m, p;
    run_text(&m, t.mla, 0);
    run_text(&p, t0.plain, 0); /* no rope: a bound without the rope term */
    CHECK_MSG(m.st == FIA_OK && p.st == FIA_OK, "bound case: %d %d %s %s",
              (int)m.st, (int)p.st, m.err.msg, p.err.msg);
    if (m.st == FIA_OK && p.st == FIA_OK) {
        double *s = malloc((size_t)KVS * sizeof *s);
        int over = 0, beyond_norope = 0, inf = 0;
        double worst = 0.0, worst_lse = 0.0;
        for (int order = 0; order < 3; order++)
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < QS; i++) {
                    const int64_t row = n * QS + i;
                    f32_scores(order, q + row * D, qr + row * Dr, k, kr, D,
                               Dr, KVS, 0.1875f, s);
                    double mx = -INFINITY, S = 0.0;
                    for (int64_t j = 0; j < KVS; j++)
                        mx = s[j] > mx ? s[j] : mx;
                    for (int64_t j = 0; j < KVS; j++)
                        S += exp(s[j] - mx);
                    for (int64_t d = 0; d < D; d++) {
                        double num = 0.0;
                        for (int64_t j = 0; j < KVS; j++)
                            num += exp(s[j] - mx) * v[j * D + d];
                        const int64_t e = row * D + d;
                        const double err = fabs(num / S - m.r.out_exact[e]);
                        inf += !isfinite(m.r.out_bound[e]);
                        over += !(err <= m.r.out_bound[e]);
                        beyond_norope += err > p.r.out_bound[e];
                        worst = err > worst ? err : worst;
                    }
                    const double lerr = fabs(mx + log(S) - m.r.lse_exact[row]);
                    over += !(lerr <= m.r.lse_bound[row]);
                    worst_lse = lerr > worst_lse ? lerr : worst_lse;
                }
        CHECK_MSG(inf == 0, "rope bound: %d bounds infinite", inf);
        CHECK_MSG(over == 0, "rope bound: %d float32 errors beyond the bound "
                  "(worst output error %g, lse %g)", over, worst, worst_lse);
        /* the test means something: the float32 errors are the rope's,
         * beyond what the call without rope allows */
        CHECK_MSG(beyond_norope > 0 && worst > 1e-4,
                  "rope bound: float32 error %g never beyond the no-rope "
                  "bound", worst);
        free(s);
    }
    run_free(&m), run_free(&p);
    free(t.mla), free(t.plain), free(t0.mla), free(t0.plain);
    free(q), free(qr), free(k), free(kr), free(v);
}

int main(void)
{
    test_concat();
    test_zero_rope();
    test_refusals();
    test_bound();
    return check_summary();
}
