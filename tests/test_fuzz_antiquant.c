/* Key/value antiquantization in fuzz/ (docs/features/antiquant.md):
 * fuzz_params' scenes cover every mode of the doc's table on both paths
 * (int8, int4, int32 packing; paged for modes 4 / 5) and, on non-strict
 * inputs, a break of every ANTI rule; the valid scenes have the doc's
 * shapes, dtypes and path limits; fuzz_numeric's quantized cases print and
 * parse back, hold integers over their whole range, scales of every
 * magnitude, offsets that cancel, every mode, GQA, masks, ragged lengths
 * and keys past fast/'s key block, within the reference's budget;
 * antiquant= dequantizes exactly (hand cases of the combined per-channel
 * set and of int32-packed per-token scales) and refuses what is not
 * exact; the metamorphic decoder's quantized bases take it.  The kernels
 * are not run: the generators are checked on the cases they build.  Once
 * the oracle models antiquant (it accepts MODELED_PROBE), the valid scenes
 * must fire no ANTI rule, every break its own, and fuzz_numeric's cases
 * must be accepted; until then those checks are skipped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/check.h"
#include "fia/fast.h"
#include "fuzz/fuzz.h"
#include "fuzz/gen.h"
#include "fuzz_testlib.h"

/* A valid call of the scene (the combined per-channel set with offsets,
 * decode): the oracle models antiquant when it accepts it.  Until then
 * (this branch) the checks against the oracle are skipped. */
static const char *const MODELED_PROBE =
    "input_layout = BNSD\nnum_heads = 2\nnum_key_value_heads = 1\n"
    "query = fp16 [1,2,1,16]\nkey = int8 [1,1,2,16]\n"
    "value = int8 [1,1,2,16]\nantiquant_scale = fp16 [2,1,16]\n"
    "antiquant_offset = fp16 [2,1,16]\n";

static int oracle_models(void)
{
    fia_case c = ftl_parse(MODELED_PROBE);
    fia_oracle_verdict v;
    const int m = fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) ==
                      FIA_OK && v.accept;
    fia_case_free(&c);
    return m;
}

/* 1 when rule `id` fired on c under profile p; *anti: an ANTI rule did. */
static int fired(const fia_case *c, fia_profile p, const char *id, int *anti)
{
    fia_oracle_verdict v;
    int hit = 0;
    *anti = 0;
    if (fia_oracle_evaluate(c, p, &v, NULL) != FIA_OK)
        return 0;
    for (int i = 0; i < v.n_fired; i++) {
        hit |= strcmp(v.fired[i]->id, id) == 0;
        *anti |= strncmp(v.fired[i]->id, "ANTI-0", 6) == 0;
    }
    return hit;
}

/* What a call's scene is, read back from the case. */
typedef struct scene {
    int qs1, sep, paged, kd; /* kd: 0 int8, 1 int4, 2 int32 */
    int kf, vf;              /* fz_aq_form, -1 none */
    int64_t kmode, vmode;
    fz_geom g;
    int geom_ok;
} scene;

static int has(const fia_case *c, fia_slot s)
{
    return c->tensors[s].presence == FIA_PRESENT;
}

static const fia_tensor *t0(const fia_case *c, fia_slot s)
{
    return has(c, s) && c->tensors[s].count >= 1 ? &c->tensors[s].t[0] : NULL;
}

