/* The fuzz targets of fuzz/targets.def (their signatures: signature.c). */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz_internal.h"

static const char *const target_names[] = {
#define FUZZ_TARGET(name, ID) "fuzz_" #name,
#include "fuzz/targets.def"
#undef FUZZ_TARGET
};

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
    fuzz_report_check_options(&o);
    o.status_only = 1;
    for (int i = 0; i < np; i++) {
        o.profile = prof[i];
        fia_check_case(&c, &o, &r);
        if (r.evaluated)
            fz_guide_verdict(&r.ov, prof[i]);
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
    fuzz_report_check_options(&o);
    o.profile = prof[0];
    o.fail_masks = 1; /* the signature names where the output fails */
    fia_check_case(&c, &o, &r);
    if (r.v == FIA_V_BAD_INPUT || r.v == FIA_V_NOT_MODELED || !r.ov.accept)
        fuzz_report_skip();
    fuzz_report_verdict(&c, &r, prof[0]);
    fia_check_result_release(&r);
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
    const double t0 = fia_check_cpu_seconds();
    fuzz_report_init(t);
    fuzz_report_input(data, size);
    switch (t) {
#define FUZZ_TARGET(name, ID) \
    case FUZZ_##ID: run_##name(data, size); break;
#include "fuzz/targets.def"
#undef FUZZ_TARGET
    default: break;
    }
    fuzz_report_input(NULL, 0);
    fuzz_report_exec();
    fuzz_report_target_seconds(fia_check_cpu_seconds() - t0, 0.0);
    return 0;
}
