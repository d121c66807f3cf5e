/* The reference's bound with int8 key and value (docs/tolerance.md
 * "Antiquant": the dequantized k and v rounded to the query's dtype,
 * x(1 + d) + e, |d| <= 3 u_q): a float32 kernel of the permitted algorithm
 * written here (dequantize in float32 or in the dtype, round to the
 * dtype, scores fl(dot * scale), an online softmax over blocks of 1, 16 or
 * all keys, P rounded to the dtype when the model says so) is within the
 * bound on every output and lse, per-channel (fp16 / bf16 scale and
 * offset) and per-token (fp32) scales, fp16 and bf16, both inner_precise
 * modes; and the new term is needed: the same kernel's error leaves the
 * bound the rows would have without it (ref_dbl_row with u_kv = 0) on many
 * runs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/compare.h"
#include "fia/dtype.h"
#include "fia/ref.h"
#include "tolerance_testlib.h"
#include "ref/ref_internal.h"

#define NQ 2 /* query heads, on one KV head */
#define QS 3


/* Scale / offset element of key (w 0) or value (1) row j, column d:
 * per-channel [1, D] or per-token [1, KV_S]. */
static void param(const call *x, int w, int64_t j, int64_t d, double *s,
                  double *o)
{
    const fia_tensor *st = x->d.t[w ? FIA_SLOT_VALUE_ANTIQUANT_SCALE
                                    : FIA_SLOT_KEY_ANTIQUANT_SCALE];
    const fia_tensor *ot = x->d.t[w ? FIA_SLOT_VALUE_ANTIQUANT_OFFSET
                                    : FIA_SLOT_KEY_ANTIQUANT_OFFSET];
    const int64_t e = st->dtype == FIA_DT_FP32 ? j : d;
    *s = fia_load_as_double(st->dtype, st->data, e);
    *o = ot ? fia_load_as_double(ot->dtype, ot->data, e) : 0.0;
}

/* The exact dequantized element (binary64: fp16 / bf16 parameters make it
 * exact; fp32 ones only to the nearest, used for the exactness-free kernel
 * inputs below). */
static double exact_kv(const call *x, int w, int64_t j, int64_t d)
{
    const fia_tensor *t = x->d.t[w ? FIA_SLOT_VALUE : FIA_SLOT_KEY];
    double s, o;
    param(x, w, j, d, &s, &o);
    return (fia_load_as_double(t->dtype, t->data, j * t->shape[3] + d) + o) *
           s;
}

/* What the kernel uses: dequantized in float32 (fl(fl(x + o) * s)) or in
 * the dtype (each step rounded to it), then rounded to the dtype. */
static float kernel_kv(const call *x, int w, int64_t j, int64_t d, int in_dt,
                       fia_dtype dt)
{
    const fia_tensor *t = x->d.t[w ? FIA_SLOT_VALUE : FIA_SLOT_KEY];
    double s, o;
    param(x, w, j, d, &s, &o);
    const float xi = (float)fia_load_as_double(t->dtype, t->data,
                                               j * t->shape[3] + d);
    if (in_dt)
        return to_dt(to_dt(xi + (float)o, dt) * (float)s, dt);
    return to_dt((xi + (float)o) * (float)s, dt);
}

/* The permitted float32 pipeline (BNSD, B = 1, one KV head): out
 * [NQ][QS][D] in the dtype, raw before its rounding, lse [NQ][QS]. */