static void read_scene(const fia_case *c, scene *s)
{
    memset(s, 0, sizeof *s);
    const fia_tensor *k = t0(c, FIA_SLOT_KEY), *q = t0(c, FIA_SLOT_QUERY);
    s->kd = k == NULL ? -1 : k->dtype == FIA_DT_INT8 ? 0
            : k->dtype == FIA_DT_INT4 ? 1 : k->dtype == FIA_DT_INT32 ? 2 : -1;
    s->geom_ok = fz_geom_of_call(c, &s->g) == 0;
    s->qs1 = q != NULL && s->geom_ok && s->g.Q_S == 1;
    s->paged = has(c, FIA_SLOT_BLOCK_TABLE);
    s->sep = has(c, FIA_SLOT_KEY_ANTIQUANT_SCALE) ||
             has(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
    s->kf = s->vf = -1;
    if (s->sep) {
        s->kmode = c->attrs.key_antiquant_mode;
        s->vmode = c->attrs.value_antiquant_mode;
        const fia_tensor *ks = t0(c, FIA_SLOT_KEY_ANTIQUANT_SCALE);
        const fia_tensor *vs = t0(c, FIA_SLOT_VALUE_ANTIQUANT_SCALE);
        if (ks)
            s->kf = fz_aq_form_of_mode(s->kmode, fia_tensor_numel(ks) == 1);
        if (vs)
            s->vf = fz_aq_form_of_mode(s->vmode, fia_tensor_numel(vs) == 1);
    } else if (has(c, FIA_SLOT_ANTIQUANT_SCALE)) {
        const fia_tensor *cs = t0(c, FIA_SLOT_ANTIQUANT_SCALE);
        s->kmode = s->vmode = c->attrs.antiquant_mode;
        s->kf = s->vf = s->qs1 && c->attrs.antiquant_mode == 1 ? FZ_AQ_TOKEN
                        : fia_tensor_numel(cs) == 2 ? FZ_AQ_TENSOR
                                                    : FZ_AQ_CHANNEL;
    }
}

/* The decoder's strict choice (decode_params.c): a hash of the input. */
static int strict_input(const uint8_t *d, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ d[i]) * 16777619u;
    return h % 100 < 40;
}


/* A valid scene as the doc's tables say (what can be seen without the
 * oracle); 0 with a message when not. */
static int scene_ok(const fia_case *c, const scene *s)
{
    const fia_tensor *q = t0(c, FIA_SLOT_QUERY), *k = t0(c, FIA_SLOT_KEY);
    const fia_tensor *v = t0(c, FIA_SLOT_VALUE);
    const char *why = NULL;
    const fia_slot ss[2] = {s->sep ? FIA_SLOT_KEY_ANTIQUANT_SCALE
                                   : FIA_SLOT_ANTIQUANT_SCALE,
                            s->sep ? FIA_SLOT_VALUE_ANTIQUANT_SCALE
                                   : FIA_SLOT_ANTIQUANT_SCALE};
    if (q == NULL || k == NULL || v == NULL || s->kd < 0 ||
        v->dtype != k->dtype)
        why = "key/value not one quantized dtype";
    else if (s->kf < 0 || s->vf < 0)
        why = "no scale form";
    else if (s->kd > 0 && (!s->sep || s->g.D % 64 || s->paged ||
                           !s->qs1 || s->kf == FZ_AQ_TENSOR ||
                           s->kmode == 2 || s->kmode > 3))
        why = "int4 outside its modes";
    else if (!s->qs1 && s->g.D % 32)
        why = "prefill D";
    else if (!s->qs1 && !s->sep && q->dtype != FIA_DT_FP16)
        why = "prefill combined without an fp16 query";
    else if (!s->qs1 && s->sep &&
             (q->dtype != FIA_DT_BF16 || s->g.Q_S > 16 ||
              s->kmode != s->vmode || s->kmode > 1))
        why = "prefill separate";
    else if ((s->kf >= FZ_AQ_PAGE_TOKEN || s->vf >= FZ_AQ_PAGE_TOKEN) &&
             !s->paged)
        why = "modes 4 / 5 without a page table";
    else if (s->sep && s->kmode != s->vmode &&
             !(s->qs1 && s->kmode == 0 && s->vmode == 1))
        why = "key and value modes";
    else if (s->sep && s->kmode == 0 && s->vmode == 1 && s->kd == 0 &&
             q->dtype != FIA_DT_FP16)
        why = "key 0 + value 1 without an fp16 query";
    for (int r = 0; why == NULL && r < 2; r++) {
        const fia_tensor *st = t0(c, ss[r]);
        const int f = r ? s->vf : s->kf;
        const fia_dtype want = fz_aq_scale_dtype((fz_aq_form)f, q->dtype);
        if (st->dtype != want)
            why = "scale dtype";
        else if ((f == FZ_AQ_TOKEN || f == FZ_AQ_TOKEN_HEAD) &&
                 st->shape[st->ndim - 1] < fz_aq_token_s(c, s->g.KV_S))
            why = "per-token S' short";
        else if (f >= FZ_AQ_PAGE_TOKEN &&
                 (st->shape[0] != k->shape[0] ||
                  st->shape[st->ndim - 1] != c->attrs.block_size))
            why = "page form";
        const fia_slot os = (fia_slot)(ss[r] + 1);
        const fia_tensor *ot = t0(c, os);
        if (why == NULL && ot != NULL &&
            (ot->dtype != st->dtype || ot->ndim != st->ndim ||
             fia_tensor_numel(ot) != fia_tensor_numel(st)))
            why = "offset unlike its scale";
    }
    if (why == NULL && s->kd == 2) {
        /* int32: the last dim is the real one / 8 */
        const int64_t real = s->paged ? 0 : (s->g.layout == FZ_BSH
                                                 ? s->g.KV_N * s->g.D
                                                 : s->g.D);
        if (real && k->shape[k->ndim - 1] * 8 != real)
            why = "int32 last dim";
    }
    if (why != NULL) {
        char *text = fia_case_to_string(c);
        if (getenv("FIA_SHOW_SCENE"))
            fprintf(stderr, "invalid scene (%s):\n%.900s\n", why,
                    text ? text : "");
        else
            fprintf(stderr, "invalid scene: %s\n", why);
        free(text);
        return 0;
    }
    return 1;
}

