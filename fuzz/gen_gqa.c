/* GQA's part of a generated case: the key/value heads and
 * num_key_value_heads.  Fragment contract: fuzz/gen.h. */
#include "fuzz/gen.h"

/* ---- fuzz_params ------------------------------------------------------------ */

/* Sets KV_N from N: N, a divisor of it, or one that does not divide it
 * (and, at the head-count limits, N too). */
void fz_params_gqa_heads(fz_gen *g)
{
    fz_bytes *f = g->f;
    g->KV_N = g->N;
    static const int kw[] = {58, 32, 3, 3, 2, 2};
    switch (fz_wpick(g, kw, FZ_ARRLEN(kw), 2)) {
    case 0: break;
    case 1: /* a divisor */
        for (int64_t k = fz_bytes_range(f, 0, 6); k > 0 && g->KV_N % 2 == 0; k--)
            g->KV_N /= 2;
        break;
    case 2: g->KV_N = g->N > 1 ? g->N - 1 : 2; break;
    case 3: g->KV_N = g->N * 2; break;
    case 4:
        g->N = fz_bytes_bool(f) ? 128 : 130;
        g->KV_N = fz_bytes_bool(f) ? 1 : 2;
        break;
    default: g->KV_N = 1, g->N = 64 + fz_bytes_range(f, 0, 1); break;
    }
}

/* num_key_value_heads: KV_N, 0 (= N) when they agree, -1 now and then;
 * given or left out. */
void fz_params_gqa_attr(fz_gen *g)
{
    int64_t kvh = g->KV_N == g->N && fz_bytes_bool(g->f) ? 0 : g->KV_N;
    if (fz_odd(g, 2))
        kvh = -1;
    if (kvh != 0 || fz_bytes_bool(g->f))
        fz_case_attr(g->c, FIA_ATTR_NUM_KEY_VALUE_HEADS, kvh);
}

/* ---- fuzz_numeric ----------------------------------------------------------- */

/* Sets KV_N and N, a multiple of it (groups up to 8 when the case aims
 * at many query rows per task). */
void fz_numeric_gqa_heads(fz_gen *g)
{
    g->KV_N = fz_bytes_range(g->f, 1, 2);
    g->N = g->KV_N * fz_bytes_range(g->f, 1, g->reach == FZ_REACH_ROWS ? 8 : 3);
}

/* num_key_value_heads: given when it differs from N, else now and then. */
void fz_numeric_gqa_attr(fz_gen *g)
{
    if (g->KV_N != g->N || fz_bytes_bool(g->f))
        fz_case_attr(g->c, FIA_ATTR_NUM_KEY_VALUE_HEADS, g->KV_N);
}
