/* `fiacheck repro ID|CASE [--db PATH] [--profile doc|cann] [--target T]
 *                 [--tolerance T] [--json]`
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
#include <sys/stat.h>
#include "cli.h"
#include "fia/check.h"
#include "fia/sut_host.h"
#include "fia/ref.h"
#include "fuzz/fuzz.h"
#include "fuzz/signature.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

fia_status cli_load_finding(const char *arg, const char *db, int minimized,
                            char **text, int64_t *id, fia_error *err)
{
    *text = NULL;
    *id = 0;
    int digits = arg[0] != '\0';
    for (const char *p = arg; *p; p++)
        digits = digits && isdigit((unsigned char)*p);
    if (!digits)
        return fia_case_read_file(arg, text, err);
#ifdef FIA_HAVE_STORE
    fia_store *st = NULL;
    char msg[512];
    fia_status rc = fia_store_open(db, 0, &st, msg, sizeof msg);
    if (rc != FIA_OK)
        return fia_fail(err, rc, "%s", msg);
    fia_store_finding f;
    memset(&f, 0, sizeof f);
    *id = atoll(arg);
    if ((rc = fia_store_get_finding(st, *id, &f)) != FIA_OK) {
        fia_fail(err, rc, "no finding %s in %s: %s", arg, db,
                 fia_store_errmsg(st));
        fia_store_close(st);
        return rc;
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
    if (fia_call_sut(c, &d, p, 1, NULL) == FIA_OK) {
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

/* A finding's system ("# fiacheck-sut: NAME VERSION"; a finding without
 * the line is fast/'s) must be the current one: a finding of one kernel
 * says nothing of another.  A plain case (no signature, no system) runs
 * on any.  FIA_OK, or FIA_ERR_BAD_INPUT after saying why. */
static fia_status same_system(const char *text)
{
    char v[200], name[80], sig[16];
    fuzz_text_header(text, "sut", v, sizeof v);
    fuzz_text_header(text, "signature", sig, sizeof sig);
    if (!v[0] && !sig[0])
        return FIA_OK; /* a case, not a finding: any system may run it */
    const char *rec = v[0] ? v : "fast";
    snprintf(name, sizeof name, "%.*s", (int)strcspn(rec, " "), rec);
    const fia_sut *s = fia_sut_current();
    if (strcmp(name, s->name) == 0)
        return FIA_OK;
    fprintf(stderr, "fiacheck: the finding was made with the system under "
            "test '%s'%s; this run tests '%s' (give --sut with %s's plug-in)\n",
            name, v[0] ? " (a plug-in)" : " (fast/, built in)", s->name,
            name);
    return FIA_ERR_BAD_INPUT;
}

fia_status cli_finding_context(const char *text, fuzz_target_id *t,
                               fia_profile *p, char *transform, size_t tlen)
{
    char v[64];
    fia_status st = same_system(text);
    if (st != FIA_OK)
        return st;
    fuzz_text_header(text, "target", v, sizeof v);
    int tt = fuzz_target_from_name(v);
    *t = tt >= 0 ? (fuzz_target_id)tt : FUZZ_NUMERIC;
    fuzz_text_header(text, "profile", v, sizeof v);
    if (fia_profile_parse(v, p) != 0)
        *p = FIA_PROFILE_DOC;
    fuzz_text_header(text, "transform", transform, tlen);
    /* the system as the finding ran it: its kernel level and threads
     * change its numbers (for fast/, FIA_FAST_ISA / FIA_FAST_THREADS set
     * by the user win) */
    char lv[32], th[16];
    fuzz_text_header(text, "fast-kernels", lv, sizeof lv);
    fuzz_text_header(text, "fast-threads", th, sizeof th);
    const fia_sut *s = fia_sut_current();
    if (s->set_option == NULL)
        return FIA_OK;
    const char *ue = getenv("FIA_FAST_ISA"), *ut = getenv("FIA_FAST_THREADS");
    int builtin = fia_sut_current_is_builtin();
    if (th[0] && (!builtin || ut == NULL || ut[0] == '\0'))
        s->set_option("threads", th);
    const char *now = s->get_option("kernel_level");
    if (lv[0] && (!builtin || ue == NULL || ue[0] == '\0') &&
        (now == NULL || strcmp(lv, now) != 0) &&
        s->set_option("kernel_level", lv) != 0)
        fprintf(stderr, "fiacheck: the finding ran %s with the %s "
                "kernels, which this machine lacks; running with %s\n",
                builtin ? "fast/" : s->name, lv, now ? now : "its default");
    return FIA_OK;
}