/* The scene's class for the coverage table: combined per-tensor,
 * per-channel, per-token; separate mode 0 per-tensor, 0 per-channel,
 * 1..5, key 0 + value 1; by path and by dtype. */
enum { CL_C_PT, CL_C_PC, CL_C_TOK, CL_S_PT, CL_S_PC, CL_S1, CL_S2, CL_S3,
       CL_S4, CL_S5, CL_S01, CL_COUNT };

static int class_of(const scene *s)
{
    if (!s->sep)
        return s->kf == FZ_AQ_TENSOR ? CL_C_PT : s->kf == FZ_AQ_CHANNEL
                                                     ? CL_C_PC : CL_C_TOK;
    if (s->kmode != s->vmode)
        return CL_S01;
    if (s->kmode == 0)
        return s->kf == FZ_AQ_TENSOR ? CL_S_PT : CL_S_PC;
    return CL_S1 + (int)s->kmode - 1;
}

/* 1 when the key's separate scale has the shape of its mode 2 / 3 (the
 * per-head or per-token per-head form, docs/features/antiquant.md) at
 * Q_S > 1, where the documents give those modes no shape. */
static int scale_of_own_mode(const fia_case *c)
{
    const fia_tensor *ks = t0(c, FIA_SLOT_KEY_ANTIQUANT_SCALE);
    const int64_t m = c->attrs.key_antiquant_mode;
    fz_geom g;
    if (ks == NULL || (m != 2 && m != 3) || fz_geom_of_call(c, &g) != 0)
        return 0;
    int64_t sh[4];
    const int nd = fz_aq_shape((fz_aq_form)fz_aq_form_of_mode(m, 0), 0, 0,
                               g.B, g.KV_N, g.D, fz_aq_token_s(c, g.KV_S),
                               0, 0, sh);
    if (nd != ks->ndim)
        return 0;
    for (int i = 0; i < nd; i++)
        if (sh[i] != ks->shape[i])
            return 0;
    return 1;
}

