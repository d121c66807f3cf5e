/* sparse (metamorphic): a sparse mode (2-4, or 0 with tokens) against the
 * explicit mask it stands for, under sparse mode 0 or 1 (transform
 * "sparse-to-mask=<0|1>"). */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static void drop_attr(fia_case *c, fia_attr a, int64_t dflt)
{
    if (a == FIA_ATTR_PRE_TOKENS)
        c->attrs.pre_tokens = dflt;
    else if (a == FIA_ATTR_NEXT_TOKENS)
        c->attrs.next_tokens = dflt;
    c->attr_given[a] = false;
}

static int64_t clamp32(int64_t x)
{
    return x > 2147483647LL ? 2147483647LL
           : x < -2147483648LL ? -2147483648LL : x;
}

/* The explicit [B, Q_S, KV_S] mask equivalent to c's sparse mode. */
static fia_status sparse_to_mask(const fia_case *c, const fz_geom *g,
                                 int mode2, fia_case *out, fia_error *err)
{
    int64_t sm = c->attrs.sparse_mode;
    const fia_tensor_spec *ms = &c->tensors[FIA_SLOT_ATTEN_MASK];
    int have_mask = ms->presence == FIA_PRESENT;
    if (g->Q_S == 1 || !have_mask || sm < 0 || sm > 4 || sm == 1 ||
        (sm == 0 && !c->attr_given[FIA_ATTR_PRE_TOKENS] &&
                     !c->attr_given[FIA_ATTR_NEXT_TOKENS]))
        return fia_fail(err, FIA_ERR_BAD_INPUT, "no sparse mode to write as "
                        "a mask (decode, no mask, mode 1, or mode 0 without "
                        "tokens)");
    double *old = NULL;
    int64_t on = 0, orows = 0, ocols = 0, ob = 0;
    if (sm == 0) {
        fia_status st = fz_slot_data(c, FIA_SLOT_ATTEN_MASK, &old, &on, err);
        if (st != FIA_OK)
            return st;
        const fia_tensor *mt = &ms->t[0];
        if (mt->ndim < 2) {
            free(old);
            return fia_fail(err, FIA_ERR_BAD_INPUT, "a mask of rank %d",
                            mt->ndim);
        }
        orows = mt->shape[mt->ndim - 2], ocols = mt->shape[mt->ndim - 1];
        ob = mt->ndim >= 3 && mt->shape[0] == g->B && g->B > 1;
    }
    int64_t n = g->B * g->Q_S * g->KV_S;
    double *m = calloc((size_t)(n > 0 ? n : 1), sizeof *m);
    if (m == NULL) {
        free(old);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the mask");
    }
    int64_t pre = clamp32(c->attrs.pre_tokens), next = clamp32(c->attrs.next_tokens);
    for (int64_t b = 0; b < g->B; b++) {
        int64_t off = fz_kv_len(c, g, b) - fz_q_len(c, g, b);
        for (int64_t i = 0; i < g->Q_S; i++)
            for (int64_t j = 0; j < g->KV_S; j++) {
                int in;
                switch (sm) {
                case 0:
                    in = old[((ob ? b : 0) * orows + i) * ocols + j] == 0 &&
                         j >= i - pre && j <= i + next;
                    break;
                case 2: in = j <= i; break;
                case 3: in = j <= i + off; break;
                default: in = j >= i + off - pre && j <= i + off + next; break;
                }
                m[(b * g->Q_S + i) * g->KV_S + j] = !in;
            }
    }
    free(old);
    int64_t sh[3] = {g->B, g->Q_S, g->KV_S};
    if (fz_case_tensor(out, FIA_SLOT_ATTEN_MASK, FIA_DT_BOOL, 3, sh) != FIA_OK) {
        free(m);
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for the mask");
    }
    fz_case_values(out, FIA_SLOT_ATTEN_MASK, m, n);
    fz_case_attr(out, FIA_ATTR_SPARSE_MODE, mode2);
    drop_attr(out, FIA_ATTR_PRE_TOKENS, 2147483647LL);
    drop_attr(out, FIA_ATTR_NEXT_TOKENS, 2147483647LL);
    return FIA_OK;
}

fia_status fz_meta_sparse_to_mask(const fia_case *c, const fz_geom *g,
                                  const char *arg, fia_case *out,
                                  fia_error *err)
{
    return sparse_to_mask(c, g, arg[0] == '1' ? 1 : 0, out, err);
}