static void kernel(const call *x, int blk, int round_p, int in_dt, void *out,
                   float *lse, float *raw)
{
    const fia_tensor *q = x->d.t[FIA_SLOT_QUERY], *k = x->d.t[FIA_SLOT_KEY];
    const fia_dtype dt = q->dtype;
    const int64_t D = q->shape[3], KVS = k->shape[2];
    const float sc = (float)x->c.attrs.scale;
    float *kk = malloc(sizeof(float) * (size_t)(KVS * D));
    float *vv = malloc(sizeof(float) * (size_t)(KVS * D));
    for (int64_t j = 0; j < KVS; j++)
        for (int64_t d = 0; d < D; d++) {
            kk[j * D + d] = kernel_kv(x, 0, j, d, in_dt, dt);
            vv[j * D + d] = kernel_kv(x, 1, j, d, in_dt, dt);
        }
    float *s = malloc(sizeof(float) * (size_t)KVS);
    float *acc = malloc(sizeof(float) * (size_t)D);
    for (int64_t n = 0; n < NQ; n++)
        for (int64_t i = 0; i < QS; i++) {
            float m = -INFINITY, l = 0.0f;
            for (int64_t d = 0; d < D; d++)
                acc[d] = 0.0f;
            for (int64_t j0 = 0; j0 < KVS; j0 += blk) {
                int64_t j1 = j0 + blk < KVS ? j0 + blk : KVS;
                float bm = -INFINITY;
                for (int64_t j = j0; j < j1; j++) {
                    float dot = 0.0f;
                    for (int64_t d = 0; d < D; d++)
                        dot += (float)fia_load_as_double(
                                   dt, q->data, (n * QS + i) * D + d) *
                               kk[j * D + d];
                    s[j] = dot * sc;
                    bm = s[j] > bm ? s[j] : bm;
                }
                float mn = bm > m ? bm : m;
                float alpha = expf(m - mn);
                l *= alpha;
                for (int64_t d = 0; d < D; d++)
                    acc[d] *= alpha;
                for (int64_t j = j0; j < j1; j++) {
                    float p = expf(s[j] - mn);
                    l += p;
                    float pr = round_p ? to_dt(p, dt) : p;
                    for (int64_t d = 0; d < D; d++)
                        acc[d] += pr * vv[j * D + d];
                }
                m = mn;
            }
            for (int64_t d = 0; d < D; d++) {
                float o = acc[d] / l;
                raw[(n * QS + i) * D + d] = o;
                ((uint16_t *)out)[(n * QS + i) * D + d] =
                    dt == FIA_DT_BF16 ? fia_double_to_bf16(o)
                                      : fia_double_to_fp16(o);
            }
            lse[n * QS + i] = m + logf(l);
        }
    free(kk), free(vv), free(s), free(acc);
}

/* The bounds of the rows without the antiquant term (u_kv = eta_kv = 0),
 * from the exact dequantized values (per-channel fp16 / bf16 parameters:
 * exact in binary64) into bound[NQ][QS][D]. */
static void bounds_without(const call *x, int round_p, double *bound)
{
    const fia_tensor *q = x->d.t[FIA_SLOT_QUERY], *k = x->d.t[FIA_SLOT_KEY];
    const int64_t D = q->shape[3], KVS = k->shape[2];
    double *kb = malloc(sizeof(double) * (size_t)(KVS * D));
    double *vb = malloc(sizeof(double) * (size_t)(KVS * D));
    double *qr = malloc(sizeof(double) * (size_t)D);
    int64_t *keys = malloc(sizeof(int64_t) * (size_t)KVS);
    for (int64_t j = 0; j < KVS; j++) {
        keys[j] = j;
        for (int64_t d = 0; d < D; d++) {
            kb[j * D + d] = exact_kv(x, 0, j, d);
            vb[j * D + d] = exact_kv(x, 1, j, d);
        }
    }
    ref_dbl dbl;
    row_out ro;
    CHECK(ref_dbl_init(&dbl, KVS, D) == FIA_OK);
    CHECK(ref_row_out_init(&ro, D) == FIA_OK);
    ref_row_in in = {.q = qr, .kbuf = kb, .vbuf = vb, .keys = keys,
                     .nk = KVS, .D = D, .scale = x->c.attrs.scale,
                     .fmt = q->dtype == FIA_DT_BF16 ? REF_FMT_BF16
                                                    : REF_FMT_FP16,
                     .want_lse = 1, .round_p = round_p,
                     .in_dtype = q->dtype};
    for (int64_t r = 0; r < NQ * QS; r++) {
        for (int64_t d = 0; d < D; d++)
            qr[d] = fia_load_as_double(q->dtype, q->data, r * D + d);
        memset(ro.done, 0, (size_t)D);
        ro.lse_done = 0;
        ref_dbl_row(&dbl, &in, &ro);
        memcpy(bound + r * D, ro.bound, sizeof(double) * (size_t)D);
    }
    ref_row_out_free(&ro);
    ref_dbl_free(&dbl);
    free(kb), free(vb), free(qr), free(keys);
}

