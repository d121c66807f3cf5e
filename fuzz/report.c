/* Findings, rule coverage and accuracy of a fuzz target, to the store.
 *
 * Each worker process opens the store named by FIACHECK_DB (campaign id
 * FIACHECK_CAMPAIGN), records every distinct finding once (deduplicated by
 * semantic signature in memory, so the store is not hammered), and keeps
 * rule coverage and accuracy in memory, flushed every few seconds and at
 * exit.  FIACHECK_STATS names a directory where the worker writes its
 * counters (validity rate, findings, signatures) for `fiacheck fuzz`. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fuzz/fuzz_internal.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

#define MAX_SIGS 1024
#define MAX_RULES 512
#define MAX_BUCKETS 128
#define MAX_SAMPLES 4096

typedef struct bucket_acc {
    char name[160];
    int64_t n;
    double max_ulp, max_rel;
} bucket_acc;

static struct {
    int init, quiet;
    fuzz_target_id target;
    char db[1024], stats[1024], revision[128];
    int64_t campaign;
    int nprof;
    fia_profile prof[2];
#ifdef FIA_HAVE_STORE
    fia_store *store;
    int store_failed;
#endif
    fuzz_counters cnt;
    char *sigs[MAX_SIGS];
    int nsigs;
    /* rule coverage since the last flush: fia_rule_at index */
    int nrules;
    const fia_rule *rule_ptr[MAX_RULES];   /* sorted by address */
    int rule_idx[MAX_RULES];
    int64_t broken[MAX_RULES], obeyed[MAX_RULES];
    /* accuracy samples since the last flush */
    int nsamples;
    struct { int bucket; double ulp, rel; } samples[MAX_SAMPLES];
    int nbuckets;
    bucket_acc buckets[MAX_BUCKETS];
    time_t last_flush;
} R;

static int ptr_cmp(const void *a, const void *b)
{
    const fia_rule *x = *(const fia_rule *const *)a, *y = *(const fia_rule *const *)b;
    return x < y ? -1 : x > y;
}

static void at_exit_flush(void) { fuzz_report_flush(); }

void fuzz_report_init(fuzz_target_id t)
{
    if (R.init)
        return;
    R.init = 1;
    R.target = t;
    const char *e;
    if ((e = getenv("FIACHECK_DB")) != NULL)
        snprintf(R.db, sizeof R.db, "%s", e);
    if ((e = getenv("FIACHECK_STATS")) != NULL)
        snprintf(R.stats, sizeof R.stats, "%s", e);
    snprintf(R.revision, sizeof R.revision, "%s",
             (e = getenv("FIACHECK_REVISION")) != NULL ? e : "unknown");
    R.campaign = (e = getenv("FIACHECK_CAMPAIGN")) != NULL ? atoll(e) : 0;
    fia_profile p;
    if ((e = getenv("FIACHECK_PROFILE")) != NULL && fia_profile_parse(e, &p) == 0) {
        R.nprof = 1, R.prof[0] = p;
    } else {
        R.nprof = 2, R.prof[0] = FIA_PROFILE_DOC, R.prof[1] = FIA_PROFILE_CANN;
    }
    size_t n = fia_rule_count();
    R.nrules = n < MAX_RULES ? (int)n : MAX_RULES;
    for (int i = 0; i < R.nrules; i++)
        R.rule_ptr[i] = fia_rule_at((size_t)i);
    qsort(R.rule_ptr, (size_t)R.nrules, sizeof R.rule_ptr[0], ptr_cmp);
    for (int i = 0; i < R.nrules; i++)
        for (int k = 0; k < R.nrules; k++)
            if (fia_rule_at((size_t)k) == R.rule_ptr[i])
                R.rule_idx[i] = k;
    R.last_flush = time(NULL);
    atexit(at_exit_flush);
}

int fuzz_report_quiet(int quiet)
{
    int old = R.quiet;
    R.quiet = quiet;
    return old;
}