static void test_params(void)
{
    fuzz_rng r = {20251125};
    uint8_t buf[512];
    int n = check_draws(60000), scenes = 0, valid = 0, bad = 0, breaks[32] = {0};
    const int modeled = oracle_models();
    int hits[32] = {0}, anti_on_valid = 0, qs_mode_own_form = 0;
    int cover[2][3][CL_COUNT]; /* [qs1][kd][class] */
    memset(cover, 0, sizeof cover);
    for (int k = 0; k < n; k++) {
        fia_case c;
        const size_t len = ftl_random_input(&r, buf, 32, sizeof buf);
        fz_aq_params_break = -2;
        fuzz_decode_params(buf, len, &c);
        const int brk = fz_aq_params_break;
        if (brk == -2) {
            fia_case_free(&c);
            continue;
        }
        scenes++;
        int anti;
        if (brk >= 0) {
            breaks[brk]++;
            fia_profile prof = FIA_PROFILE_DOC;
            const char *id = fz_aq_break_rule(brk, &prof);
            CHECK(id != NULL);
            hits[brk] += modeled && id && fired(&c, prof, id, &anti);
            /* ANTI-003's break with the scales of the mode it sets: the
             * call a fast/ without the mode check would accept (with the
             * scene's own scales it still rejects it by their shape) */
            if (id && strcmp(id, "ANTI-003") == 0)
                qs_mode_own_form += scale_of_own_mode(&c);
        }
        CHECK(brk < 0 || !strict_input(buf, len));
        if (brk < 0 && strict_input(buf, len)) {
            scene s;
            read_scene(&c, &s);
            valid++;
            /* a name the shapes do not follow (lower case) or a token
             * layout: the layout's rules decide */
            if (!s.geom_ok || s.g.tnd) /* TND-X04 excludes it */
                valid--;
            else if (!scene_ok(&c, &s))
                bad++;
            else {
                if (modeled) {
                    fired(&c, FIA_PROFILE_DOC, "", &anti);
                    anti_on_valid += anti;
                    if (anti && getenv("FIA_TEST_VERBOSE")) {
                        char *t = fia_case_to_string(&c);
                        fprintf(stderr, "valid scene fires ANTI:\n%s\n",
                                t ? t : "");
                        free(t);
                    }
                }
                if (s.kd >= 0)
                    cover[s.qs1][s.kd][class_of(&s)]++;
            }
        }
        /* a call that prints parses back to itself */
        char *text = fia_case_to_string(&c);
        fia_case p = ftl_parse(text ? text : "");
        CHECK(fia_case_equal(&c, &p));
        fia_case_free(&p);
        free(text);
        fia_case_free(&c);
    }
    printf("fuzz_params: %d scenes of %d calls, %d valid on strict inputs "
           "(%d not as the doc says)\n", scenes, n, valid, bad);
    CHECK_COUNT(scenes > n / 20 && valid > scenes / 5);
    CHECK_EQ_INT(bad, 0);
    static const char *const cl[CL_COUNT] = {
        "comb-tensor", "comb-channel", "comb-token", "sep0-tensor",
        "sep0-channel", "sep1", "sep2", "sep3", "sep4", "sep5", "key0+value1"};
    for (int i = 0; i < CL_COUNT; i++)
        printf("  %-13s Q_S=1 int8 %4d int4 %4d int32 %4d; Q_S>1 int8 %4d\n",
               cl[i], cover[1][0][i], cover[1][1][i], cover[1][2][i],
               cover[0][0][i]);
    /* Q_S = 1: every mode with int8; int4 and int32 in theirs */
    for (int i = 0; i < CL_COUNT; i++)
        CHECK_COUNT_MSG(cover[1][0][i] > 3, "Q_S = 1 int8 %s", cl[i]);
    const int int4_cl[] = {CL_S_PC, CL_S1, CL_S3, CL_S01};
    for (int i = 0; i < 4; i++)
        for (int kd = 1; kd <= 2; kd++)
            CHECK_COUNT_MSG(cover[1][kd][int4_cl[i]] > 0, "Q_S = 1 %s %s",
                      kd == 1 ? "int4" : "int32", cl[int4_cl[i]]);
    /* Q_S > 1: combined per-tensor / per-channel, separate 0 / 1 */
    const int pre_cl[] = {CL_C_PT, CL_C_PC, CL_S_PC, CL_S1};
    for (int i = 0; i < 4; i++)
        CHECK_COUNT_MSG(cover[0][0][pre_cl[i]] > 3, "Q_S > 1 %s", cl[pre_cl[i]]);
    printf("  ANTI-003's breaks with the scales of their own mode: %d\n",
           qs_mode_own_form);
    CHECK_COUNT_MSG(qs_mode_own_form > 0, "ANTI-003 never broken with the "
                    "scales of the mode it sets");
    printf("  breaks (ANTI-001..028):");
    for (int i = 0; i < 28; i++)
        printf(" %d", breaks[i]);
    printf("\n");
    for (int i = 0; i < 28; i++)
        CHECK_COUNT_MSG(breaks[i] > 3, "%s never broken", fz_aq_break_rule(i, NULL));
    CHECK(fz_aq_break_rule(28, NULL) == NULL); /* the table has 28 breaks */
    if (!modeled) {
        printf("  the oracle does not model antiquant: its checks skipped\n");
        return;
    }
    /* a valid scene breaks no ANTI rule; a break fires its rule */
    printf("  ANTI rules fired by their breaks:");
    for (int i = 0; i < 28; i++)
        printf(" %d", hits[i]);
    printf("; on valid scenes %d\n", anti_on_valid);
    CHECK_EQ_INT(anti_on_valid, 0);
    for (int i = 0; i < 28; i++)
        CHECK_COUNT_MSG(hits[i] > 0, "%s's break never fires it",
                  fz_aq_break_rule(i, NULL));
}

