/* The int8 output and full int8 quantization in fuzz/
 * (docs/features/int8_out.md, docs/features/int8_quant.md): fuzz_params'
 * int8-output scenes cover per-tensor and every recommended per-channel
 * shape, fp32 and bf16 scales, offsets, a written and an inferred output,
 * on both paths; its full-int8 scenes both dequant dtypes and both
 * outputs; a valid scene is as the docs say, fires no OQ / Q8 / ANTI rule
 * and no rule its fp form does not fire (but NM-004 / NM-005, the not
 * modeled computations); every break fires its own rule, Q8-006 in the
 * doc profile only.  fuzz_numeric's quantized outputs of a float query
 * (full int8's: test_fuzz_int8_quant.c) parse back, are
 * refused by NM-005 alone, cover both forms and every offset kind, and —
 * computed by ref/ — spread over the whole int8 range, saturate and tie. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/check.h"
#include "fia/ref.h"
#include "fuzz/fuzz.h"
#include "fuzz/gen.h"
#include "fuzz_testlib.h"

static int has(const fia_case *c, fia_slot s)
{
    return c->tensors[s].presence == FIA_PRESENT;
}

static const fia_tensor *t0(const fia_case *c, fia_slot s)
{
    return has(c, s) && c->tensors[s].count >= 1 ? &c->tensors[s].t[0] : NULL;
}

/* The decoder's strict choice (decode_params.c): a hash of the input. */
static int strict_input(const uint8_t *d, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 16777619u;
    return h % 100 < 40;
}

/* 1 when rule `id` fired on c under profile p. */
static int fired(const fia_case *c, fia_profile p, const char *id)
{
    fia_oracle_verdict v;
    if (fia_oracle_evaluate(c, p, &v, NULL) != FIA_OK)
        return 0;
    for (int i = 0; i < v.n_fired; i++)
        if (strcmp(v.fired[i]->id, id) == 0)
            return 1;
    return 0;
}

static int rule_in(const fia_oracle_verdict *v, const char *id)
{
    for (int i = 0; i < v->n_fired; i++)
        if (strcmp(v->fired[i]->id, id) == 0)
            return 1;
    return 0;
}

static int not_computed(const char *id)
{
    return strcmp(id, "NM-004") == 0 || strcmp(id, "NM-005") == 0;
}

/* The form of quant_scale2 t (FZ_OQ_*), -1 when none of the recommended
 * shapes. */
static int form_of(const fia_tensor *t, int64_t N, int64_t D)
{
    for (int f = 0; f < FZ_OQ_FORM_COUNT; f++) {
        int64_t sh[4];
        const int nd = fz_oq_shape(f, N, D, sh);
        if (nd == t->ndim && memcmp(sh, t->shape, (size_t)nd * 8) == 0)
            return f;
    }
    return -1;
}

/* The fp form of c: query, key and value fp16 (full int8) or as they are,
 * no scale of either feature, the output the query's. */
static void fp_form(const fia_case *c, fia_case *o)
{
    CHECK(fia_case_copy(o, c) == FIA_OK);
    const fia_slot qkv[3] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < o->tensors[qkv[k]].count; i++)
            if (o->tensors[qkv[k]].t[i].dtype == FIA_DT_INT8)
                o->tensors[qkv[k]].t[i].dtype = FIA_DT_FP16;
    const fia_slot sc[5] = {FIA_SLOT_DEQUANT_SCALE1, FIA_SLOT_QUANT_SCALE1,
                            FIA_SLOT_DEQUANT_SCALE2, FIA_SLOT_QUANT_SCALE2,
                            FIA_SLOT_QUANT_OFFSET2};
    for (int k = 0; k < 5; k++)
        fz_case_absent(o, sc[k]);
    if (has(o, FIA_SLOT_ATTENTION_OUT))
        o->tensors[FIA_SLOT_ATTENTION_OUT].t[0].dtype =
            o->tensors[FIA_SLOT_QUERY].t[0].dtype;
}

/* A valid scene adds no rule but the not-computed ones: every rule fired
 * on c fires on its fp form too; *ok: c is valid when its fp form is. */
