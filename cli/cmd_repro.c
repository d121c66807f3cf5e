/* `fiacheck repro ID|CASE [--db PATH] [--profile doc|cann] [--target T]`
 *
 * Re-runs a stored finding (by id) or a case file and shows the difference:
 * the expected and actual status with the rules that decide it, or the
 * worst output elements with their indices, the reference value, fast/'s
 * value and the ULP error (the reference and fast/ are run here again, for
 * the per-element data).  A metamorphic finding re-runs both forms.
 * Exit 0 when it no longer fails, 1 when it still does, 2 bad usage. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fia/check.h"
#include "fia/fast.h"
#include "fia/ref.h"
#include "fuzz/fuzz.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

/* The whole file at path into *out (the caller frees it). */
static fia_status read_text(const char *path, char **out, fia_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fia_fail(err, FIA_ERR_IO, "cannot read %s", path);
    size_t cap = 1 << 16, n = 0, got;
    char *s = malloc(cap);
    while (s != NULL && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *ns = realloc(s, cap *= 2);
            if (ns == NULL)
                free(s);
            s = ns;
        }
    }
    fclose(f);
    if (s == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory to read %s", path);
    s[n] = '\0';
    *out = s;
    return FIA_OK;
}

fia_status cli_load_finding(const char *arg, const char *db, int minimized,
                            char **text, int64_t *id, fia_error *err)
{
    *text = NULL;
    *id = 0;
    int digits = arg[0] != '\0';
    for (const char *p = arg; *p; p++)
        digits = digits && isdigit((unsigned char)*p);
    if (!digits)
        return read_text(arg, text, err);
#ifdef FIA_HAVE_STORE
    fia_store *st = NULL;
    char msg[512];
    if (fia_store_open(db, 0, &st, msg, sizeof msg) != FIA_STORE_OK)
        return fia_fail(err, FIA_ERR_IO, "%s", msg);
    fia_store_finding f;
    memset(&f, 0, sizeof f);
    *id = atoll(arg);
    if (fia_store_get_finding(st, *id, &f) != FIA_STORE_OK) {
        fia_fail(err, FIA_ERR_BAD_INPUT, "no finding %s in %s: %s", arg, db,
                 fia_store_errmsg(st));
        fia_store_close(st);
        return FIA_ERR_BAD_INPUT;
    }
    const char *t = minimized && f.minimized_text ? f.minimized_text : f.case_text;
    *text = strdup(t ? t : "");
    fia_store_finding_free(&f);
    fia_store_close(st);
    if (*text == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "no memory for finding %s", arg);
    return FIA_OK;
#else
    (void)db, (void)minimized;
    return fia_fail(err, FIA_ERR_BAD_INPUT, "built without the store; give a "
                    "case file");
#endif
}

/* ULP distance of two values of an output dtype (through their bits). */
static double ulp_dist(fia_dtype dt, double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) ? 0 : INFINITY;
    if (dt == FIA_DT_FP32) {
        float x = (float)a, y = (float)b;
        int32_t ix, iy;
        memcpy(&ix, &x, 4);
        memcpy(&iy, &y, 4);
        int64_t ox = ix < 0 ? (int64_t)INT32_MIN - ix : ix;
        int64_t oy = iy < 0 ? (int64_t)INT32_MIN - iy : iy;
        return (double)llabs(ox - oy);
    }
    uint16_t hx = dt == FIA_DT_FP16 ? fia_double_to_fp16(a) : fia_double_to_bf16(a);
    uint16_t hy = dt == FIA_DT_FP16 ? fia_double_to_fp16(b) : fia_double_to_bf16(b);
    int ox = hx & 0x8000 ? -(hx & 0x7fff) : hx, oy = hy & 0x8000 ? -(hy & 0x7fff) : hy;
    return fabs((double)(ox - oy));
}

static void print_index(const fia_tensor *t, int64_t flat)
{
    int64_t idx[FIA_MAX_RANK];
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = flat % n;
        flat /= n;
    }
    printf("[");
    for (int d = 0; d < t->ndim; d++)
        printf("%s%lld", d ? "," : "", (long long)idx[d]);
    printf("]");
}