/* ---- fuzz_numeric ---------------------------------------------------------- */

/* The case's key and value integers (int32 unpacked): min and max. */
static void int_range(const fia_case *c, double *lo, double *hi, int *ok)
{
    for (int role = 0; role < 2; role++) {
        const fia_slot s = role ? FIA_SLOT_VALUE : FIA_SLOT_KEY;
        int64_t n;
        double *v = ftl_data_of(c, s, &n);
        const int packed = c->tensors[s].t[0].dtype == FIA_DT_INT32;
        const double top = c->tensors[s].t[0].dtype == FIA_DT_INT8 ? 127 : 7;
        for (int64_t i = 0; v != NULL && i < n; i++) {
            for (int k = 0; k < (packed ? 8 : 1); k++) {
                double x = v[i];
                if (packed) {
                    int nib = (int)(((uint32_t)(int32_t)v[i] >> (4 * k)) & 0xf);
                    x = nib >= 8 ? nib - 16 : nib;
                }
                *ok &= x == floor(x) && x >= -top - 1 && x <= top;
                *lo = x < *lo ? x : *lo;
                *hi = x > *hi ? x : *hi;
            }
        }
        free(v);
    }
}

static void test_numeric(void)
{
    fast_path_thresholds th;
    fastPathThresholds(&th);
    fuzz_rng r = {777};
    uint8_t buf[512];
    int n = check_draws(8000), quant = 0, ints_ok = 1, badscene = 0, roundtrip = 0;
    int cover[2][3][CL_COUNT], gqa = 0, mask = 0, ragged = 0, past = 0;
    int cancel = 0, paged = 0, widened = 0, refused = 0;
    const int modeled = oracle_models();
    double lo8 = 0, hi8 = 0, lo4 = 0, hi4 = 0, smin = INFINITY, smax = 0;
    double worst = 0;
    memset(cover, 0, sizeof cover);
    for (int k = 0; k < n; k++) {
        fia_case c;
        fuzz_decode_numeric(buf, ftl_random_input(&r, buf, 64, sizeof buf), &c);
        if (!fz_antiquant_in_use(&c)) {
            fia_case_free(&c);
            continue;
        }
        quant++;
        scene s;
        read_scene(&c, &s);
        if (!scene_ok(&c, &s))
            badscene++;
        else
            cover[s.qs1][s.kd][class_of(&s)]++;
        const double w = fia_check_reference_work(&c);
        worst = w > worst ? w : worst;
        int ok = 1;
        if (s.kd == 0)
            int_range(&c, &lo8, &hi8, &ok);
        else
            int_range(&c, &lo4, &hi4, &ok);
        ints_ok &= ok;
        const fia_slot sc = s.sep ? FIA_SLOT_KEY_ANTIQUANT_SCALE
                                  : FIA_SLOT_ANTIQUANT_SCALE;
        const fia_slot of = (fia_slot)(sc + 1);
        int64_t ns = 0, no = 0;
        double *sv = ftl_data_of(&c, sc, &ns);
        for (int64_t i = 0; sv != NULL && i < ns; i++) {
            smin = fabs(sv[i]) < smin ? fabs(sv[i]) : smin;
            smax = fabs(sv[i]) > smax ? fabs(sv[i]) : smax;
        }
        free(sv);
        /* one offset throughout and the keys around minus it */
        if (has(&c, of)) {
            double *ov = ftl_data_of(&c, of, &no), *kv;
            int same = ov != NULL && no > 1, near = 0;
            for (int64_t i = 1; same && i < no; i++)
                same = ov[i] == ov[0];
            int64_t nk;
            if (same && s.kd == 0 && (kv = ftl_data_of(&c, FIA_SLOT_KEY, &nk))) {
                near = 1;
                for (int64_t i = 0; i < nk && near; i++)
                    near = fabs(kv[i] + ov[0]) <= 1 || kv[i] == -128 ||
                           kv[i] == 127;
                free(kv);
            }
            cancel += near;
            free(ov);
        }
        gqa += s.g.N != s.g.KV_N;
        mask += has(&c, FIA_SLOT_ATTEN_MASK);
        paged += s.paged;
        widened += s.g.D % 64 == 0 && s.kd > 0;
        for (int64_t b = 0; b < s.g.B; b++)
            if (fz_kv_len(&c, &s.g, b) != fz_kv_len(&c, &s.g, 0)) {
                ragged++;
                break;
            }
        past += s.g.KV_S > th.key_block;
        if (modeled) {
            fia_oracle_verdict v;
            fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL);
            refused += !v.accept;
        }
        char *text = fia_case_to_string(&c);
        fia_case p = ftl_parse(text ? text : "");
        roundtrip += fia_case_equal(&c, &p);
        fia_case_free(&p);
        free(text);
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d quantized (%d not as the doc says); int8 "
           "%g..%g, int4 %g..%g; |scale| %.3g..%.3g; offsets that cancel %d; "
           "GQA %d, mask %d, ragged %d, past the key block %d, paged %d, "
           "int4 %d; max work %.3g\n", quant, n, badscene, lo8, hi8, lo4, hi4,
           smin, smax, cancel, gqa, mask, ragged, past, paged, widened, worst);
    CHECK_COUNT(quant > n / 14);
    CHECK_EQ_INT(badscene, 0);
    CHECK_EQ_INT(roundtrip, quant);
    CHECK_COUNT(ints_ok && lo8 == -128 && hi8 == 127 && lo4 == -8 && hi4 == 7);
    CHECK_COUNT(smin < 0x1p-13 && smax >= 16);
    CHECK_COUNT(cancel > 5 && gqa > 20 && mask > 20 && ragged > 20 && past > 10);
    CHECK_COUNT(paged > 3 && widened > 10);
    CHECK(worst <= FZ_NUM_MAX_WORK);
    CHECK_EQ_INT(refused, 0); /* 0 when the oracle does not model it */
    int classes = 0;
    for (int i = 0; i < CL_COUNT; i++)
        classes += cover[1][0][i] > 0;
    CHECK_COUNT_MSG(classes == CL_COUNT, "%d of %d classes", classes,
                    CL_COUNT);
    CHECK_COUNT(cover[1][1][CL_S_PC] + cover[1][2][CL_S_PC] > 0 &&
          cover[1][1][CL_S01] + cover[1][2][CL_S01] > 0 &&
          cover[1][1][CL_S3] + cover[1][2][CL_S3] > 0);
    CHECK_COUNT(cover[0][0][CL_C_PT] > 0 && cover[0][0][CL_C_PC] > 0 &&
          cover[0][0][CL_S_PC] > 0 && cover[0][0][CL_S1] > 0);
}