static int adds_no_rule(const fia_case *c, int *base_ok, int *ok,
                        const char **extra)
{
    fia_case o;
    fia_oracle_verdict v, w;
    fp_form(c, &o);
    fia_oracle_evaluate(c, FIA_PROFILE_DOC, &v, NULL);
    fia_oracle_evaluate(&o, FIA_PROFILE_DOC, &w, NULL);
    fia_case_free(&o);
    *base_ok = w.accept;
    int good = 1, only_nm = 1;
    for (int i = 0; i < v.n_fired; i++) {
        const char *id = v.fired[i]->id;
        only_nm &= not_computed(id);
        if (!not_computed(id) && !rule_in(&w, id))
            good = 0, *extra = id;
    }
    *ok = only_nm;
    return good;
}

/* What the docs ask of an int8 output's scales (quant_scale2 q, offset o)
 * beside a query of dtype qdt; NULL when as asked. */
static const char *out_scales_bad(const fia_case *c, const fz_geom *g,
                                  fia_dtype qdt, int *form)
{
    const fia_tensor *q = t0(c, FIA_SLOT_QUANT_SCALE2);
    const fia_tensor *o = t0(c, FIA_SLOT_QUANT_OFFSET2);
    fia_tensor out;
    if (fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &out) != FIA_PRESENT ||
        out.dtype != FIA_DT_INT8)
        return "output not int8";
    if (q == NULL)
        return "no quant_scale2";
    if (q->dtype != FIA_DT_FP32 &&
        !(q->dtype == FIA_DT_BF16 && qdt == FIA_DT_BF16))
        return "quant_scale2 dtype";
    if ((*form = form_of(q, g->N, g->D)) < 0)
        return "quant_scale2 shape";
    if (o != NULL && (o->dtype != q->dtype || form_of(o, g->N, g->D) != *form))
        return "quant_offset2 unlike quant_scale2";
    if (g->Q_S > 1 && g->D % 32 != 0)
        return "prefill D";
    if (*form != FZ_OQ_TENSOR && (g->qpad || g->kvpad))
        return "per-channel with left padding";
    return NULL;
}

static void show(const fia_case *c, const char *why)
{
    char *text = fia_case_to_string(c);
    if (getenv("FIA_SHOW_SCENE"))
        fprintf(stderr, "%s:\n%.1500s\n", why, text ? text : "");
    else
        fprintf(stderr, "%s\n", why);
    free(text);
}

/* ---- fuzz_params --------------------------------------------------------- */

/* Q8-006 broken (scales with fp input and output at Q_S > 1): the cann
 * profile accepts the call wherever it accepts its fp form (*ok), never
 * refuses it then (*bad). */
static void cann_accepts(const fia_case *c, int *ok, int *bad)
{
    fia_case o;
    fia_oracle_verdict v, w;
    fp_form(c, &o);
    fia_oracle_evaluate(c, FIA_PROFILE_CANN, &v, NULL);
    fia_oracle_evaluate(&o, FIA_PROFILE_CANN, &w, NULL);
    fia_case_free(&o);
    *ok += w.accept && v.accept;
    if (w.accept && !v.accept) {
        (*bad)++;
        show(c, v.n_fired ? v.fired[0]->id : "rejected");
    }
}

typedef struct tally {
    int scenes, valid, bad, added, base_ok, ok, rule_on_valid;
    int breaks[12], hits[12];
} tally;

/* The int8-output scene of c (strict, valid): as the doc says, adds no
 * rule; coverage [qs1][form][bf16][offset][inferred]. */
static void out_scene(const fia_case *c, tally *t, int cov[2][6][2][2][2])
{
    fz_geom g;
    if (fz_geom_of_call(c, &g) != 0)
        return;
    t->valid++;
    int form = -1;
    const fia_dtype qdt = t0(c, FIA_SLOT_QUERY)->dtype;
    const char *why = out_scales_bad(c, &g, qdt, &form);
    if (why == NULL && (qdt != FIA_DT_FP16 && qdt != FIA_DT_BF16))
        why = "query not fp16 / bf16";
    if (why == NULL && (has(c, FIA_SLOT_DEQUANT_SCALE1) ||
                        has(c, FIA_SLOT_QUANT_SCALE1) ||
                        has(c, FIA_SLOT_DEQUANT_SCALE2)))
        why = "a scale of full quantization";
    if (why != NULL) {
        t->bad++;
        show(c, why);
        return;
    }
    const char *extra = "";
    int base_ok, ok;
    if (!adds_no_rule(c, &base_ok, &ok, &extra)) {
        t->added++;
        show(c, extra);
    }
    t->base_ok += base_ok;
    t->ok += base_ok && ok;
    cov[g.Q_S == 1][form][t0(c, FIA_SLOT_QUANT_SCALE2)->dtype == FIA_DT_BF16]
       [has(c, FIA_SLOT_QUANT_OFFSET2)][!has(c, FIA_SLOT_ATTENTION_OUT)]++;
}