/* The worst elements of one output against the reference. */
static void worst_elements(const char *name, const fia_tensor *ref,
                           const double *exact, const uint8_t *unspec,
                           const fia_tensor *got, int top)
{
    int64_t n = fia_tensor_numel(ref);
    int64_t best[16];
    double bu[16];
    int nb = 0;
    for (int64_t i = 0; i < n; i++) {
        if (unspec && unspec[i])
            continue;
        double r = fia_load_as_double(ref->dtype, ref->data, i);
        double g = fia_load_as_double(got->dtype, got->data, i);
        double u = ulp_dist(ref->dtype, r, g);
        if (u == 0)
            continue;
        if (nb == top && u <= bu[top - 1])
            continue;
        int k = nb < top ? nb++ : top - 1;
        while (k > 0 && bu[k - 1] < u) {
            bu[k] = bu[k - 1], best[k] = best[k - 1];
            k--;
        }
        bu[k] = u, best[k] = i;
    }
    printf("  %s: %d worst elements (index: reference exact / rounded, fast, ulp)\n",
           name, nb);
    for (int k = 0; k < nb; k++) {
        int64_t i = best[k];
        printf("    ");
        print_index(ref, i);
        printf(": %.9g / %.9g, %.9g, %.0f ulp\n", exact[i],
               fia_load_as_double(ref->dtype, ref->data, i),
               fia_load_as_double(got->dtype, got->data, i), bu[k]);
    }
}

static void show_elements(const fia_case *c, fia_profile p)
{
    fia_case_data d;
    fia_error err;
    if (fia_case_materialize(c, 1, &d, &err) != 0)
        return;
    if (fia_call_fast(c, &d, p, 1, NULL) == FIA_OK) {
        fia_ref_options ro;
        fia_ref_options_default(&ro);
        fia_ref_result ref;
        memset(&ref, 0, sizeof ref);
        if (fia_ref_compute(c, &d, &ro, &ref, NULL) == FIA_OK) {
            const fia_tensor *o = d.t[FIA_SLOT_ATTENTION_OUT];
            if (o && fia_tensor_numel(o) == ref.out_numel)
                worst_elements("attention_out", &ref.out, ref.out_exact,
                               ref.out_unspecified, o, 10);
            const fia_tensor *l = d.t[FIA_SLOT_SOFTMAX_LSE];
            if (ref.has_lse && l && fia_tensor_numel(l) == ref.lse_numel)
                worst_elements("softmax_lse", &ref.lse, ref.lse_exact,
                               ref.lse_unspecified, l, 5);
        }
        fia_ref_result_free(&ref);
    }
    fia_case_data_free(&d);
}

void cli_finding_context(const char *text, fuzz_target_id *t, fia_profile *p,
                         char *transform, size_t tlen)
{
    char v[64];
    fuzz_text_header(text, "target", v, sizeof v);
    int tt = fuzz_target_from_name(v);
    *t = tt >= 0 ? (fuzz_target_id)tt : FUZZ_NUMERIC;
    fuzz_text_header(text, "profile", v, sizeof v);
    if (fia_profile_parse(v, p) != 0)
        *p = FIA_PROFILE_DOC;
    fuzz_text_header(text, "transform", transform, tlen);
    /* fast/ as the finding ran it: its kernel level and threads change its
     * numbers (FIA_FAST_ISA / FIA_FAST_THREADS set by the user win) */
    char lv[32], th[16];
    fuzz_text_header(text, "fast-kernels", lv, sizeof lv);
    fuzz_text_header(text, "fast-threads", th, sizeof th);
    const char *ue = getenv("FIA_FAST_ISA"), *ut = getenv("FIA_FAST_THREADS");
    if (th[0] && (ut == NULL || ut[0] == '\0'))
        setenv("FIA_FAST_THREADS", th, 1);
    if (lv[0] && (ue == NULL || ue[0] == '\0') &&
        strcmp(lv, fastKernelLevel()) != 0 && fastForceKernelLevel(lv) != 0)
        fprintf(stderr, "fiacheck: the finding ran fast/ with the %s "
                "kernels, which this machine lacks; running with %s\n", lv,
                fastKernelLevel());
}

