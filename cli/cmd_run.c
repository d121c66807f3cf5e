/* `fiacheck run CASE... [--profile doc|cann] [--json] [--status-only]
 *                       [--precision BITS]`
 *
 * Per case: the oracle's expected status and the rules that fired, fast/'s
 * status, and for accepted cases the error of fast/'s outputs against the
 * MPFR reference.  Exit 0 when every case passes, 1 on any finding, 2 on bad
 * usage or input (bad input wins: the run is not trustworthy as a whole). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fia/compare.h"
#include "fia/oracle.h"
#include "fia/ref.h"

typedef struct run_options {
    fia_profile profile;
    int json;
    int status_only;
    long precision;
} run_options;

typedef enum verdict {
    V_PASS = 0,
    V_NOT_MODELED,     /* skipped: a documented feature fiacheck refuses */
    V_STATUS_MISMATCH, /* finding */
    V_ACCURACY,        /* finding */
    V_NAN_LEAK,        /* finding */
    V_HARNESS_ERROR,   /* finding: ref refused a case the oracle accepted */
    V_BAD_INPUT        /* the case file is malformed or too large */
} verdict;

static const char *const verdict_names[] = {
    "pass", "not-modeled", "status-mismatch", "accuracy", "nan-leak",
    "harness-error", "bad-input",
};

typedef struct run_result {
    const char *path;
    verdict v;
    char message[1024];
    fia_oracle_verdict ov;
    int evaluated;               /* the oracle ran */
    fia_status fast_status;
    int fast_called;
    int computed;
    fia_compare_result out_cmp, lse_cmp;
    int has_lse;
} run_result;

static int is_finding(verdict v)
{
    return v == V_STATUS_MISMATCH || v == V_ACCURACY || v == V_NAN_LEAK ||
           v == V_HARNESS_ERROR;
}

/* Compares fast/'s outputs in d with the reference; sets r->v. */
static void compare_outputs(const fia_case *c, const fia_case_data *d,
                            const run_options *o, run_result *r)
{
    fia_ref_options ro;
    fia_ref_options_default(&ro);
    if (o->precision > 0)
        ro.precision_bits = o->precision;
    fia_ref_result ref;
    memset(&ref, 0, sizeof ref);
    fia_status st = fia_ref_compute(c, d, &ro, &ref);
    if (st != FIA_OK) {
        r->v = V_HARNESS_ERROR;
        snprintf(r->message, sizeof r->message,
                 "the oracle accepts the case but the reference refused it "
                 "(%d %s): %s", st, fia_status_name(st), ref.error);
        fia_ref_result_free(&ref);
        return;
    }
    r->computed = 1;
    const fia_tensor *out = d->t[FIA_SLOT_ATTENTION_OUT];
    int high_precision = (c->attrs.inner_precise & 1) == 0;
    fia_tolerance tol = fia_tolerance_default(ref.out.dtype, high_precision);
    if (out == NULL ||
        fia_compare_tensor(&ref.out, ref.out_exact, ref.out_unspecified, out,
                           &tol, &r->out_cmp) != 0) {
        r->v = V_HARNESS_ERROR;
        snprintf(r->message, sizeof r->message,
                 "attention_out does not match the reference in dtype or size");
        fia_ref_result_free(&ref);
        return;
    }
    int ok = r->out_cmp.pass;
    int leak = r->out_cmp.n_nan_leak > 0;
    const fia_tensor *lse = d->t[FIA_SLOT_SOFTMAX_LSE];
    if (ref.has_lse && lse != NULL) {
        r->has_lse = 1;
        fia_tolerance ltol = fia_tolerance_default(FIA_DT_FP32, 1);
        if (fia_compare_tensor(&ref.lse, ref.lse_exact, ref.lse_unspecified,
                               lse, &ltol, &r->lse_cmp) != 0) {
            r->v = V_HARNESS_ERROR;
            snprintf(r->message, sizeof r->message,
                     "softmax_lse does not match the reference in size");
            fia_ref_result_free(&ref);
            return;
        }
        ok = ok && r->lse_cmp.pass;
        leak = leak || r->lse_cmp.n_nan_leak > 0;
    }
    r->v = leak ? V_NAN_LEAK : ok ? V_PASS : V_ACCURACY;
    fia_ref_result_free(&ref);
}

/* Parameters of 003 that aclnnFusedInferAttentionScoreV2 (and so fast/'s
 * API) does not carry: a case using one cannot be passed to fast/ at all. */