/* The full-int8 scene of c (strict, valid); coverage [deq1 uint64][deq2
 * uint64][out: fp16, int8 written, inferred][per-channel][offset]. */
static void quant_scene(const fia_case *c, tally *t, int cov[2][2][3][2][2])
{
    fz_geom g;
    if (fz_geom_of_call(c, &g) != 0)
        return;
    t->valid++;
    const char *why = NULL;
    const fia_slot qkv[3] = {FIA_SLOT_QUERY, FIA_SLOT_KEY, FIA_SLOT_VALUE};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < c->tensors[qkv[k]].count; i++)
            if (c->tensors[qkv[k]].t[i].dtype != FIA_DT_INT8)
                why = "query, key or value not int8";
    const fia_slot sc[3] = {FIA_SLOT_DEQUANT_SCALE1, FIA_SLOT_QUANT_SCALE1,
                            FIA_SLOT_DEQUANT_SCALE2};
    for (int k = 0; why == NULL && k < 3; k++) {
        const fia_tensor *s = t0(c, sc[k]);
        if (s == NULL || s->ndim != 1 || s->shape[0] != 1 ||
            !(s->dtype == FIA_DT_FP32 || (k != 1 && s->dtype == FIA_DT_UINT64)))
            why = "a scale not per-tensor uint64 / fp32";
    }
    fia_tensor out;
    const int o8 = fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &out) ==
                       FIA_PRESENT && out.dtype == FIA_DT_INT8;
    int form = FZ_OQ_TENSOR;
    if (why == NULL && g.Q_S == 1)
        why = "decode (ANTI-027)";
    else if (why == NULL && o8)
        why = out_scales_bad(c, &g, FIA_DT_INT8, &form);
    else if (why == NULL && (out.dtype != FIA_DT_FP16 ||
                             has(c, FIA_SLOT_QUANT_SCALE2) ||
                             has(c, FIA_SLOT_QUANT_OFFSET2)))
        why = "fp16 output with output quantization";
    if (why == NULL && g.D % 32 != 0)
        why = "prefill D";
    if (why != NULL) {
        t->bad++;
        show(c, why);
        return;
    }
    const char *extra = "";
    int base_ok, ok;
    if (!adds_no_rule(c, &base_ok, &ok, &extra)) {
        /* an int8 query meets rules an fp one does not (PAGED-007,
         * PREFIX-X02, PSE's dtype, ANTI-028): only those of the scene's
         * features count here */
        if (!strncmp(extra, "Q8-", 3) || !strncmp(extra, "OQ-", 3) ||
            !strncmp(extra, "ANTI-", 5)) {
            t->added++;
            show(c, extra);
        }
    }
    t->base_ok += base_ok;
    t->ok += base_ok && ok;
    cov[t0(c, FIA_SLOT_DEQUANT_SCALE1)->dtype == FIA_DT_UINT64]
       [t0(c, FIA_SLOT_DEQUANT_SCALE2)->dtype == FIA_DT_UINT64]
       [!o8 ? 0 : has(c, FIA_SLOT_ATTENTION_OUT) ? 1 : 2][form != FZ_OQ_TENSOR]
       [has(c, FIA_SLOT_QUANT_OFFSET2)]++;
}

static const char *const FORMS[6] = {"[1]", "[H]", "[1,1,H]", "[N,D]",
                                     "[1,N,1,D]", "[1,1,N,D]"};