fia_status cli_finding_options(const char *text, const cli_finding_opts *fo,
                               fuzz_target_id *t, fia_check_options *o,
                               char *transform, size_t tlen)
{
    fia_profile p;
    fia_status st = cli_finding_context(text, t, &p, transform, tlen);
    if (st != FIA_OK)
        return st;
    *o = fo->check;
    o->profile = fo->profile_given ? fo->profile : p;
    if (fo->target >= 0)
        *t = (fuzz_target_id)fo->target;
    char tol[96];
    fuzz_text_header(text, "tolerance", tol, sizeof tol);
    if (!fo->tolerance_given && tol[0] &&
        (st = cli_tolerance_from_text(tol, o)) != FIA_OK) {
        fprintf(stderr, "fiacheck: the finding's tolerance '%s' is not one "
                "fiacheck knows\n", tol);
        return st;
    }
    /* found with fast/ under another status profile (FIACHECK_FAST_PROFILE) */
    fuzz_text_header(text, "fast-profile", tol, sizeof tol);
    if (tol[0] && fia_profile_parse(tol, &o->fast_profile) != 0) {
        fprintf(stderr, "fiacheck: the finding's fast-profile '%s' is not doc "
                "or cann\n", tol);
        return FIA_ERR_BAD_INPUT;
    }
    o->fast_profile_set = tol[0] != '\0';
    return FIA_OK;
}

/* The JSON object of a repro (docs/cli.md), without its closing brace. */
static void json_head(const char *arg, fuzz_target_id t,
                      const fia_check_options *o, const char *recorded)
{
    char tol[96];
    cli_tolerance_text(o, tol, sizeof tol);
    printf("{\"case\":");
    cli_json_string(stdout, arg);
    printf(",\"target\":\"%s\",\"profile\":\"%s\",\"tolerance\":\"%s\"",
           fuzz_target_name(t), fia_profile_name(o->profile), tol);
    printf(",\"recorded_signature\":");
    cli_json_string(stdout, recorded);
}

