/* learnable_sink in fuzz/ (gen_sink.c): fuzz_numeric puts a bf16 [N]
 * sink on some valid cases, never on full int8 or MLA (not modeled there),
 * with values near, far above and far below the scores; fuzz_params puts
 * sinks of every kind on calls, some breaking the dtype or the shape.
 * The cases are read back, not run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fuzz/fdp.h"
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz_testlib.h"

static int has_sink(const fia_case *c)
{
    return c->tensors[FIA_SLOT_LEARNABLE_SINK].presence == FIA_PRESENT;
}

static void test_numeric(void)
{
    fuzz_rng r = {2611};
    static uint8_t buf[2048];
    int n = 0, bad = 0, above = 0, below = 0, near = 0, decode = 0;
    for (int it = 0; it < 20000; it++) {
        size_t len = ftl_random_input(&r, buf, 64, sizeof buf);
        fia_case c;
        if (fuzz_decode_numeric(buf, len, &c) != FIA_OK || !has_sink(&c)) {
            fia_case_free(&c);
            continue;
        }
        n++;
        const fia_tensor *s = &c.tensors[FIA_SLOT_LEARNABLE_SINK].t[0];
        const fia_tensor *q = &c.tensors[FIA_SLOT_QUERY].t[0];
        bad += s->dtype != FIA_DT_BF16 || s->ndim != 1 ||
               s->shape[0] != c.attrs.num_heads || q->dtype == FIA_DT_INT8 ||
               c.tensors[FIA_SLOT_QUERY_ROPE].presence == FIA_PRESENT;
        const fia_gen *gen = &c.tensors[FIA_SLOT_LEARNABLE_SINK].gen;
        above += gen->a >= 8.0;
        below += gen->b <= -20.0;
        near += gen->a > -5.0 && gen->b < 5.0;
        const int tnd = fia_layout_is_tnd(c.attrs.input_layout);
        const int s_axis = strcmp(c.attrs.input_layout, "BNSD") == 0 ? 2 : 1;
        decode += !tnd && q->ndim >= 3 && q->shape[s_axis] == 1;
        fia_case_free(&c);
    }
    fprintf(stderr, "numeric: %d cases with a sink (%d near the scores, %d "
            "far above, %d far below, %d decode), %d malformed\n", n, near,
            above, below, decode, bad);
    CHECK(n >= 200);
    CHECK_EQ_INT(bad, 0);
    CHECK(near > 0 && above > 0 && below > 0 && decode > 0);
}

static void test_params(void)
{
    fuzz_rng r = {2612};
    static uint8_t buf[2048];
    int n = 0, other_dtype = 0, other_shape = 0, plain = 0;
    for (int it = 0; it < 20000; it++) {
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
    CHECK(n >= 200);
    CHECK(other_dtype > 0 && other_shape > 0 && plain > n / 2);
}

int main(void)
{
    test_numeric();
    test_params();
    return check_summary();
}