static void report_out(const tally *t, int cov[2][6][2][2][2])
{
    printf("int8 output: %d scenes, %d valid on strict inputs (%d not as the "
           "doc says, %d adding a rule; %d of %d with a valid fp form "
           "valid)\n", t->scenes, t->valid, t->bad, t->added, t->ok,
           t->base_ok);
    CHECK_COUNT(t->scenes > 1000 && t->valid > t->scenes / 5);
    CHECK_EQ_INT(t->bad, 0);
    CHECK_EQ_INT(t->added, 0);
    CHECK_EQ_INT(t->ok, t->base_ok);
    int bf[2] = {0}, off[2] = {0}, inf[2] = {0};
    for (int p = 0; p < 2; p++) {
        printf("  %s:", p ? "Q_S = 1" : "Q_S > 1");
        for (int f = 0; f < 6; f++) {
            int n = 0;
            for (int a = 0; a < 8; a++) {
                const int x = cov[p][f][a & 1][(a >> 1) & 1][a >> 2];
                n += x;
                bf[p] += (a & 1) ? x : 0;
                off[p] += (a & 2) ? x : 0;
                inf[p] += (a & 4) ? x : 0;
            }
            printf(" %s %d", FORMS[f], n);
            CHECK_COUNT_MSG(n > 3, "%s at %s", FORMS[f], p ? "Q_S = 1" : "Q_S > 1");
        }
        printf("; bf16 %d, offset %d, inferred %d\n", bf[p], off[p], inf[p]);
        CHECK_COUNT(bf[p] > 3 && off[p] > 3 && inf[p] > 3);
    }
    printf("  breaks (OQ-001..010):");
    for (int i = 0; i < 10; i++)
        printf(" %d/%d", t->hits[i], t->breaks[i]);
    printf(" (fired / made)\n");
    for (int i = 0; i < 10; i++)
        CHECK_COUNT_MSG(t->hits[i] > 3, "OQ-%03d fired %d times", i + 1, t->hits[i]);
}

static void report_quant(const tally *t, int cov[2][2][3][2][2], int cann06,
                         int cann06_bad)
{
    printf("full int8: %d scenes, %d valid on strict inputs (%d not as the "
           "doc says, %d adding a rule; %d of %d with a valid fp form "
           "valid)\n", t->scenes, t->valid, t->bad, t->added, t->ok,
           t->base_ok);
    CHECK_COUNT(t->scenes > 1000 && t->valid > t->scenes / 10);
    CHECK_EQ_INT(t->bad, 0);
    CHECK_EQ_INT(t->added, 0);
    CHECK_EQ_INT(t->ok, t->base_ok);
    int deq[2][2] = {{0}}, out[3] = {0}, pc = 0, off = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int o = 0; o < 3; o++)
                for (int p = 0; p < 2; p++)
                    for (int f = 0; f < 2; f++) {
                        const int x = cov[a][b][o][p][f];
                        deq[0][a] += x, deq[1][b] += x, out[o] += x;
                        pc += p ? x : 0, off += f ? x : 0;
                    }
    printf("  dequant_scale1 fp32 %d uint64 %d, dequant_scale2 fp32 %d "
           "uint64 %d; out fp16 %d int8 %d inferred %d; per-channel %d, "
           "offset %d\n", deq[0][0], deq[0][1], deq[1][0], deq[1][1], out[0],
           out[1], out[2], pc, off);
    CHECK_COUNT(deq[0][0] > 3 && deq[0][1] > 3 && deq[1][0] > 3 && deq[1][1] > 3);
    CHECK_COUNT(out[0] > 3 && out[1] > 3 && out[2] > 3 && pc > 3 && off > 3);
    printf("  breaks (Q8-001..008, ANTI-027):");
    for (int i = 0; i < 9; i++)
        printf(" %d/%d", t->hits[i], t->breaks[i]);
    printf(" (fired / made); Q8-006's breaks the cann profile accepts %d, "
           "rejects with a valid fp form %d\n", cann06, cann06_bad);
    for (int i = 0; i < 9; i++)
        CHECK_COUNT_MSG(t->hits[i] > 3, "break %d fired %d times", i, t->hits[i]);
    CHECK_COUNT(cann06 > 3);
    CHECK_EQ_INT(cann06_bad, 0);
}