/* A metamorphic finding: both forms again.  The exit code. */
static int repro_metamorphic(const fia_case *c, const char *transform,
                             fia_profile p)
{
    fuzz_meta_result m;
    fuzz_meta_check(c, transform, p, &m);
    printf("  transform      %s\n", transform);
    printf("  verdict        %s%s%s\n", !m.applicable ? "not applicable"
           : m.finding ? m.kind : "pass", m.message[0] ? ": " : "", m.message);
    if (m.finding)
        printf("  signature      %s\n", m.signature);
    return m.finding ? CLI_EXIT_FINDING : m.applicable ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* A finding of fia_check_case: the statuses and the rules that decide
 * them, the comparison and the worst elements.  The exit code. */
static int repro_check(const fia_case *c, fuzz_target_id t, fia_profile p,
                       const char *recorded)
{
    static fia_check_result r;
    fia_check_options o;
    fia_check_options_default(&o);
    o.profile = p;
    o.status_only = t == FUZZ_PARAMS;
    fia_check_case(c, &o, &r);
    if (r.evaluated) {
        printf("  expected       %d %s; rules fired:", r.ov.expected,
               fia_status_name(r.ov.expected));
        for (int i = 0; i < r.ov.n_fired; i++)
            printf(" %s", r.ov.fired[i]->id);
        printf("%s\n", r.ov.n_fired ? "" : " -");
        for (int i = 0; i < r.ov.n_fired; i++)
            printf("    %-11s %s\n", r.ov.fired[i]->id, r.ov.fired[i]->summary);
    }
    if (r.fast_called)
        printf("  fast           %d %s%s%s\n", r.fast_status,
               fia_status_name(r.fast_status), r.fast_error.msg[0] ? ": " : "",
               r.fast_error.msg);
    if (r.computed) {
        printf("  attention_out  max %.3g ulp, max rel err %.3g, %lld outside "
               "tolerance, %lld NaN/inf leaks\n", r.out_cmp.max_ulp,
               r.out_cmp.max_rel_err, (long long)r.out_cmp.n_fail,
               (long long)r.out_cmp.n_nan_leak);
        if (r.has_lse)
            printf("  softmax_lse    max %.3g ulp, %lld outside tolerance, "
                   "%lld leaks\n", r.lse_cmp.max_ulp,
                   (long long)r.lse_cmp.n_fail, (long long)r.lse_cmp.n_nan_leak);
        if (r.v != FIA_V_PASS)
            show_elements(c, p);
    }
    printf("  verdict        %s%s%s\n", fia_verdict_name(r.v),
           r.reason.msg[0] ? ": " : "", r.reason.msg);
    if (fia_verdict_is_finding(r.v)) {
        char now[FUZZ_SIGNATURE_LEN];
        fuzz_signature(c, &r, p, now, sizeof now);
        printf("  signature      %s%s\n", now, recorded[0] && strcmp(recorded, now)
               ? " (differs from the recorded one)" : "");
    }
    return fia_verdict_is_finding(r.v) ? CLI_EXIT_FINDING
         : r.v == FIA_V_BAD_INPUT ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

int cmd_repro(int argc, char **argv)
{
    const char *arg = NULL, *db = "results/findings.db", *prof = NULL, *tgt = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) db = argv[++i];
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) prof = argv[++i];
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) tgt = argv[++i];
        else if (argv[i][0] != '-' && arg == NULL) arg = argv[i];
        else arg = NULL, i = argc;
    }
    if (arg == NULL) {
        fprintf(stderr, "usage: fiacheck repro ID|CASE [--db PATH] "
                "[--profile doc|cann] [--target params|numeric|metamorphic]\n");
        return CLI_EXIT_USAGE;
    }
    char *text;
    int64_t id;
    fia_error err;
    if (cli_load_finding(arg, db, 0, &text, &id, &err) != FIA_OK) {
        fprintf(stderr, "fiacheck: %s\n", err.msg);
        return CLI_EXIT_USAGE;
    }
    fuzz_target_id t;
    fia_profile p;
    char transform[64], sig[256];
    cli_finding_context(text, &t, &p, transform, sizeof transform);
    fuzz_text_header(text, "signature", sig, sizeof sig);
    if (prof && fia_profile_parse(prof, &p) != 0)
        return free(text), CLI_EXIT_USAGE;
    if (tgt && fuzz_target_from_name(tgt) >= 0)
        t = (fuzz_target_id)fuzz_target_from_name(tgt);
    fia_case c;
    if (fia_case_parse_string(text, arg, &c, &err) != 0) {
        fprintf(stderr, "fiacheck repro: %s:%d: %s\n", arg, err.line, err.msg);
        free(text);
        return CLI_EXIT_USAGE;
    }
    free(text);
    printf("%s (target %s, profile %s, fast/ %s kernels, %d threads)\n",
           arg, fuzz_target_name(t), fia_profile_name(p), fastKernelLevel(),
           fastThreadCount());
    printf("  fiacheck       %s%s\n", cli_build_revision(),
           cli_build_dirty() ? " (dirty)" : "");
    if (sig[0])
        printf("  recorded       %s\n", sig);
    int rc = t == FUZZ_METAMORPHIC && transform[0]
           ? repro_metamorphic(&c, transform, p)
           : repro_check(&c, t, p, sig);
    fia_case_free(&c);
    return rc;
}