int fuzz_report_profiles(fia_profile *out)
{
    for (int i = 0; i < R.nprof; i++)
        out[i] = R.prof[i];
    return R.nprof;
}

const fuzz_counters *fuzz_report_counters(void) { return &R.cnt; }

static int rule_slot(const fia_rule *r)
{
    int lo = 0, hi = R.nrules - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (R.rule_ptr[mid] == r)
            return mid;
        if (R.rule_ptr[mid] < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int bucket_slot(const char *name)
{
    for (int i = 0; i < R.nbuckets; i++)
        if (strcmp(R.buckets[i].name, name) == 0)
            return i;
    if (R.nbuckets == MAX_BUCKETS)
        return -1;
    bucket_acc *b = &R.buckets[R.nbuckets];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", name);
    return R.nbuckets++;
}

#ifdef FIA_HAVE_STORE
static fia_store *store(void)
{
    if (R.store == NULL && !R.store_failed && R.db[0]) {
        char err[512];
        if (fia_store_open(R.db, 1, &R.store, err, sizeof err) != FIA_STORE_OK) {
            R.store_failed = 1;
            fprintf(stderr, "fuzz: cannot open the store: %s\n", err);
        }
    }
    return R.store;
}
#endif

static void write_stats(void)
{
    if (!R.stats[0])
        return;
    char path[1200], tmp[1300];
    snprintf(path, sizeof path, "%s/%s.%ld", R.stats, fuzz_target_name(R.target),
             (long)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fprintf(f, "execs %lld\nevaluated %lld\naccepted %lld\nnot_modeled %lld\n"
            "findings %lld\nskipped %lld\n", (long long)R.cnt.execs,
            (long long)R.cnt.evaluated, (long long)R.cnt.accepted,
            (long long)R.cnt.not_modeled, (long long)R.cnt.findings,
            (long long)R.cnt.skipped);
    for (int i = 0; i < R.nsigs; i++)
        fprintf(f, "sig %s\n", R.sigs[i]);
    fclose(f);
    rename(tmp, path);
}

void fuzz_report_flush(void)
{
    if (!R.init)
        return;
    R.last_flush = time(NULL);
#ifdef FIA_HAVE_STORE
    fia_store *s = R.campaign > 0 ? store() : NULL;
    if (s != NULL) {
        for (int i = 0; i < R.nrules; i++)
            if (R.broken[i] || R.obeyed[i]) {
                const fia_rule *r = fia_rule_at((size_t)R.rule_idx[i]);
                if (fia_store_add_rule_coverage(s, R.campaign, r->id, R.broken[i],
                                                R.obeyed[i]) == FIA_STORE_OK)
                    R.broken[i] = R.obeyed[i] = 0;
            }
        int k = 0;
        for (; k < R.nsamples; k++)
            if (fia_store_add_accuracy(s, R.campaign,
                                       R.buckets[R.samples[k].bucket].name,
                                       R.samples[k].ulp,
                                       R.samples[k].rel) != FIA_STORE_OK)
                break;
        memmove(R.samples, R.samples + k, (size_t)(R.nsamples - k) * sizeof R.samples[0]);
        R.nsamples -= k;
    }
#endif
    if (R.nsamples == MAX_SAMPLES)
        R.nsamples = 0; /* no store: do not grow */
    write_stats();
}

static void maybe_flush(void)
{
    if (time(NULL) - R.last_flush >= 3)
        fuzz_report_flush();
}

void fuzz_report_exec(void)
{
    R.cnt.execs++;
    maybe_flush();
}

void fuzz_report_skip(void) { R.cnt.skipped++; }

static int seen(const char *sig)
{
    for (int i = 0; i < R.nsigs; i++)
        if (strcmp(R.sigs[i], sig) == 0)
            return 1;
    if (R.nsigs < MAX_SIGS && (R.sigs[R.nsigs] = strdup(sig)) != NULL)
        R.nsigs++;
    return 0;
}

void fuzz_report_finding(const fia_case *c, const char *kind,
                         const char *signature, fia_profile profile,
                         const char *metrics_json, const char *message,
                         const char *transform)
{
    R.cnt.findings++;
    if (seen(signature))
        return;
    const char *pn = fia_profile_name(profile);
    if (!R.quiet)
        fprintf(stderr, "fuzz: finding %s: %s\n", signature, message ? message : "");
    char *text = fuzz_finding_text(c, R.target, pn, kind, signature, transform);
#ifdef FIA_HAVE_STORE
    fia_store *s = store();
    if (s != NULL && text != NULL) {
        fia_finding_record f;
        memset(&f, 0, sizeof f);
        f.campaign_id = R.campaign;
        f.signature = signature;
        f.kind = kind;
        f.target = fuzz_target_name(R.target);
        f.profile = pn;
        f.revision = R.revision;
        f.case_text = text;
        f.seed = c->seed;
        f.metrics_json = metrics_json;
        f.message = message;
        if (fia_store_add_finding(s, &f, NULL) != FIA_STORE_OK)
            fprintf(stderr, "fuzz: cannot record a finding: %s\n",
                    fia_store_errmsg(s));
    }
#else
    (void)metrics_json;
#endif
    free(text);
    write_stats();
}

void fuzz_report_verdict(const fia_case *c, const fia_check_result *r,
                         fia_profile profile)
{
    if (r->evaluated) {
        R.cnt.evaluated++;
        R.cnt.accepted += r->ov.accept;
        R.cnt.not_modeled += r->ov.not_modeled;
        for (int i = 0; i < r->ov.n_fired; i++) {
            int k = rule_slot(r->ov.fired[i]);
            if (k >= 0)
                R.broken[k]++;
        }
        for (int i = 0; i < r->ov.n_obeyed; i++) {
            int k = rule_slot(r->ov.obeyed[i]);
            if (k >= 0)
                R.obeyed[k]++;
        }
        /* A silent normalization "breaks" nothing; counting where it
         * applied is what `rules --coverage` reports for it. */
        for (int i = 0; i < r->ov.n_normalized; i++) {
            int k = rule_slot(r->ov.normalized[i]);
            if (k >= 0)
                R.broken[k]++;
        }
    }
    if (r->computed && R.nsamples < MAX_SAMPLES) {
        char b[160];
        fuzz_bucket(c, b, sizeof b);
        int k = bucket_slot(b);
        if (k >= 0) {
            double ulp = r->out_cmp.max_ulp, rel = r->out_cmp.max_rel_err;
            R.samples[R.nsamples].bucket = k;
            R.samples[R.nsamples].ulp = ulp;
            R.samples[R.nsamples].rel = rel;
            R.nsamples++;
            bucket_acc *ba = &R.buckets[k];
            ba->n++;
            if (ulp > ba->max_ulp) ba->max_ulp = ulp;
            if (rel > ba->max_rel) ba->max_rel = rel;
        }
    }
    if (fia_verdict_is_finding(r->v)) {
        char sig[256], metrics[256];
        fuzz_signature(c, r, profile, sig, sizeof sig);
        metrics[0] = '\0';
        if (r->computed)
            snprintf(metrics, sizeof metrics, "{\"max_ulp\":%.17g,\"max_rel_err\":"
                     "%.17g,\"failed\":%lld,\"nan_leaks\":%lld}",
                     r->out_cmp.max_ulp, r->out_cmp.max_rel_err,
                     (long long)r->out_cmp.n_fail, (long long)r->out_cmp.n_nan_leak);
        else
            snprintf(metrics, sizeof metrics, "{\"expected\":%d,\"fast\":%d}",
                     r->ov.expected, r->fast_status);
        fuzz_report_finding(c, fia_verdict_name(r->v), sig, profile, metrics,
                            r->reason.msg, NULL);
    }
}