static void test_params(void)
{
    fuzz_rng r = {20251126};
    uint8_t buf[512];
    const int n = check_draws(60000);
    tally to, tq;
    int cov_out[2][6][2][2][2], cov_q[2][2][3][2][2], cann06 = 0;
    int cann06_bad = 0;
    memset(&to, 0, sizeof to), memset(&tq, 0, sizeof tq);
    memset(cov_out, 0, sizeof cov_out), memset(cov_q, 0, sizeof cov_q);
    for (int k = 0; k < n; k++) {
        fia_case c;
        const size_t len = ftl_random_input(&r, buf, 32, sizeof buf);
        fz_oq_params_break = fz_int8_quant_params_break = -2;
        fuzz_decode_params(buf, len, &c);
        const int ob = fz_oq_params_break, qb = fz_int8_quant_params_break;
        const int strict = strict_input(buf, len);
        CHECK(ob == -2 || qb == -2); /* one scene at most */
        CHECK((ob < 0 && qb < 0) || !strict);
        char id[16];
        if (ob != -2) {
            to.scenes++;
            if (ob >= 0) {
                to.breaks[ob]++;
                snprintf(id, sizeof id, "OQ-%03d", ob + 1);
                to.hits[ob] += fired(&c, FIA_PROFILE_DOC, id);
            } else if (strict) {
                out_scene(&c, &to, cov_out);
            }
        }
        if (qb != -2) {
            tq.scenes++;
            if (qb >= 0) {
                tq.breaks[qb]++;
                snprintf(id, sizeof id, qb == 8 ? "ANTI-027" : "Q8-%03d",
                         qb + 1);
                tq.hits[qb] += fired(&c, FIA_PROFILE_DOC, id);
                if (qb == 5) /* the released code accepts it */
                    cann_accepts(&c, &cann06, &cann06_bad);
            } else if (strict) {
                quant_scene(&c, &tq, cov_q);
            }
        }
        if ((ob != -2 || qb != -2) && k % 4 == 0) {
            char *text = fia_case_to_string(&c);
            fia_case p = ftl_parse(text ? text : "");
            CHECK(fia_case_equal(&c, &p));
            fia_case_free(&p);
            free(text);
        }
        fia_case_free(&c);
    }
    report_out(&to, cov_out);
    report_quant(&tq, cov_q, cann06, cann06_bad);
}

/* ---- fuzz_numeric -------------------------------------------------------- */

typedef struct ref_tally {
    int cases, refused, skipped;
    int64_t elems, lo_sat, hi_sat, ties;
    int hist[256];
} ref_tally;

/* The reference's int8 outputs of c: their spread, saturation and ties
 * (the exact value x qs + qo an odd half). */
static void ref_outputs(const fia_case *c, ref_tally *t)
{
    fia_case_data d;
    fia_ref_result r;
    fia_ref_options o;
    fia_error err;
    memset(&r, 0, sizeof r);
    if (fia_case_materialize(c, 1, &d, &err) != FIA_OK) {
        t->refused++;
        return;
    }
    fia_ref_options_default(&o);
    if (fia_ref_compute(c, &d, &o, &r, &err) != FIA_OK) {
        /* refused for the fp output too: the data's (an unspecified
         * page table), not the quantization's */
        fia_case fp;
        fia_case_data fd;
        fia_ref_result fr;
        memset(&fr, 0, sizeof fr);
        fp_form(c, &fp);
        if (fia_case_materialize(&fp, 1, &fd, NULL) == FIA_OK) {
            if (fia_ref_compute(&fp, &fd, &o, &fr, NULL) == FIA_OK) {
                t->refused++;
                fprintf(stderr, "ref/: %s\n", err.msg);
            } else {
                t->skipped++;
            }
            fia_ref_result_free(&fr);
            fia_case_data_free(&fd);
        }
        fia_case_free(&fp);
    } else {
        t->cases++;
        const int8_t *y = r.out.data;
        for (int64_t i = 0; i < r.out_numel; i++) {
            if (r.out_unspecified[i])
                continue;
            t->elems++;
            t->hist[y[i] + 128]++;
            const double e = r.out_exact[i];
            t->lo_sat += e < -128.5;
            t->hi_sat += e > 127.5;
            t->ties += fabs(e) < 128 && e - floor(e) == 0.5;
        }
    }
    fia_ref_result_free(&r);
    fia_case_data_free(&d);
}

