/* learnable_sink in fuzz/ (gen_sink.c): fuzz_numeric puts a bf16 [N]
 * sink on some valid cases, MLA's included (D 512, D 128 and MLA's full
 * quantization: calls the rules accept, N = num_heads), never on 002's
 * full int8 (an int8 query without rope: not modeled there, NM-015), with
 * values near, far above and far below the scores; fuzz_params puts sinks
 * of every kind on calls, some breaking the dtype or the shape.  The cases
 * are read back (and judged by the oracle), not run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/oracle.h"
#include "fuzz/bytes.h"
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz_testlib.h"

static int has_sink(const fia_case *c)
{
    return c->tensors[FIA_SLOT_LEARNABLE_SINK].presence == FIA_PRESENT;
}

static int has_rope(const fia_case *c)
{
    return c->tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT ||
           c->tensors[FIA_SLOT_KEY_ROPE].presence == FIA_PRESENT;
}

/* The query's head dim (BSH: H / N). */
static int64_t query_d(const fia_case *c)
{
    const fia_tensor *q = &c->tensors[FIA_SLOT_QUERY].t[0];
    int64_t d = q->shape[q->ndim - 1];
    if (strncmp(c->attrs.input_layout, "BSH", 3) == 0)
        d /= c->attrs.num_heads;
    return d;
}

/* Both profiles accept the call (a sink on MLA is computed, not refused). */
static int accepted(const fia_case *c)
{
    static const fia_profile ps[] = {FIA_PROFILE_DOC, FIA_PROFILE_CANN};
    for (int k = 0; k < 2; k++) {
        fia_oracle_verdict v;
        if (fia_oracle_evaluate(c, ps[k], &v, NULL) != 0 || !v.accept)
            return 0;
    }
    return 1;
}

static void test_numeric(void)
{
    fuzz_rng r = {2611};
    static uint8_t buf[2048];
    int n = 0, bad = 0, above = 0, below = 0, near = 0, decode = 0;
    int full_int8 = 0, int8_quant_sink = 0, mla512 = 0, mla128 = 0,
        mla_query_quant = 0, mla_refused = 0;
    /* 20000 inputs, more (up to 100000) until each MLA scene has had two
     * sinks: an MLA case is 2 % of the inputs, a sink 8 % of those (a
     * sampled run, which counts nothing, stops at its share of 20000) */
    const int sampled = check_draw_divisor() > 1;
    for (int it = 0; it < check_draws(100000); it++) {
        if (it >= check_draws(20000) &&
            (sampled || (mla512 >= 2 && mla128 >= 2 && mla_query_quant >= 2)))
            break;
        size_t len = ftl_random_input(&r, buf, 64, sizeof buf);
        fia_case c;
        if (fuzz_decode_numeric(buf, len, &c) != FIA_OK) {
            fia_case_free(&c);
            continue;
        }
        const fia_tensor *q = &c.tensors[FIA_SLOT_QUERY].t[0];
        const int q_int8 = q->dtype == FIA_DT_INT8;
        /* 002's full int8 (no rope): never a sink */
        full_int8 += q_int8 && !has_rope(&c);
        int8_quant_sink += q_int8 && !has_rope(&c) && has_sink(&c);
        if (!has_sink(&c)) {
            fia_case_free(&c);
            continue;
        }
        n++;
        const fia_tensor *s = &c.tensors[FIA_SLOT_LEARNABLE_SINK].t[0];
        bad += s->dtype != FIA_DT_BF16 || s->ndim != 1 ||
               s->shape[0] != c.attrs.num_heads;
        if (has_rope(&c)) { /* MLA: a call the rules accept */
            mla_query_quant += q_int8;
            mla512 += !q_int8 && query_d(&c) == 512;
            mla128 += !q_int8 && query_d(&c) == 128;
            mla_refused += !accepted(&c);
        }
        const fia_gen *gen = &c.tensors[FIA_SLOT_LEARNABLE_SINK].gen;
        above += gen->a >= 8.0;
        below += gen->b <= -20.0;
        near += gen->a > -5.0 && gen->b < 5.0;
        const int tnd = fia_layout_is_tnd(c.attrs.input_layout);
        const int s_axis = strcmp(c.attrs.input_layout, "BNSD") == 0 ? 2 : 1;
        decode += !tnd && q->ndim >= 3 && q->shape[s_axis] == 1;
        fia_case_free(&c);
    }
    fprintf(stderr,
            "numeric: %d cases with a sink (%d near the scores, %d "
            "far above, %d far below, %d decode), %d malformed; MLA: %d D "
            "512, %d D 128, %d full quantization, %d refused; 002's full "
            "int8: %d cases, %d with a sink\n",
            n, near, above, below, decode, bad, mla512, mla128, mla_query_quant,
            mla_refused, full_int8, int8_quant_sink);
    CHECK_COUNT(n >= 200);
    CHECK_EQ_INT(bad, 0);
    CHECK_COUNT(near > 0 && above > 0 && below > 0 && decode > 0);
    CHECK_COUNT(mla512 >= 2 && mla128 >= 2 && mla_query_quant >= 2);
    CHECK_EQ_INT(mla_refused, 0);
    CHECK_COUNT(full_int8 > 0);
    CHECK_EQ_INT(int8_quant_sink, 0);
}

static void test_params(void)
{
    fuzz_rng r = {2612};
    static uint8_t buf[2048];
    int n = 0, other_dtype = 0, other_shape = 0, plain = 0;
    for (int it = 0; it < check_draws(20000); it++) {
        size_t len = ftl_random_input(&r, buf, 32, sizeof buf);
        fia_case c;
        if (fuzz_decode_params(buf, len, &c) != FIA_OK || !has_sink(&c)) {
            fia_case_free(&c);
            continue;
        }
        n++;
        const fia_tensor *s = &c.tensors[FIA_SLOT_LEARNABLE_SINK].t[0];
        const int shape_ok = s->ndim == 1 && s->shape[0] == c.attrs.num_heads;
        other_dtype += s->dtype != FIA_DT_BF16;
        other_shape += !shape_ok;
        plain += s->dtype == FIA_DT_BF16 && shape_ok;
        fia_case_free(&c);
    }
    fprintf(stderr, "params: %d calls with a sink (%d of another dtype, %d "
            "of another shape, %d bf16 [N])\n", n, other_dtype, other_shape,
            plain);
    CHECK_COUNT(n >= 200);
    CHECK_COUNT(other_dtype > 0 && other_shape > 0 && plain > n / 2);
}

int main(void)
{
    test_numeric();
    test_params();
    return check_summary();
}
