/* Findings, built in one place: what a fuzz worker records of a verdict or
 * of a metamorphic disagreement (report.c), what `fiacheck fuzz` records
 * of a libFuzzer artifact (cli/cmd_fuzz.c), and the text `fiacheck
 * minimize` writes.  The text is the case with a header of "# fiacheck-"
 * lines, so that the finding reproduces alone (cli/cmd_repro.c reads the
 * header back). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fia/sut_host.h"
#include "fuzz/fuzz.h"
#include "fuzz/signature.h"

/* A metric as a JSON value: a NaN leak's distances are infinite (or NaN),
 * and JSON has no literal for them, so null (as cli_json_num writes). */
static const char *json_num(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.17g", v);
    else
        snprintf(buf, len, "null");
    return buf;
}

static void finding_init(fuzz_finding *f, fuzz_target_id t, const char *profile,
                         const char *kind, const fia_case *c)
{
    memset(f, 0, sizeof *f);
    f->target = t;
    snprintf(f->profile, sizeof f->profile, "%s", profile);
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    f->seed = c->seed;
}

void fuzz_finding_of_check(fuzz_finding *f, const fia_case *c,
                           const fia_check_result *r, fuzz_target_id t,
                           fia_profile p)
{
    char bucket[200];
    finding_init(f, t, fia_profile_name(p), fia_verdict_name(r->v), c);
    fuzz_signature(c, r, p, f->signature, FUZZ_SIGNATURE_LEN);
    /* the bucket the signature no longer carries, for queries */
    fuzz_bucket(c, bucket, sizeof bucket);
    char u[32], e[32];
    if (r->computed)
        snprintf(f->metrics, sizeof f->metrics, "{\"max_ulp\":%s,\"max_rel_err\":"
                 "%s,\"failed\":%lld,\"nan_leaks\":%lld,\"bucket\":\"%s\"}",
                 json_num(r->out_cmp.max_ulp, u, sizeof u),
                 json_num(r->out_cmp.max_rel_err, e, sizeof e),
                 (long long)r->out_cmp.n_fail, (long long)r->out_cmp.n_nan_leak,
                 bucket);
    else
        snprintf(f->metrics, sizeof f->metrics, "{\"expected\":%d,\"fast\":%d,"
                 "\"bucket\":\"%s\"}", r->ov.expected, r->fast_status, bucket);
    snprintf(f->message, sizeof f->message, "%s", r->reason.msg);
}

void fuzz_finding_of_meta(fuzz_finding *f, const fia_case *c,
                          const fuzz_meta_result *m, fia_profile p,
                          const char *transform)
{
    char bucket[200];
    finding_init(f, FUZZ_METAMORPHIC, fia_profile_name(p), m->kind, c);
    snprintf(f->signature, sizeof f->signature, "%s", m->signature);
    fuzz_bucket(c, bucket, sizeof bucket);
    char u[32];
    snprintf(f->metrics, sizeof f->metrics, "{\"max_ulp\":%s,\"bucket\":\"%s\"}",
             json_num(m->max_ulp, u, sizeof u), bucket);
    snprintf(f->message, sizeof f->message, "%s", m->message);
    snprintf(f->transform, sizeof f->transform, "%s", transform);
}

void fuzz_finding_of_artifact(fuzz_finding *f, const fia_case *c,
                              const char *kind, fuzz_target_id t,
                              const char *profile, const char *transform,
                              const char *path, const char *message)
{
    char bucket[200], site[200];
    finding_init(f, t, profile, kind, c);
    /* a crash names its site when the sanitizer said it, else its bucket */
    char sut[80];
    fuzz_sut_prefix(sut, sizeof sut);
    if (fuzz_crash_site(message, site, sizeof site))
        snprintf(f->signature, 300, "%s%s|%s|%s", sut, kind,
                 fuzz_target_name(t), site);
    else {
        fuzz_bucket(c, bucket, sizeof bucket);
        snprintf(f->signature, 300, "%s%s|%s|%s", sut, kind,
                 fuzz_target_name(t), bucket);
    }
    snprintf(f->message, sizeof f->message, "%s", message);
    snprintf(f->transform, sizeof f->transform, "%s", transform);
    snprintf(f->artifact, sizeof f->artifact, "%s", path);
}