static void test_numeric(void)
{
    fuzz_rng r = {4242};
    uint8_t buf[512];
    int n = check_draws(12000), quant = 0, roundtrip = 0, refused = 0, pc = 0, bf = 0;
    int path[2] = {0}, okind[4] = {0}, shapes[6] = {0};
    ref_tally rt;
    memset(&rt, 0, sizeof rt);
    for (int k = 0; k < n; k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        const fia_tensor *q = t0(&c, FIA_SLOT_QUANT_SCALE2);
        /* a full-int8 case's output (test_fuzz_int8_quant.c) */
        if (q == NULL || t0(&c, FIA_SLOT_QUERY)->dtype == FIA_DT_INT8) {
            fia_case_free(&c);
            continue;
        }
        quant++;
        fz_geom g;
        int form = -1;
        CHECK(fz_geom_of_call(&c, &g) == 0);
        const char *why = out_scales_bad(&c, &g, t0(&c, FIA_SLOT_QUERY)->dtype,
                                         &form);
        CHECK_MSG(why == NULL, "numeric: %s", why ? why : "");
        if (form >= 0)
            shapes[form]++;
        pc += form > 0;
        bf += q->dtype == FIA_DT_BF16;
        path[g.Q_S == 1]++;
        /* the offset's kind from its values */
        int64_t no = 0;
        double *ov = has(&c, FIA_SLOT_QUANT_OFFSET2)
                         ? ftl_data_of(&c, FIA_SLOT_QUANT_OFFSET2, &no) : NULL;
        int kind = 0;
        for (int64_t i = 0; i < no; i++) {
            const double fr = ov[i] - floor(ov[i]);
            kind = fr == 0.5 && kind < 3 ? 3 : fr != 0 && kind < 2 ? 2 : kind;
            kind = kind == 0 ? 1 : kind;
        }
        free(ov);
        okind[kind]++;
        fia_oracle_verdict v;
        fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL);
        if (!ftl_valid_or(&v, "NM-005")) {
            refused++;
            show(&c, v.n_fired ? v.fired[0]->id : "rejected");
        }
        char *text = fia_case_to_string(&c);
        fia_case p = ftl_parse(text ? text : "");
        roundtrip += fia_case_equal(&c, &p);
        fia_case_free(&p);
        free(text);
        if (rt.cases + rt.refused + rt.skipped < 200)
            ref_outputs(&c, &rt);
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d with an int8 output (%d refused other "
           "than by NM-005); prefill %d, decode %d; per-channel %d, bf16 "
           "scale %d; offsets none %d, integer %d, fractional %d, halves "
           "%d\n", quant, n, refused, path[0], path[1], pc, bf, okind[0],
           okind[1], okind[2], okind[3]);
    CHECK_COUNT(quant > n / 150);
    CHECK_EQ_INT(roundtrip, quant);
    CHECK_EQ_INT(refused, 0);
    CHECK_COUNT(path[0] > 5 && path[1] > 5 && pc > 10 && quant - pc > 10 && bf > 3);
    for (int i = 0; i < 4; i++)
        CHECK_COUNT_MSG(okind[i] > 3, "offset kind %d", i);
    for (int i = 0; i < 6; i++)
        CHECK_COUNT_MSG(shapes[i] > 0, "numeric %s", FORMS[i]);
    int distinct = 0;
    for (int i = 0; i < 256; i++)
        distinct += rt.hist[i] > 0;
    printf("  ref/: %d cases (%d refused, %d as fp too), %lld outputs, %d "
           "distinct int8 values, saturated low %lld high %lld, ties %lld\n",
           rt.cases, rt.refused, rt.skipped, (long long)rt.elems, distinct,
           (long long)rt.lo_sat, (long long)rt.hi_sat, (long long)rt.ties);
    CHECK_EQ_INT(rt.refused, 0);
    CHECK_COUNT(distinct > 240 && rt.hist[0] > 0 && rt.hist[255] > 0);
    CHECK_COUNT(rt.lo_sat > 10 && rt.hi_sat > 10 && rt.ties > 0);
    /* saturated values are few: most outputs land inside the range */
    CHECK(rt.lo_sat + rt.hi_sat < rt.elems / 2);
}

int main(void)
{
    test_params();
    test_numeric();
    return check_summary();
}
