/* The three fuzz targets and their signatures. */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static const char *const target_names[] = {"fuzz_params", "fuzz_numeric",
                                           "fuzz_metamorphic"};

const char *fuzz_target_name(fuzz_target_id t)
{
    return (int)t >= 0 && t < FUZZ_TARGET_COUNT ? target_names[t] : "?";
}

int fuzz_target_from_name(const char *name)
{
    for (int i = 0; i < FUZZ_TARGET_COUNT; i++)
        if (strcmp(name, target_names[i]) == 0 ||
            strcmp(name, target_names[i] + 5) == 0)
            return i;
    return -1;
}

/* ---- signatures ---------------------------------------------------------- */

static void sb_add(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%s", s);
}

void fuzz_feature_set(const fia_case *c, char *buf, size_t len)
{
    fz_geom g;
    buf[0] = '\0';
    int geom = fz_geom_of(c, &g) == 0;
    int decode = geom && g.Q_S == 1;
    sb_add(buf, len, !geom ? "irregular" : decode ? "decode" : "prefill");
    if (geom && !decode) {
        char s[32];
        snprintf(s, sizeof s, "+sparse%lld", (long long)c->attrs.sparse_mode);
        sb_add(buf, len, s);
    }
    if (c->tensors[FIA_SLOT_ATTEN_MASK].presence == FIA_PRESENT)
        sb_add(buf, len, "+mask");
    if (geom && g.KV_N != g.N)
        sb_add(buf, len, "+gqa");
    if (c->attrs.softmax_lse_flag)
        sb_add(buf, len, "+lse");
    if (c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence == FIA_PRESENT && !decode)
        sb_add(buf, len, "+seqlen");
    if (c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence == FIA_PRESENT)
        sb_add(buf, len, "+seqlenkv");
    if (c->attrs.inner_precise & 2)
        sb_add(buf, len, "+rowinv");
    if (geom && g.KV_S == 0)
        sb_add(buf, len, "+emptykv");
}

static const char *qdtype(const fia_case *c)
{
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    return q->presence == FIA_PRESENT ? fia_dtype_name(q->t[0].dtype) : "none";
}

static void layout_word(const fia_case *c, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *p = c->attrs.input_layout; *p && k + 1 < len && k < 12; p++)
        buf[k++] = (*p >= 'A' && *p <= 'Z') || *p == '_' ? *p : '?';
    buf[k] = '\0';
    if (k == 0)
        snprintf(buf, len, "-");
}

void fuzz_bucket(const fia_case *c, char *buf, size_t len)
{
    char fs[128], lw[16];
    fuzz_feature_set(c, fs, sizeof fs);
    layout_word(c, lw, sizeof lw);
    snprintf(buf, len, "%s|%s|%s", fs, qdtype(c), lw);
}

void fuzz_signature(const fia_case *c, const fia_check_result *r,
                    fia_profile profile, char *buf, size_t len)
{
    char lw[16];
    layout_word(c, lw, sizeof lw);
    if (r->v == FIA_V_STATUS_MISMATCH) {
        /* the rules of the layer that decides the expected status */
        int layer = 99;
        for (int i = 0; i < r->ov.n_fired; i++)
            if ((int)r->ov.fired[i]->layer < layer)
                layer = (int)r->ov.fired[i]->layer;
        char rules[160] = "";
        for (int i = 0; i < r->ov.n_fired; i++)
            if ((int)r->ov.fired[i]->layer == layer) {
                if (rules[0])
                    sb_add(rules, sizeof rules, "+");
                sb_add(rules, sizeof rules, r->ov.fired[i]->id);
            }
        snprintf(buf, len, "status-mismatch|%s|%s>%s|%s|%s|%s",
                 rules[0] ? rules : "accept", fia_status_name(r->ov.expected),
                 fia_status_name(r->fast_status), fia_profile_name(profile),
                 qdtype(c), lw);
        return;
    }
    char fs[128];
    fuzz_feature_set(c, fs, sizeof fs);
    snprintf(buf, len, "%s|%s|%s|%s", fia_verdict_name(r->v), fs, qdtype(c), lw);
}

/* ---- one input ----------------------------------------------------------- */

static int run_params(const uint8_t *data, size_t size)
{
    static fia_case c;
    static fia_check_result r;
    if (fuzz_decode_params(data, size, &c) != FIA_OK) {
        fuzz_report_skip(); /* out of memory: an incomplete case */
        fia_case_free(&c);
        return 0;
    }
    fia_profile prof[2];
    int np = fuzz_report_profiles(prof);
    fia_check_options o;
    fia_check_options_default(&o);
    o.status_only = 1;
    for (int i = 0; i < np; i++) {
        o.profile = prof[i];
        fia_check_case(&c, &o, &r);
        fuzz_report_verdict(&c, &r, prof[i]);
    }
    fia_case_free(&c);
    return 0;
}

static int run_numeric(const uint8_t *data, size_t size)
{
    static fia_case c;
    static fia_check_result r;
    if (fuzz_decode_numeric(data, size, &c) != FIA_OK) {
        fuzz_report_skip();
        fia_case_free(&c);
        return 0;
    }
    fia_profile prof[2];
    fuzz_report_profiles(prof);
    fia_check_options o;
    fia_check_options_default(&o);
    o.profile = prof[0];
    fia_check_case(&c, &o, &r);
    if (r.v == FIA_V_BAD_INPUT || r.v == FIA_V_NOT_MODELED || !r.ov.accept)
        fuzz_report_skip();
    fuzz_report_verdict(&c, &r, prof[0]);
    fia_case_free(&c);
    return 0;
}

static int run_metamorphic(const uint8_t *data, size_t size)
{
    static fia_case c;
    char transform[64];
    if (fuzz_decode_metamorphic(data, size, &c, transform, sizeof transform) !=
        FIA_OK) {
        fuzz_report_skip();
        fia_case_free(&c);
        return 0;
    }
    fia_profile prof[2];
    fuzz_report_profiles(prof);
    fuzz_meta_result m;
    fuzz_meta_check(&c, transform, prof[0], &m);
    if (!m.applicable) {
        fuzz_report_skip();
    } else {
        if (m.finding) {
            fuzz_finding f;
            fuzz_finding_of_meta(&f, &c, &m, prof[0], transform);
            fuzz_report_finding(&c, &f);
        }
    }
    fia_case_free(&c);
    return 0;
}

int fuzz_run_one(fuzz_target_id t, const uint8_t *data, size_t size)
{
    fuzz_report_init(t);
    switch (t) {
    case FUZZ_PARAMS: run_params(data, size); break;
    case FUZZ_NUMERIC: run_numeric(data, size); break;
    default: run_metamorphic(data, size); break;
    }
    fuzz_report_exec();
    return 0;
}