/* ---- antiquant= ------------------------------------------------------------ */

static void check_values(const fia_case *c, fia_slot s, const double *want,
                         int64_t n)
{
    int64_t m;
    double *v = ftl_data_of(c, s, &m);
    CHECK_EQ_INT(m, n);
    int64_t wrong = 0;
    for (int64_t i = 0; v != NULL && i < n && i < m; i++)
        wrong += v[i] != want[i];
    CHECK_EQ_INT(wrong, 0);
    free(v);
}

/* The combined per-channel set with offsets: key half 0.5 / +1, value half
 * 2 / -1; and a scale not exact in fp16 refused. */
static void test_relation_combined(void)
{
    char text[2048];
    int p = snprintf(text, sizeof text,
                     "input_layout = BNSD\nnum_heads = 2\nnum_key_value_heads = 1\n"
                     "query = fp16 [1,2,1,16]\nkey = int8 [1,1,2,16]\n"
                     "value = int8 [1,1,2,16]\nantiquant_scale = fp16 [2,1,16]\n"
                     "antiquant_offset = fp16 [2,1,16]\n");
    const char *names[4] = {"key", "value", "antiquant_scale", "antiquant_offset"};
    for (int t = 0; t < 4; t++) {
        p += snprintf(text + p, sizeof text - (size_t)p, "%s.values = ", names[t]);
        for (int i = 0; i < 32; i++) {
            double x = t == 0 ? i * 8 - 128 : t == 1 ? 127 - i * 7
                       : t == 2 ? (i < 16 ? 0.5 : 2) : (i < 16 ? 1 : -1);
            p += snprintf(text + p, sizeof text - (size_t)p, "%s%g",
                          i ? "," : "", x);
        }
        p += snprintf(text + p, sizeof text - (size_t)p, "\n");
    }
    fia_case c = ftl_parse(text), o;
    fz_geom g;
    CHECK(fz_geom_of(&c, &g) == 0 && fz_antiquant_applies(&c, &g));
    CHECK(fuzz_meta_transform(&c, "antiquant=3", &o, NULL) == FIA_OK);
    double wk[32], wv[32];
    for (int i = 0; i < 32; i++) {
        wk[i] = (i * 8 - 128 + 1) * 0.5;
        wv[i] = (127 - i * 7 - 1) * 2.0;
    }
    check_values(&o, FIA_SLOT_KEY, wk, 32);
    check_values(&o, FIA_SLOT_VALUE, wv, 32);
    CHECK(o.tensors[FIA_SLOT_KEY].t[0].dtype == FIA_DT_FP16 &&
          o.tensors[FIA_SLOT_VALUE].t[0].dtype == FIA_DT_FP16);
    for (int i = 0; i < FZ_AQ_NT; i++)
        CHECK(!has(&o, fz_aq_slot[i]));
    CHECK(!o.attr_given[FIA_ATTR_ANTIQUANT_MODE]);
    fia_case_free(&o);
    /* 0.3 * 127 is not an fp16 value */
    c.tensors[FIA_SLOT_ANTIQUANT_SCALE].gen.values[3] = 0.3;
    fia_error err;
    CHECK(fuzz_meta_transform(&c, "antiquant=3", &o, &err) ==
          FIA_ERR_BAD_INPUT);
    fia_case_free(&c);
}