static char *text_of(const char *dt, int64_t D, int64_t KVS, int token,
                     int ip, uint64_t seed)
{
    static char buf[2048];
    char shape[32];
    const char *pdt = token ? "fp32" : dt;
    snprintf(shape, sizeof shape, "[1,%lld]", (long long)(token ? KVS : D));
    snprintf(buf, sizeof buf,
             "input_layout = BNSD\nnum_heads = %d\nnum_key_value_heads = 1\n"
             "scale = %.17g\ninner_precise = %d\nsoftmax_lse_flag = true\n"
             "query = %s [1,%d,%d,%lld]\nquery.gen = normal(0,2)\n"
             "key = int8 [1,1,%lld,%lld]\nkey.gen = uniform(-128,127)\n"
             "value = int8 [1,1,%lld,%lld]\nvalue.gen = uniform(-128,127)\n"
             "key_antiquant_mode = %d\nvalue_antiquant_mode = %d\n"
             "key_antiquant_scale = %s %s\n"
             "key_antiquant_scale.gen = uniform(0.005,0.03)\n"
             "value_antiquant_scale = %s %s\n"
             "value_antiquant_scale.gen = uniform(0.005,0.03)\n"
             "key_antiquant_offset = %s %s\n"
             "key_antiquant_offset.gen = uniform(-20,20)\n"
             "value_antiquant_offset = %s %s\n"
             "value_antiquant_offset.gen = uniform(-20,20)\n"
             "seed = %llu\n", NQ, 1.0 / sqrt((double)D), ip, dt, NQ, QS,
             (long long)D, (long long)KVS, (long long)D, (long long)KVS,
             (long long)D, token, token, pdt, shape, pdt, shape, pdt, shape,
             pdt, shape, (unsigned long long)seed);
    return buf;
}

int main(void)
{
    static const char *dts[] = {"fp16", "bf16"};
    static const int64_t Ds[] = {16, 64}, kvss[] = {7, 40, 130};
    int64_t runs = 0, fails = 0, need = 0, need_runs = 0;
    double worst = 0, tight[2] = {0, 0}, without[2] = {0, 0};
    uint64_t seed = 1;
    for (int t = 0; t < 2; t++)
        for (int di = 0; di < 2; di++)
            for (int ki = 0; ki < 3; ki++)
                for (int token = 0; token < 2; token++)
                    for (int ip = 0; ip < 2; ip++, seed++) {
                        const int64_t D = Ds[di], KVS = kvss[ki];
                        call x;
                        if (!open_call(&x, text_of(dts[t], D, KVS, token, ip,
                                                   seed)))
                            continue;
                        int round_p = t == 1 || ip == 1;
                        fia_tensor got = x.r.out, glse = x.r.lse;
                        got.data = malloc((size_t)x.r.out_numel * 2);
                        glse.data = malloc((size_t)x.r.lse_numel * 4);
                        float *raw = malloc((size_t)x.r.out_numel * 4);
                        double *bw = malloc((size_t)x.r.out_numel * 8);
                        if (!token)
                            bounds_without(&x, round_p, bw);
                        static const int blks[] = {1, 16, 1 << 20};
                        for (int b = 0; b < 3; b++)
                            for (int in_dt = 0; in_dt < 2; in_dt++) {
                                kernel(&x, blks[b], round_p, in_dt, got.data,
                                       glse.data, raw);
                                int over = 0;
                                for (int64_t e = 0; e < x.r.out_numel; e++) {
                                    double er = fabs(raw[e] -
                                                     x.r.out_exact[e]);
                                    double tr = er / (x.r.out_bound[e] +
                                                      0x1p-60);
                                    tight[t] = tr > tight[t] ? tr : tight[t];
                                    if (token)
                                        continue;
                                    double tw = er / (bw[e] + 0x1p-60);
                                    without[t] = tw > without[t] ? tw
                                                                 : without[t];
                                    over |= tw > 1.0;
                                }
                                need += over;
                                need_runs += !token;
                                double ratio = 0;
                                int64_t o = outside(&x.r, &got, &glse, &ratio);
                                runs++;
                                fails += o != 0;
                                worst = ratio > worst ? ratio : worst;
                                CHECK_MSG(o == 0, "%s D %lld KV_S %lld %s ip "
                                          "%d block %d %s: %lld outside the "
                                          "bound", dts[t], (long long)D,
                                          (long long)KVS,
                                          token ? "per-token" : "per-channel",
                                          ip, blks[b],
                                          in_dt ? "dtype" : "float32",
                                          (long long)o);
                            }
                        free(got.data), free(glse.data), free(raw), free(bw);
                        close_call(&x);
                    }
    printf("%lld kernel runs, %lld outside the bound, largest ratio %.3g\n",
           (long long)runs, (long long)fails, worst);
    printf("the float32 error before the final rounding reaches %.3g (fp16) "
           "and %.3g (bf16) of the bound; without the antiquant term %.3g "
           "and %.3g, outside it in %lld of %lld per-channel runs\n",
           tight[0], tight[1], without[0], without[1], (long long)need,
           (long long)need_runs);
    CHECK(tight[0] <= 1.0 && tight[1] <= 1.0);
    CHECK(runs == 2 * 2 * 3 * 2 * 2 * 3 * 2);
    CHECK(need > 0);
    return check_summary();
}