static const char *v2_api_gap(const fia_case *c)
{
    static const fia_slot v2_absent[] = {FIA_SLOT_QUERY_ROPE, FIA_SLOT_KEY_ROPE,
                                         FIA_SLOT_DEQUANT_SCALE_QUERY};
    for (size_t i = 0; i < sizeof v2_absent / sizeof v2_absent[0]; i++)
        if (c->tensors[v2_absent[i]].presence != FIA_ABSENT)
            return fia_slot_name(v2_absent[i]);
    if (c->attrs.query_quant_mode != 0)
        return "query_quant_mode";
    return NULL;
}

static void run_one(const char *path, const run_options *o, run_result *r)
{
    fia_case c;
    fia_case_error err;
    memset(r, 0, sizeof *r);
    r->path = path;
    if (fia_case_parse_file(path, &c, &err) != 0) {
        r->v = V_BAD_INPUT;
        snprintf(r->message, sizeof r->message, "%.200s:%d: %.255s", err.file,
                 err.line, err.msg);
        return;
    }
    if (fia_oracle_evaluate(&c, o->profile, &r->ov) != 0) {
        r->v = V_BAD_INPUT;
        snprintf(r->message, sizeof r->message, "the oracle cannot evaluate "
                 "this case (out of memory)");
        fia_case_free(&c);
        return;
    }
    r->evaluated = 1;
    int compute = !o->status_only && r->ov.accept;
    fia_case_data d;
    if (fia_case_materialize(&c, compute, &d, &err) != 0) {
        r->v = V_BAD_INPUT;
        snprintf(r->message, sizeof r->message, "%.200s: %.200s%s", path, err.msg,
                 compute ? " (use --status-only to check its status alone)"
                         : "");
        fia_case_free(&c);
        return;
    }
    const char *gap = v2_api_gap(&c);
    if (gap != NULL) {
        r->v = V_NOT_MODELED;
        snprintf(r->message, sizeof r->message, "not modeled yet: fast/ "
                 "implements the V2 API, which has no %s (003 parameter)", gap);
        fia_case_data_free(&d);
        fia_case_free(&c);
        return;
    }
    char msg[256];
    r->fast_status = cli_call_fast(&c, &d, o->profile, compute, msg,
                                   sizeof msg);
    r->fast_called = 1;
    if (r->ov.not_modeled) {
        r->v = V_NOT_MODELED;
        const fia_rule *nm = NULL;
        for (int i = 0; i < r->ov.n_fired && nm == NULL; i++)
            if (r->ov.fired[i]->kind == FIA_RULE_NOT_MODELED)
                nm = r->ov.fired[i];
        snprintf(r->message, sizeof r->message, "not modeled yet: %s %s",
                 nm ? nm->id : "?", nm ? nm->summary : "");
    } else if (r->fast_status != r->ov.expected) {
        r->v = V_STATUS_MISMATCH;
        snprintf(r->message, sizeof r->message, "expected %d %s, fast returned "
                 "%d %s%s%s", r->ov.expected, fia_status_name(r->ov.expected),
                 r->fast_status, fia_status_name(r->fast_status),
                 msg[0] ? ": " : "", msg);
    } else if (compute) {
        compare_outputs(&c, &d, o, r);
    } else {
        r->v = V_PASS;
    }
    fia_case_data_free(&d);
    fia_case_free(&c);
}

static void print_cmp_text(const char *name, const fia_compare_result *m)
{
    printf("  %-14s %lld elements, %lld compared, %lld unspecified, "
           "%lld outside tolerance, %lld NaN/inf leaks; max %.3g ulp, "
           "max rel err %.3g", name, (long long)m->n_total,
           (long long)m->n_compared, (long long)m->n_unspecified,
           (long long)m->n_fail, (long long)m->n_nan_leak, m->max_ulp,
           m->max_rel_err);
    if (m->worst_index >= 0 && m->max_ulp > 0)
        printf(" (worst at %lld: ref %.9g, fast %.9g)",
               (long long)m->worst_index, m->worst_ref, m->worst_got);
    printf("\n");
}

static void print_text(const run_result *r, const run_options *o)
{
    printf("%s\n", r->path);
    if (r->evaluated) {
        printf("  expected       %d %s (profile %s)\n", r->ov.expected,
               fia_status_name(r->ov.expected), fia_profile_name(o->profile));
        printf("  rules fired    ");
        if (r->ov.n_fired == 0)
            printf("-");
        for (int i = 0; i < r->ov.n_fired; i++)
            printf("%s%s", i ? " " : "", r->ov.fired[i]->id);
        printf("\n");
        if (r->ov.n_normalized > 0) {
            printf("  normalized     ");
            for (int i = 0; i < r->ov.n_normalized; i++)
                printf("%s%s", i ? " " : "", r->ov.normalized[i]->id);
            printf("\n");
        }
    }
    if (r->fast_called)
        printf("  fast           %d %s\n", r->fast_status,
               fia_status_name(r->fast_status));
    if (r->computed) {
        print_cmp_text("attention_out", &r->out_cmp);
        if (r->has_lse)
            print_cmp_text("softmax_lse", &r->lse_cmp);
    }
    printf("  verdict        %s%s%s\n", verdict_names[r->v],
           r->message[0] ? ": " : "", r->message);
}

