/* A case's verdict as `run` prints it, text or one JSON line
 * (docs/cli.md): shared by the commands that judge cases (run, judge). */
#include <math.h>
#include <stdlib.h>
#include "cli.h"
#include "fia/sut_host.h"

static void print_cmp_text(const char *name, const fia_compare_result *m)
{
    printf("  %-14s %lld elements, %lld compared, %lld unspecified, "
           "%lld outside tolerance, %lld NaN/inf leaks; max %.3g ulp, "
           "max rel err %.3g", name, (long long)m->n_total,
           (long long)m->n_compared, (long long)m->n_unspecified,
           (long long)m->n_fail, (long long)m->n_nan_leak, m->max_ulp,
           m->max_rel_err);
    if (m->worst_index >= 0 && m->max_ulp > 0)
        printf(" (worst at %lld: ref %.9g, %s %.9g)",
               (long long)m->worst_index, m->worst_ref,
               fia_sut_current()->name, m->worst_got);
    printf("; tolerance ratio %.3g\n", m->max_ratio);
}

/* The double benchmark's three ratios, each after the two figures it is
 * the quotient of: a benchmark figure below its floor is shown as the
 * floor it was taken as, with the figure beside it. */
static void print_cann_text(const fia_cann_result *k)
{
    static const char *const names[3] = {"max rel err", "mean rel err",
                                         "RMSE"};
    const double kern[3] = {k->kernel.max_re, k->kernel.mean_re,
                            k->kernel.rmse};
    const double bench[3] = {k->bench.max_re, k->bench.mean_re,
                             k->bench.rmse};
    printf("  cann-double    %s over %lld elements: kernel / benchmark",
           k->pass ? "pass" : "FAIL", (long long)k->n);
    for (int i = 0; i < 3; i++) {
        printf("%s %s %.3g / %.3g", i ? "," : "", names[i], kern[i],
               k->divisor[i]);
        if (k->divisor[i] != bench[i])
            printf(" (the floor; the benchmark %.3g)", bench[i]);
        printf(" = %.3g (<= %g)", k->ratio[i], fia_cann_limits[i]);
    }
    putchar('\n');
}

void cli_print_verdict_text(const char *path, const fia_check_result *c,
                            fia_profile profile)
{
    printf("%s\n", path);
    if (c->evaluated) {
        printf("  expected       %d %s (profile %s)\n", c->ov.expected,
               fia_status_name(c->ov.expected), fia_profile_name(profile));
        printf("  rules fired    ");
        if (c->ov.n_fired == 0)
            printf("-");
        for (int i = 0; i < c->ov.n_fired; i++)
            printf("%s%s", i ? " " : "", c->ov.fired[i]->id);
        printf("\n");
        if (c->ov.n_normalized > 0) {
            printf("  normalized     ");
            for (int i = 0; i < c->ov.n_normalized; i++)
                printf("%s%s", i ? " " : "", c->ov.normalized[i]->id);
            printf("\n");
        }
    }
    if (c->fast_called) /* the system's answer, under its name */
        printf("  %-14s %d %s\n", fia_sut_current()->name, c->fast_status,
               fia_status_name(c->fast_status));
    if (c->computed) {
        print_cmp_text("attention_out", &c->out_cmp);
        if (c->has_lse)
            print_cmp_text("softmax_lse", &c->lse_cmp);
    }
    if (c->has_cann)
        print_cann_text(&c->cann);
    for (int i = 0; i < c->n_intents; i++) {
        const fia_intent_result *ir = &c->intents[i];
        printf("  intent         %s%s: %s\n", fia_intent_name(ir->intent),
               ir->met > 0 ? " met" : ir->met == 0 ? " NOT MET" : "",
               ir->found); /* unchecked: found says "not checked: ..." */
    }
    printf("  verdict        %s%s%s\n", fia_verdict_name(c->v),
           c->reason.msg[0] ? ": " : "", c->reason.msg);
}