/* int4 packed in int32, separate per-token scales (BSH, D 64): element d
 * of row s is nibble d % 8 of int32 d / 8, times the row's scale. */
static void test_relation_int32(void)
{
    char text[4096];
    int p = snprintf(text, sizeof text,
                     "input_layout = BSH\nnum_heads = 1\nquery = bf16 [1,1,64]\n"
                     "key = int32 [1,3,8]\nvalue = int32 [1,3,8]\n"
                     "key_antiquant_mode = 1\nvalue_antiquant_mode = 1\n"
                     "key_antiquant_scale = fp32 [1,1,4]\n"
                     "value_antiquant_scale = fp32 [1,1,4]\n"
                     "key_antiquant_scale.values = 1,0.25,4,8\n"
                     "value_antiquant_scale.values = 2,2,2,2\n");
    uint32_t w[24];
    double want[192];
    for (int i = 0; i < 24; i++) {
        w[i] = 0;
        for (int k = 0; k < 8; k++) {
            const int x = (i * 8 + k) % 16 - 8;
            w[i] |= (uint32_t)(x & 0xf) << (4 * k);
            want[i * 8 + k] = x * (double[]){1, 0.25, 4}[i / 8];
        }
    }
    for (int t = 0; t < 2; t++) {
        p += snprintf(text + p, sizeof text - (size_t)p, "%s.values = ",
                      t ? "value" : "key");
        for (int i = 0; i < 24; i++)
            p += snprintf(text + p, sizeof text - (size_t)p, "%s%d",
                          i ? "," : "", (int)(int32_t)w[i]);
        p += snprintf(text + p, sizeof text - (size_t)p, "\n");
    }
    fia_case c = ftl_parse(text), o;
    fz_geom g;
    CHECK(fz_geom_of(&c, &g) == 0 && g.D == 64 && g.KV_S == 3);
    CHECK(fuzz_meta_transform(&c, "antiquant=0", &o, NULL) == FIA_OK);
    check_values(&o, FIA_SLOT_KEY, want, 192);
    for (int i = 0; i < 192; i++)
        want[i] = ((i % 16) - 8) * 2.0;
    check_values(&o, FIA_SLOT_VALUE, want, 192);
    const fia_tensor *k = &o.tensors[FIA_SLOT_KEY].t[0];
    CHECK(k->dtype == FIA_DT_BF16 && k->ndim == 3 && k->shape[2] == 64);
    fia_case_free(&o);
    fia_case_free(&c);
}