static void print_cmp_json(const char *prefix, const fia_compare_result *m)
{
    printf(",\"%smax_ulp\":%.17g,\"%smax_rel_err\":%.17g,\"%scompared\":%lld,"
           "\"%sunspecified\":%lld,\"%sfailed\":%lld,\"%snan_leaks\":%lld",
           prefix, m->max_ulp, prefix, m->max_rel_err, prefix,
           (long long)m->n_compared, prefix, (long long)m->n_unspecified,
           prefix, (long long)m->n_fail, prefix, (long long)m->n_nan_leak);
}

static void print_json(const run_result *r, const run_options *o)
{
    printf("{\"case\":");
    cli_json_string(stdout, r->path);
    printf(",\"profile\":\"%s\"", fia_profile_name(o->profile));
    if (r->evaluated) {
        printf(",\"expected_status\":%d,\"rules\":[", r->ov.expected);
        for (int i = 0; i < r->ov.n_fired; i++)
            printf("%s\"%s\"", i ? "," : "", r->ov.fired[i]->id);
        printf("],\"normalized\":[");
        for (int i = 0; i < r->ov.n_normalized; i++)
            printf("%s\"%s\"", i ? "," : "", r->ov.normalized[i]->id);
        printf("]");
    }
    if (r->fast_called)
        printf(",\"fast_status\":%d", r->fast_status);
    printf(",\"verdict\":\"%s\"", verdict_names[r->v]);
    if (r->computed) {
        print_cmp_json("", &r->out_cmp);
        if (r->has_lse)
            print_cmp_json("lse_", &r->lse_cmp);
    }
    printf(",\"message\":");
    cli_json_string(stdout, r->message);
    printf("}\n");
}

static int usage(void)
{
    fprintf(stderr,
            "usage: fiacheck run CASE... [--profile doc|cann] [--json] "
            "[--status-only] [--precision BITS]\n");
    return CLI_EXIT_USAGE;
}

int cmd_run(int argc, char **argv)
{
    run_options o = {FIA_PROFILE_DOC, 0, 0, 0};
    const char **cases = calloc((size_t)argc + 1, sizeof *cases);
    int ncases = 0;
    if (cases == NULL)
        return CLI_EXIT_USAGE;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            o.json = 1;
        } else if (strcmp(argv[i], "--status-only") == 0) {
            o.status_only = 1;
        } else if (strcmp(argv[i], "--profile") == 0) {
            if (i + 1 >= argc || fia_profile_parse(argv[i + 1], &o.profile)) {
                fprintf(stderr, "fiacheck run: --profile takes doc or cann\n");
                free(cases);
                return CLI_EXIT_USAGE;
            }
            i++;
        } else if (strcmp(argv[i], "--precision") == 0) {
            char *end = NULL;
            if (i + 1 < argc)
                o.precision = strtol(argv[i + 1], &end, 10);
            if (i + 1 >= argc || *end != '\0' || o.precision < 64 ||
                o.precision > 100000) {
                fprintf(stderr, "fiacheck run: --precision takes bits in "
                        "64..100000\n");
                free(cases);
                return CLI_EXIT_USAGE;
            }
            i++;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "fiacheck run: unknown option %s\n", argv[i]);
            free(cases);
            return usage();
        } else {
            cases[ncases++] = argv[i];
        }
    }
    if (ncases == 0) {
        free(cases);
        return usage();
    }
    int n_pass = 0, n_find = 0, n_bad = 0, n_skip = 0;
    run_result r;
    for (int i = 0; i < ncases; i++) {
        run_one(cases[i], &o, &r);
        if (o.json)
            print_json(&r, &o);
        else
            print_text(&r, &o);
        fflush(stdout);
        if (r.v == V_BAD_INPUT)
            n_bad++;
        else if (is_finding(r.v))
            n_find++;
        else if (r.v == V_NOT_MODELED)
            n_skip++;
        else
            n_pass++;
    }
    if (!o.json)
        printf("%d cases: %d passed, %d findings, %d not modeled, "
               "%d bad input\n", ncases, n_pass, n_find, n_skip, n_bad);
    free(cases);
    if (n_bad)
        return CLI_EXIT_USAGE;
    return n_find ? CLI_EXIT_FINDING : CLI_EXIT_OK;
}