fia_status fuzz_finding_attach_text(fuzz_finding *f, const fia_case *c)
{
    free(f->text);
    f->text = fuzz_finding_text(c, f->target, f->profile, f->kind, f->signature,
                                f->transform[0] ? f->transform : NULL);
    if (f->text == NULL)
        return FIA_ERR_NOMEM;
    if (f->artifact[0]) {
        size_t n = strlen(f->text) + strlen(f->artifact) + 64;
        char *full = malloc(n);
        if (full == NULL) {
            free(f->text);
            f->text = NULL;
            return FIA_ERR_NOMEM;
        }
        snprintf(full, n, "# fiacheck-artifact: %s\n%s", f->artifact, f->text);
        free(f->text);
        f->text = full;
    }
    return FIA_OK;
}

void fuzz_finding_free(fuzz_finding *f)
{
    free(f->text);
    f->text = NULL;
}

#ifdef FIA_HAVE_STORE
void fuzz_finding_record(const fuzz_finding *f, int64_t campaign,
                         const char *revision, fia_finding_record *out)
{
    memset(out, 0, sizeof *out);
    out->campaign_id = campaign;
    out->signature = f->signature;
    out->kind = f->kind;
    out->target = fuzz_target_name(f->target);
    out->profile = f->profile;
    out->revision = revision;
    out->case_text = f->text;
    out->seed = f->seed;
    out->metrics_json = f->metrics[0] ? f->metrics : NULL;
    out->message = f->message;
    out->sut = fia_sut_current()->name;
}
#endif

char *fuzz_finding_header(fuzz_target_id t, const char *profile,
                          const char *kind, const char *signature,
                          const char *transform)
{
    /* with the system that computed it and its settings: its numbers
     * depend on both */
    const fia_sut *s = fia_sut_current();
    const char *lv = s->get_option ? s->get_option("kernel_level") : NULL;
    const char *th = s->get_option ? s->get_option("threads") : NULL;
    /* every line's fixed part fits in 256; the values as long as they are */
    size_t n = 256 + strlen(fuzz_target_name(t)) + strlen(profile) +
               strlen(kind) + strlen(signature) + strlen(s->name) +
               strlen(s->version) + (lv ? strlen(lv) : 0) +
               (th ? strlen(th) : 0) + (transform ? strlen(transform) : 0);
    char *out = malloc(n);
    if (out == NULL)
        return NULL;
    int k = snprintf(out, n, "# fiacheck-target: %s\n# fiacheck-profile: %s\n"
                     "# fiacheck-kind: %s\n# fiacheck-signature: %s\n",
                     fuzz_target_name(t), profile, kind, signature);
    if (k > 0 && strcmp(s->name, "fast") != 0)
        k += snprintf(out + k, n - (size_t)k, "# fiacheck-sut: %s %s\n",
                      s->name, s->version);
    if (k > 0 && lv != NULL)
        k += snprintf(out + k, n - (size_t)k,
                      "# fiacheck-fast-kernels: %s\n", lv);
    if (k > 0 && th != NULL)
        k += snprintf(out + k, n - (size_t)k,
                      "# fiacheck-fast-threads: %s\n", th);
    if (transform != NULL && k > 0)
        k += snprintf(out + k, n - (size_t)k, "# fiacheck-transform: %s\n",
                      transform);
    if (k < 0) {
        free(out);
        return NULL;
    }
    return out;
}

char *fuzz_finding_text(const fia_case *c, fuzz_target_id t,
                        const char *profile, const char *kind,
                        const char *signature, const char *transform)
{
    char *head = fuzz_finding_header(t, profile, kind, signature, transform);
    char *body = head ? fia_case_to_string(c) : NULL;
    char *out = NULL;
    if (body != NULL) {
        size_t hn = strlen(head), bn = strlen(body);
        out = malloc(hn + bn + 1);
        if (out != NULL) {
            memcpy(out, head, hn);
            memcpy(out + hn, body, bn + 1);
        }
    }
    free(head);
    free(body);
    return out;
}

void fuzz_text_header(const char *text, const char *key, char *val, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "# fiacheck-%s: ", key);
    val[0] = '\0';
    for (const char *p = text; p != NULL && *p; ) {
        if (strncmp(p, pat, strlen(pat)) == 0) {
            p += strlen(pat);
            size_t k = 0;
            while (p[k] && p[k] != '\n' && k + 1 < len) {
                val[k] = p[k];
                k++;
            }
            val[k] = '\0';
            return;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
}