/* The metamorphic decoder's quantized bases take antiquant=, which builds
 * a form of the same geometry with the query's dtype. */
static void test_relation_decoded(void)
{
    fuzz_rng r = {31337};
    uint8_t buf[512];
    int n = check_draws(4000), picks = 0, applied = 0, same = 0, sep = 0, int4 = 0;
    int prefill = 0;
    for (int k = 0; k < n; k++) {
        fia_case c, o;
        char t[64];
        fuzz_decode_metamorphic(buf, ftl_random_input(&r, buf, 64, sizeof buf),
                                &c, t, sizeof t);
        CHECK(strncmp(t, "antiquant=", 10) != 0 || fz_antiquant_in_use(&c));
        if (strncmp(t, "antiquant=", 10) != 0) {
            fia_case_free(&c);
            continue;
        }
        picks++;
        if (fuzz_meta_transform(&c, t, &o, NULL) == FIA_OK) {
            applied++;
            fz_geom a, b;
            const fia_tensor *q = t0(&o, FIA_SLOT_QUERY);
            same += fz_geom_of(&c, &a) == 0 && fz_geom_of(&o, &b) == 0 &&
                    a.B == b.B && a.N == b.N && a.KV_N == b.KV_N &&
                    a.Q_S == b.Q_S && a.KV_S == b.KV_S && a.D == b.D &&
                    t0(&o, FIA_SLOT_KEY)->dtype == q->dtype &&
                    t0(&o, FIA_SLOT_VALUE)->dtype == q->dtype &&
                    !fz_antiquant_in_use(&o);
            sep += has(&c, FIA_SLOT_KEY_ANTIQUANT_SCALE);
            int4 += t0(&c, FIA_SLOT_KEY)->dtype != FIA_DT_INT8;
            prefill += a.Q_S > 1;
            fia_case_free(&o);
        }
        fia_case_free(&c);
    }
    printf("metamorphic: %d antiquant= of %d, %d applied (%d separate, %d "
           "int4, %d prefill)\n", picks, n, applied, sep, int4, prefill);
    CHECK_COUNT(picks > n / 20);
    CHECK_EQ_INT(applied, picks);
    CHECK_EQ_INT(same, applied);
    CHECK_COUNT(sep > 10 && applied - sep > 10 && int4 > 3 && prefill > 5);
}

int main(void)
{
    test_params();
    test_numeric();
    test_relation_combined();
    test_relation_int32();
    test_relation_decoded();
    return check_summary();
}