/* A metamorphic finding: both forms again.  The exit code. */
static int repro_metamorphic(const fia_case *c, const char *transform,
                             const fia_check_options *o, int json)
{
    fuzz_meta_result m;
    fia_error err;
    const char *verdict;
    if (fia_sut_check_settings(c, &err) != FIA_OK) {
        /* the case's run settings (a kernel level this CPU lacks): its
         * bad input, said as `run` says it, not a relation that does not
         * apply */
        memset(&m, 0, sizeof m);
        snprintf(m.message, sizeof m.message, "%s", err.msg);
        verdict = "bad-input";
    } else {
        fuzz_meta_check(c, transform, o->profile, &m);
        verdict = !m.applicable ? "not applicable"
                : m.finding ? m.kind : "pass";
    }
    if (json) {
        printf(",\"transform\":");
        cli_json_string(stdout, transform);
        printf(",\"verdict\":");
        cli_json_string(stdout, verdict);
        printf(",\"signature\":");
        cli_json_string(stdout, m.finding ? m.signature : "");
        printf(",\"message\":");
        cli_json_string(stdout, m.message);
        printf("}\n");
    } else {
        printf("  transform      %s\n", transform);
        printf("  verdict        %s%s%s\n", verdict, m.message[0] ? ": " : "",
               m.message);
        if (m.finding)
            printf("  signature      %s\n", m.signature);
    }
    return m.finding ? CLI_EXIT_FINDING : m.applicable ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

static void print_check_text(const fia_check_result *r)
{
    if (r->evaluated) {
        printf("  expected       %d %s; rules fired:", r->ov.expected,
               fia_status_name(r->ov.expected));
        for (int i = 0; i < r->ov.n_fired; i++)
            printf(" %s", r->ov.fired[i]->id);
        printf("%s\n", r->ov.n_fired ? "" : " -");
        for (int i = 0; i < r->ov.n_fired; i++)
            printf("    %-11s %s\n", r->ov.fired[i]->id, r->ov.fired[i]->summary);
    }
    if (r->fast_called)
        printf("  fast           %d %s%s%s\n", r->fast_status,
               fia_status_name(r->fast_status), r->fast_error.msg[0] ? ": " : "",
               r->fast_error.msg);
    if (r->computed) {
        printf("  attention_out  max %.3g ulp, max rel err %.3g, %lld outside "
               "tolerance, %lld NaN/inf leaks\n", r->out_cmp.max_ulp,
               r->out_cmp.max_rel_err, (long long)r->out_cmp.n_fail,
               (long long)r->out_cmp.n_nan_leak);
        if (r->has_lse)
            printf("  softmax_lse    max %.3g ulp, %lld outside tolerance, "
                   "%lld leaks\n", r->lse_cmp.max_ulp,
                   (long long)r->lse_cmp.n_fail, (long long)r->lse_cmp.n_nan_leak);
    }
}

static void print_check_json(const fia_check_result *r, const char *sig)
{
    if (r->evaluated) {
        printf(",\"expected_status\":%d,\"rules\":[", r->ov.expected);
        for (int i = 0; i < r->ov.n_fired; i++)
            printf("%s\"%s\"", i ? "," : "", r->ov.fired[i]->id);
        printf("]");
    }
    if (r->fast_called)
        printf(",\"fast_status\":%d", r->fast_status);
    if (r->computed) {
        cli_json_num("max_ulp", r->out_cmp.max_ulp);
        printf(",\"failed\":%lld,\"nan_leaks\":%lld",
               (long long)r->out_cmp.n_fail, (long long)r->out_cmp.n_nan_leak);
    }
    printf(",\"verdict\":\"%s\",\"signature\":", fia_verdict_name(r->v));
    cli_json_string(stdout, sig);
    printf(",\"message\":");
    cli_json_string(stdout, r->reason.msg);
    printf("}\n");
}

/* A finding of fia_check_case: the statuses and the rules that decide
 * them, the comparison and the worst elements.  The exit code. */
static int repro_check(const fia_case *c, fuzz_target_id t,
                       const fia_check_options *opt, const char *recorded,
                       int json)
{
    static fia_check_result r;
    fia_check_options o = *opt;
    o.status_only = t == FUZZ_PARAMS;
    o.fail_masks = 1; /* the signature names where the output fails */
    fia_check_case(c, &o, &r);
    char now[FUZZ_SIGNATURE_LEN] = "";
    if (fia_verdict_is_finding(r.v))
        fuzz_signature(c, &r, o.profile, now, sizeof now);
    fia_check_result_release(&r);
    if (json) {
        print_check_json(&r, now);
    } else {
        print_check_text(&r);
        if (r.computed && r.v != FIA_V_PASS)
            show_elements(c, o.profile);
        printf("  verdict        %s%s%s\n", fia_verdict_name(r.v),
               r.reason.msg[0] ? ": " : "", r.reason.msg);
        if (now[0])
            printf("  signature      %s%s\n", now,
                   !recorded[0] || !strcmp(recorded, now) ? ""
                   : fuzz_signature_compatible(recorded, now)
                       ? " (compatible with the recorded one: no region shown)"
                       : " (differs from the recorded one)");
    }
    return fia_verdict_is_finding(r.v) ? CLI_EXIT_FINDING
         : r.v == FIA_V_BAD_INPUT ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

/* a format: %s the tolerance names (cli_tolerance_names) */
static const char repro_usage[] =
    "usage: fiacheck repro ID|CASE [--db PATH] [--profile doc|cann]\n"
    "                      [--target params|numeric|metamorphic]\n"
    "                      [--tolerance %s]\n"
    "                      [--json]\n"
    "  ID|CASE         a finding of the store (its id) or a case file\n"
    "  --db PATH       the store (default results/findings.db)\n"
    "  --profile P     status codes: doc or cann (default: the finding's)\n"
    "  --target T      judge as this fuzz target (default: the finding's)\n"
    "  --tolerance T   the accuracy criterion (default: the finding's, or\n"
    "                  bound; docs/tolerance.md)\n"
    "  --json          one JSON object (docs/cli.md)\n"
    "  --sut PATH      the plug-in the finding was made with (docs/sut.md)\n"
    "  --no-isolate    call the plug-in in-process (default: each call in a\n"
    "                  child process, a crash or hang a finding; --isolate\n"
    "                  does so for fast/ too)\n"
    "  --timeout S     seconds a call out of process may take (default 60)\n"
    "exit status: 0 it passes, 1 it still fails, 2 bad usage or input\n";

int cmd_repro(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf(repro_usage, cli_tolerance_names());
            return CLI_EXIT_OK;
        }
    cli_finding_opts fo;
    if (cli_finding_args("repro", 0, argc, argv, &fo) != 0) {
        fprintf(stderr, repro_usage, cli_tolerance_names());
        return CLI_EXIT_USAGE;
    }
    char *text;
    int64_t id;
    fia_error err;
    if (cli_load_finding(fo.arg, fo.db, 0, &text, &id, &err) != FIA_OK) {
        char why[700];
        fprintf(stderr, "fiacheck repro: %s\n",
                fia_error_text(&err, why, sizeof why));
        return CLI_EXIT_USAGE;
    }
    fuzz_target_id t;
    fia_check_options o;
    char transform[64], sig[256];
    if (cli_finding_options(text, &fo, &t, &o, transform, sizeof transform)
        != FIA_OK) {
        free(text);
        return CLI_EXIT_USAGE;
    }
    fuzz_text_header(text, "signature", sig, sizeof sig);
    fia_case c;
    if (fia_case_parse_string(text, fo.arg, &c, &err) != 0) {
        fprintf(stderr, "fiacheck repro: %s:%d: %s\n", fo.arg, err.line,
                err.msg);
        free(text);
        return CLI_EXIT_USAGE;
    }
    free(text);
    if (fo.json) {
        json_head(fo.arg, t, &o, sig);
    } else {
        char sut[256];
        cli_sut_describe(sut, sizeof sut);
        printf("%s (target %s, profile %s, %s)\n", fo.arg,
               fuzz_target_name(t), fia_profile_name(o.profile), sut);
        printf("  fiacheck       %s%s\n", cli_build_revision(),
               cli_build_dirty() ? " (dirty)" : "");
        if (sig[0])
            printf("  recorded       %s\n", sig);
    }
    int rc = t == FUZZ_METAMORPHIC && transform[0]
           ? repro_metamorphic(&c, transform, &o, fo.json)
           : repro_check(&c, t, &o, sig, fo.json);
    fia_case_free(&c);
    return rc;
}