static void print_cmp_json(const char *prefix, const fia_compare_result *m)
{
    /* a NaN leak's max_ulp is inf: null, as JSON has no infinity */
    char key[64];
    snprintf(key, sizeof key, "%smax_ulp", prefix);
    cli_json_num(key, m->max_ulp);
    snprintf(key, sizeof key, "%smax_rel_err", prefix);
    cli_json_num(key, m->max_rel_err);
    printf(",\"%scompared\":%lld,"
           "\"%sunspecified\":%lld,\"%sfailed\":%lld,\"%snan_leaks\":%lld",
           prefix, (long long)m->n_compared, prefix,
           (long long)m->n_unspecified, prefix, (long long)m->n_fail, prefix,
           (long long)m->n_nan_leak);
}

void cli_print_verdict_json(const char *path, const fia_check_result *c,
                            fia_profile profile)
{
    printf("{\"case\":");
    cli_json_string(stdout, path);
    printf(",\"profile\":\"%s\"", fia_profile_name(profile));
    const fia_sut *sut = fia_sut_current();
    cli_json_kv("sut", sut->name);
    cli_json_kv("sut_version", sut->version);
    cli_json_kv("fast_kernels", cli_sut_option("kernel_level"));
    const char *th = cli_sut_option("threads");
    if (th != NULL)
        cli_json_num("fast_threads", atof(th));
    else
        cli_json_kv("fast_threads", NULL);
    if (c->evaluated) {
        printf(",\"expected_status\":%d,\"rules\":[", c->ov.expected);
        for (int i = 0; i < c->ov.n_fired; i++)
            printf("%s\"%s\"", i ? "," : "", c->ov.fired[i]->id);
        printf("],\"normalized\":[");
        for (int i = 0; i < c->ov.n_normalized; i++)
            printf("%s\"%s\"", i ? "," : "", c->ov.normalized[i]->id);
        printf("]");
    }
    if (c->fast_called)
        printf(",\"fast_status\":%d", c->fast_status);
    printf(",\"verdict\":\"%s\"", fia_verdict_name(c->v));
    if (c->computed) {
        print_cmp_json("", &c->out_cmp);
        if (c->has_lse)
            print_cmp_json("lse_", &c->lse_cmp);
    }
    if (c->has_cann) {
        const fia_cann_result *k = &c->cann;
        static const char *const keys[6] = {
            "kernel_max_re", "kernel_mean_re", "kernel_rmse",
            "bench_max_re",  "bench_mean_re",  "bench_rmse"};
        const double v[6] = {k->kernel.max_re, k->kernel.mean_re,
                             k->kernel.rmse,   k->bench.max_re,
                             k->bench.mean_re, k->bench.rmse};
        printf(",\"cann_double\":{\"pass\":%s,\"n\":%lld",
               k->pass ? "true" : "false", (long long)k->n);
        for (int i = 0; i < 6; i++)
            printf(",\"%s\":%.17g", keys[i], isfinite(v[i]) ? v[i] : -1.0);
        printf(",\"ratios\":[%.17g,%.17g,%.17g]}",
               isfinite(k->ratio[0]) ? k->ratio[0] : -1.0,
               isfinite(k->ratio[1]) ? k->ratio[1] : -1.0,
               isfinite(k->ratio[2]) ? k->ratio[2] : -1.0);
    }
    printf(",\"intents\":[");
    for (int i = 0; i < c->n_intents; i++) {
        const fia_intent_result *ir = &c->intents[i];
        printf("%s{\"intent\":\"%s\",\"met\":%s,\"found\":", i ? "," : "",
               fia_intent_name(ir->intent),
               ir->met > 0 ? "true" : ir->met == 0 ? "false" : "null");
        cli_json_string(stdout, ir->found);
        printf("}");
    }
    printf("],\"message\":");
    cli_json_string(stdout, c->reason.msg);
    printf("}\n");
}
