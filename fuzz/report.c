/* Findings, rule coverage and accuracy of a fuzz target, to the store.
 *
 * Each worker process opens the store named by FIACHECK_DB (campaign id
 * FIACHECK_CAMPAIGN), records every distinct finding once (deduplicated by
 * semantic signature in memory, so the store is not hammered), and keeps
 * rule coverage and accuracy in memory, flushed every few seconds and at
 * exit.  FIACHECK_STATS names a directory where the worker writes its
 * counters (validity rate, findings, signatures) for `fiacheck fuzz`.
 *
 * A finding the store refuses (locked past its busy timeout, or not
 * openable) is never dropped: its case text is spooled at once to a file
 * in FIACHECK_UNSTORED (which `fiacheck fuzz` counts and names), kept, and
 * written again at each flush; once stored its file is removed.
 *
 * A bucket's worst case of fuzz_numeric is stored as the input that
 * regenerates it (fuzz_worst_generator_text: the input bytes and the
 * case's digest), checked when it is kept; the full text only when that
 * does not regenerate it.  The store is closed (and so checkpointed) at
 * exit, or by fuzz_report_close.
 *
 * FIACHECK_ON_FINDING says what a finding does: "record" (the above; with
 * no store, a line on stderr) or "abort" (crash.c: the first finding of an
 * input crashes the process, for engines that see nothing else).  Unset,
 * a libFuzzer binary with no store aborts and everything else records.
 * FIACHECK_TOLERANCE and FIACHECK_FAST_PROFILE set the check options the
 * targets judge with (fuzz_report_check_options). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fuzz/fuzz_internal.h"
#include "fuzz/signature.h"
#include "fia/sut_host.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

/* Accuracy samples wait here for the store while it fails (locked by
 * another worker, ...); past this many the oldest are dropped, and said. */
#define MAX_PENDING_SAMPLES (1 << 20)

typedef struct sample {
    size_t bucket;   /* in R.buckets */
    double ulp, rel;
    double ratio;    /* error-to-bound (fia_compare_result.max_ratio) */
    char *text;      /* the case when it is its bucket's worst so far: its
                        generator form (fuzz_worst_generator_text) when
                        it has one, else the full text */
    fia_case *worst; /* ... kept as a copy until the flush prints it: a
                        bucket's worst moves many times between flushes,
                        and printing a case is the dearer part */
    fia_profile prof;
    char key[FIA_CASE_DIGEST_LEN]; /* the case's digest ("" if unknown) */
} sample;

static struct {
    int init, quiet;
    int engine;                /* a libFuzzer binary: no store -> abort */
    fuzz_finding_sink sink;    /* what takes a finding instead of the store */
    fia_check_options check;   /* the tolerance and fast/'s profile */
    fuzz_target_id target;
    char db[1024], stats[1024], revision[128];
    int64_t campaign;
    int nprof;
    fia_profile prof[2];
#ifdef FIA_HAVE_STORE
    fia_store *store;
    time_t store_retry_at;     /* the open failed: not again before this */
#endif
    char unstored[1024];       /* FIACHECK_UNSTORED: where refused go */
    /* findings the store refused, each with its spooled file ("" none) */
    fuzz_finding *pending;
    char (*pending_file)[1200];
    size_t npending, cap_pending;
    fuzz_counters cnt;
    fuzz_strset sigs;          /* the signatures recorded */
    int nomem_said;
    /* rule coverage since the last flush, by catalogue index
     * (fia_rule_index) */
    int nrules;
    int64_t *broken, *obeyed;
    /* when each rule first decided a call alone in this process (wall
     * clock seconds since the epoch; 0: not yet), for the campaign's
     * summary (the stats file's "alone" lines) */
    double *alone_first;
    /* the paths computed so far (each word of a computed case's bucket,
     * fuzz_bucket: decode, prefill, mask, paged, int8kv, bf16, BNSD, ...)
     * and when first (wall clock, as alone_first) */
    fuzz_strset paths;
    double *path_first;
    size_t cap_path_first;
    /* accuracy samples since the last flush, and their buckets' names */
    sample *samples;
    size_t nsamples, cap_samples;
    int64_t dropped_samples;
    fuzz_strset buckets;
    double *worst;             /* per bucket: the largest ratio kept */
    size_t *worst_at;          /* per bucket: 1 + the sample holding its
                                  worst case since the last print (0:
                                  none) */
    size_t nworst;
    const uint8_t *input;      /* the input being judged (fuzz_run_one) */
    size_t input_n;
    time_t last_flush;
} R;

/* Out of memory in the bookkeeping: said once, the input still judged. */
static void say_nomem(const char *what)
{
    if (!R.nomem_said)
        fprintf(stderr, "fuzz: out of memory for %s; some of it is lost\n", what);
    R.nomem_said = 1;
}

static void at_exit_flush(void)
{
    fuzz_report_close();
    if (R.npending > 0)
        fprintf(stderr, "fuzz: %zu finding(s) could not be stored; their case "
                "files are in %s\n", R.npending,
                R.unstored[0] ? R.unstored : "(nowhere: FIACHECK_UNSTORED unset)");
}

/* A setting of the environment that does not parse: the target cannot
 * judge as asked, so it stops before judging anything. */
static void bad_setting(const char *name, const char *value, const char *want)
{
    fprintf(stderr, "fuzz: %s=%s: wants %s\n", name, value, want);
    exit(2);
}

/* FIACHECK_TOLERANCE ("bound", "vendor", "allclose RTOL ATOL", ...) and
 * FIACHECK_FAST_PROFILE (doc|cann) into R.check. */
static void read_check_settings(void)
{
    fia_check_options_default(&R.check);
    const char *e = getenv("FIACHECK_TOLERANCE");
    if (e != NULL && *e) {
        char word[32];
        int n = 0;
        double rt = 0, at = 0;
        int got = sscanf(e, "%31s %lf %lf %n", word, &rt, &at, &n);
        if (got < 1 || fia_tol_profile_parse(word, &R.check.tolerance) != 0 ||
            (R.check.tolerance == FIA_TOL_ALLCLOSE
                 ? got != 3 || e[n] != '\0' || !(rt >= 0) || !(at >= 0)
                 : got != 1))
            bad_setting("FIACHECK_TOLERANCE", e, "bound, flash-attn, vendor, "
                        "ulp, cann-double or allclose RTOL ATOL");
        R.check.rtol = rt, R.check.atol = at;
    }
    if ((e = getenv("FIACHECK_FAST_PROFILE")) != NULL && *e) {
        if (fia_profile_parse(e, &R.check.fast_profile) != 0)
            bad_setting("FIACHECK_FAST_PROFILE", e, "doc or cann");
        R.check.fast_profile_set = 1;
    }
}

void fuzz_report_engine(void)
{
    R.engine = 1;
}

void fuzz_report_set_sink(fuzz_finding_sink fn)
{
    R.sink = fn;
}

void fuzz_report_check_options(fia_check_options *o)
{
    o->tolerance = R.check.tolerance;
    o->rtol = R.check.rtol, o->atol = R.check.atol;
    o->fast_profile_set = R.check.fast_profile_set;
    o->fast_profile = R.check.fast_profile;
}

void fuzz_report_init(fuzz_target_id t)
{
    if (R.init)
        return;
    R.init = 1;
    R.target = t;
    const char *e;
    if ((e = getenv("FIACHECK_DB")) != NULL)
        snprintf(R.db, sizeof R.db, "%s", e);
    read_check_settings();
    /* the system under test: a plug-in when FIACHECK_SUT names one (a
     * worker of `fiacheck fuzz --sut`, or a target run by hand) */
    fia_error err;
    if (fia_sut_use_env(&err) != FIA_OK) {
        fprintf(stderr, "fuzz: FIACHECK_SUT: %s\n", err.msg);
        exit(2);
    }
    e = getenv("FIACHECK_ON_FINDING");
    if (e != NULL && *e && strcmp(e, "abort") != 0 && strcmp(e, "record") != 0)
        bad_setting("FIACHECK_ON_FINDING", e, "abort or record");
    /* an engine's run without a store would see nothing of a finding */
    if (e != NULL && *e ? strcmp(e, "abort") == 0 : R.engine && !R.db[0])
        if (R.sink == NULL)
            R.sink = fuzz_crash_on_finding;
    if ((e = getenv("FIACHECK_STATS")) != NULL)
        snprintf(R.stats, sizeof R.stats, "%s", e);
    if ((e = getenv("FIACHECK_UNSTORED")) != NULL)
        snprintf(R.unstored, sizeof R.unstored, "%s", e);
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
    R.broken = calloc(n + 1, sizeof *R.broken);
    R.obeyed = calloc(n + 1, sizeof *R.obeyed);
    R.alone_first = calloc(n + 1, sizeof *R.alone_first);
    if (!R.broken || !R.obeyed || !R.alone_first)
        say_nomem("the rule coverage"), n = 0;
    R.nrules = (int)n;
    R.last_flush = time(NULL);
    atexit(at_exit_flush);
}

size_t fuzz_report_unstored(void)
{
    return R.npending;
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

/* The rule's index in the coverage arrays, -1 when it has none. */
static int rule_slot(const fia_rule *r)
{
    const size_t i = fia_rule_index(r);
    return i < (size_t)R.nrules ? (int)i : -1;
}

/* Is ratio the largest of bucket k so far?  Then the sample carries the
 * case text, so each bucket's worst case can be reproduced (db worst). */
static int new_worst(size_t k, double ratio)
{
    if (k >= R.nworst) {
        size_t n = k + 16;
        double *nw = realloc(R.worst, n * sizeof *nw);
        if (nw != NULL)
            R.worst = nw;
        size_t *na = nw ? realloc(R.worst_at, n * sizeof *na) : NULL;
        if (na == NULL)
            return 0;
        R.worst_at = na;
        for (size_t i = R.nworst; i < n; i++)
            nw[i] = -1, na[i] = 0;
        R.nworst = n;
    }
    if (!(ratio > R.worst[k]))
        return 0;
    R.worst[k] = ratio;
    return 1;
}

static void free_case(fia_case *c)
{
    if (c != NULL) {
        fia_case_free(c);
        free(c);
    }
}

/* Prints every bucket's kept worst case into its sample's text (before the
 * samples move or are written). */
static void print_worst_cases(void)
{
    for (size_t i = 0; i < R.nsamples; i++) {
        sample *p = &R.samples[i];
        if (p->worst == NULL)
            continue;
        p->text = fuzz_finding_text(p->worst, R.target,
                                    fia_profile_name(p->prof),
                                    "accuracy-worst",
                                    R.buckets.items[p->bucket], NULL);
        free_case(p->worst);
        p->worst = NULL;
    }
    for (size_t k = 0; k < R.nworst; k++)
        R.worst_at[k] = 0;
}

/* Bucket k has a new worst case: the previous holder since the last
 * print keeps its sample but not its case (nor its text). */
static void drop_held_worst(size_t k)
{
    if (R.worst_at[k] > 0) {
        sample *old = &R.samples[R.worst_at[k] - 1];
        free_case(old->worst);
        old->worst = NULL;
        free(old->text);
        old->text = NULL;
        R.worst_at[k] = 0;
    }
}

/* A copy of c; NULL when out of memory. */
static fia_case *copy_case(const fia_case *c)
{
    fia_case *cp = malloc(sizeof *cp);
    if (cp == NULL)
        return NULL;
    fia_case_init(cp);
    if (fia_case_copy(cp, c) != FIA_OK) {
        free_case(cp);
        return NULL;
    }
    return cp;
}

/* Keeps one accuracy sample for the next flush. */
static void add_sample(const char *bucket, double ulp, double rel,
                       double ratio, const fia_case *c, fia_profile profile)
{
    size_t k;
    if (!R.db[0])
        return; /* no store to take it */
    if (fuzz_strset_add(&R.buckets, bucket, &k, NULL) != FIA_OK) {
        say_nomem("the accuracy samples");
        return;
    }
    if (R.nsamples == MAX_PENDING_SAMPLES) {
        /* the store has failed for a long while: keep the newest half */
        print_worst_cases();
        size_t half = R.nsamples / 2;
        for (size_t i = 0; i < half; i++)
            free(R.samples[i].text);
        memmove(R.samples, R.samples + half, (R.nsamples - half) * sizeof *R.samples);
        R.nsamples -= half;
        R.dropped_samples += (int64_t)half;
        fprintf(stderr, "fuzz: the store takes no accuracy samples; %lld "
                "dropped so far\n", (long long)R.dropped_samples);
    }
    if (R.nsamples == R.cap_samples) {
        size_t cap = R.cap_samples ? R.cap_samples * 2 : 1024;
        sample *ns = realloc(R.samples, cap * sizeof *ns);
        if (ns == NULL) {
            say_nomem("the accuracy samples");
            return;
        }
        R.samples = ns;
        R.cap_samples = cap;
    }
    if (!(ratio >= 0))
        ratio = 0; /* no measure (NaN): not a ratio the store can rank */
    char *text = NULL;
    fia_case *worst = NULL;
    int holds = new_worst(k, ratio);
    if (holds) {
        drop_held_worst(k);
        /* the input regenerates the case: a few hundred bytes instead of
         * every value (printed now: it is cheap) */
        if (R.target == FUZZ_NUMERIC && R.input != NULL)
            text = fuzz_worst_generator_text(c, fia_profile_name(profile),
                                             bucket, R.input, R.input_n);
        if (text == NULL && (worst = copy_case(c)) == NULL)
            text = fuzz_finding_text(c, R.target, fia_profile_name(profile),
                                     "accuracy-worst", bucket, NULL);
    }
    sample *p = &R.samples[R.nsamples++];
    *p = (sample){k, ulp, rel, ratio, text, worst, profile, ""};
    if (holds)
        R.worst_at[k] = R.nsamples;
    if (fia_case_digest(c, p->key) != FIA_OK)
        p->key[0] = '\0'; /* no memory: a sample without identity */
}

#ifdef FIA_HAVE_STORE
/* The store, opened on first use; an open that failed is tried again a
 * few seconds later (the store may be locked for a while). */
static fia_store *store(void)
{
    if (R.store == NULL && R.db[0] && time(NULL) >= R.store_retry_at) {
        char err[512];
        if (fia_store_open(R.db, 1, &R.store, err, sizeof err) != FIA_OK) {
            R.store_retry_at = time(NULL) + 3;
            fprintf(stderr, "fuzz: cannot open the store: %s\n", err);
        }
    }
    return R.store;
}

/* Writes finding f; FIA_OK, or FIA_ERR_IO when the store refused it. */
static fia_status store_finding(const fuzz_finding *f)
{
    fia_store *s = store();
    if (s == NULL)
        return FIA_ERR_IO;
    fia_finding_record rec;
    fuzz_finding_record(f, R.campaign, R.revision, &rec);
    if (fia_store_add_finding(s, &rec, NULL) != FIA_OK) {
        fprintf(stderr, "fuzz: cannot record a finding: %s\n", fia_store_errmsg(s));
        return FIA_ERR_IO;
    }
    return FIA_OK;
}

/* Keeps f (taking its text) for a later write, its text spooled to a file
 * in R.unstored first.  FIA_OK or FIA_ERR_NOMEM (f untouched). */
static fia_status keep_pending(fuzz_finding *f)
{
    if (R.npending == R.cap_pending) {
        size_t cap = R.cap_pending ? 2 * R.cap_pending : 8;
        fuzz_finding *np = realloc(R.pending, cap * sizeof *np);
        if (np != NULL)
            R.pending = np;
        char (*nf)[1200] = np ? realloc(R.pending_file, cap * sizeof *nf) : NULL;
        if (nf == NULL)
            return FIA_ERR_NOMEM;
        R.pending_file = nf, R.cap_pending = cap;
    }
    char *file = R.pending_file[R.npending];
    file[0] = '\0';
    if (R.unstored[0]) {
        static unsigned serial;
        snprintf(file, 1200, "%s/%s.%ld.%u.case", R.unstored,
                 fuzz_target_name(R.target), (long)getpid(), serial++);
        FILE *o = fopen(file, "w");
        if (o == NULL || fputs(f->text, o) < 0 || fclose(o) != 0) {
            fprintf(stderr, "fuzz: cannot spool a finding to %s\n", file);
            file[0] = '\0';
        }
    }
    R.pending[R.npending++] = *f;
    f->text = NULL;
    return FIA_OK;
}

/* Writes the kept findings again, up to the first refusal (each try may
 * wait the store's busy timeout). */
static void retry_pending(void)
{
    size_t k = 0;
    while (k < R.npending && store_finding(&R.pending[k]) == FIA_OK) {
        if (R.pending_file[k][0])
            unlink(R.pending_file[k]);
        fuzz_finding_free(&R.pending[k]);
        k++;
    }
    memmove(R.pending, R.pending + k, (R.npending - k) * sizeof *R.pending);
    memmove(R.pending_file, R.pending_file + k,
            (R.npending - k) * sizeof *R.pending_file);
    R.npending -= k;
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
    struct timespec pt = {0, 0};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &pt);
    fprintf(f, "execs %lld\nevaluated %lld\naccepted %lld\nnot_modeled %lld\n"
            "findings %lld\nskipped %lld\nvacuous %lld\n",
            (long long)R.cnt.execs,
            (long long)R.cnt.evaluated, (long long)R.cnt.accepted,
            (long long)R.cnt.not_modeled, (long long)R.cnt.findings,
            (long long)R.cnt.skipped, (long long)R.cnt.vacuous);
    /* where the time went, at the same moment as the counts above */
    fprintf(f, "ref_elements %lld\nref_escalated %lld\ncpu_target %.6f\n"
            "cpu_ref %.6f\ncpu_sut %.6f\ncpu_process %.6f\n",
            (long long)R.cnt.ref_elements, (long long)R.cnt.ref_escalated,
            R.cnt.cpu_target, R.cnt.cpu_ref, R.cnt.cpu_sut,
            (double)pt.tv_sec + (double)pt.tv_nsec * 1e-9);
    for (size_t i = 0; i < R.sigs.n; i++)
        fprintf(f, "sig %s\n", R.sigs.items[i]);
    for (size_t i = 0; i < R.paths.n; i++)
        fprintf(f, "reach %s %.3f\n", R.paths.items[i], R.path_first[i]);
    /* when each rule first decided a call alone (fia_oracle_sole_rule) */
    for (int i = 0; i < R.nrules; i++)
        if (R.alone_first[i] > 0)
            fprintf(f, "alone %s %.3f\n", fia_rule_at((size_t)i)->id,
                    R.alone_first[i]);
    fclose(f);
    rename(tmp, path);
}

static void drop_samples(void)
{
    for (size_t i = 0; i < R.nsamples; i++) {
        free(R.samples[i].text);
        free_case(R.samples[i].worst);
    }
    for (size_t k = 0; k < R.nworst; k++)
        R.worst_at[k] = 0;
    R.nsamples = 0;
}

void fuzz_report_flush(void)
{
    if (!R.init)
        return;
    R.last_flush = time(NULL);
    if (R.db[0]) /* without a store the samples are dropped unprinted */
        print_worst_cases();
#ifdef FIA_HAVE_STORE
    fia_store *s = R.campaign > 0 ? store() : NULL;
    if (s != NULL) {
        for (int i = 0; i < R.nrules; i++)
            if (R.broken[i] || R.obeyed[i]) {
                const fia_rule *r = fia_rule_at((size_t)i);
                if (fia_store_add_rule_coverage(s, R.campaign, r->id, R.broken[i],
                                                R.obeyed[i]) != FIA_OK)
                    break;   /* kept for the next flush; the store waits */
                R.broken[i] = R.obeyed[i] = 0;
            }
        size_t k = 0;
        for (; k < R.nsamples; k++) {
            const sample *p = &R.samples[k];
            if (fia_store_add_accuracy_sample(
                    s, R.campaign, R.buckets.items[p->bucket], p->ulp, p->rel,
                    p->ratio, p->key[0] ? p->key : NULL, p->text) != FIA_OK)
                break;
            free(p->text);
        }
        if (k > 0) /* R.samples is NULL until the first sample */
            memmove(R.samples, R.samples + k,
                    (R.nsamples - k) * sizeof R.samples[0]);
        R.nsamples -= k;
    } else if (!R.db[0]) {
        drop_samples(); /* no store to take them: nothing waits for them */
    }
    if (R.npending > 0)
        retry_pending();
#else
    drop_samples();
#endif
    write_stats();
}

void fuzz_report_close(void)
{
    fuzz_report_flush();
#ifdef FIA_HAVE_STORE
    fia_store_close(R.store);
    R.store = NULL;
#endif
}

void fuzz_report_input(const uint8_t *data, size_t size)
{
    R.input = data;
    R.input_n = data != NULL ? size : 0;
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

void fuzz_report_times(const fia_check_result *r)
{
    R.cnt.cpu_ref += r->ref_seconds;
    R.cnt.cpu_sut += r->sut_seconds;
    R.cnt.ref_elements += r->ref_elements;
    R.cnt.ref_escalated += r->ref_escalated;
}

void fuzz_report_target_seconds(double target, double sut)
{
    R.cnt.cpu_target += target;
    R.cnt.cpu_sut += sut;
}

#ifdef FIA_HAVE_STORE
typedef struct compat_search {
    const char *sig;
    char found[320]; /* fuzz_finding.signature */
} compat_search;

static int compat_cb(const fia_store_finding *f, void *ctx)
{
    compat_search *cs = ctx;
    if (!fuzz_signature_compatible(cs->sig, f->signature) ||
        strlen(f->signature) >= sizeof cs->found)
        return 0;
    snprintf(cs->found, sizeof cs->found, "%s", f->signature);
    return 1; /* the oldest: findings are listed by id */
}
#endif

/* A signature new to this worker that is compatible with one recorded
 * already (fuzz_signature_compatible: the same but for a failing
 * pattern's where, one of them "spread") takes that name: first this
 * worker's, then the store's oldest (other workers, earlier campaigns). */
static void resolve_compatible(char *sig, size_t len)
{
    if (fuzz_strset_find(&R.sigs, sig) >= 0)
        return;
    for (size_t i = 0; i < R.sigs.n; i++)
        if (fuzz_signature_compatible(sig, R.sigs.items[i]) &&
            strlen(R.sigs.items[i]) < len) {
            snprintf(sig, len, "%s", R.sigs.items[i]);
            return;
        }
#ifdef FIA_HAVE_STORE
    fia_store *s = R.db[0] ? store() : NULL;
    compat_search cs = {sig, ""};
    if (s != NULL && fia_store_list_findings(s, NULL, compat_cb, &cs) ==
                         FIA_OK && cs.found[0] && strlen(cs.found) < len)
        snprintf(sig, len, "%s", cs.found);
#endif
}

/* 1 when sig was recorded before (else it is now). */
static int seen(const char *sig)
{
    int added;
    if (fuzz_strset_add(&R.sigs, sig, NULL, &added) != FIA_OK) {
        say_nomem("the signature set"); /* recorded again: the store counts it */
        return 0;
    }
    return !added;
}

/* f's text with the settings it was judged under in front, as the
 * "# fiacheck-" lines repro and minimize read back: a finding made under
 * FIACHECK_TOLERANCE fails under that tolerance only. */
static fia_status attach_text(fuzz_finding *f, const fia_case *c)
{
    if (fuzz_finding_attach_text(f, c) != FIA_OK)
        return FIA_ERR_NOMEM;
    char head[160] = "";
    int k = 0;
    if (R.check.tolerance != FIA_TOL_BOUND) {
        if (R.check.tolerance == FIA_TOL_ALLCLOSE)
            k = snprintf(head, sizeof head, "# fiacheck-tolerance: allclose "
                         "%.17g %.17g\n", R.check.rtol, R.check.atol);
        else
            k = snprintf(head, sizeof head, "# fiacheck-tolerance: %s\n",
                         fia_tol_profile_name(R.check.tolerance));
    }
    if (R.check.fast_profile_set && k >= 0 && (size_t)k < sizeof head)
        snprintf(head + k, sizeof head - (size_t)k, "# fiacheck-fast-profile:"
                 " %s\n", fia_profile_name(R.check.fast_profile));
    if (!head[0])
        return FIA_OK;
    size_t n = strlen(head) + strlen(f->text) + 1;
    char *full = malloc(n);
    if (full == NULL)
        return FIA_ERR_NOMEM;
    snprintf(full, n, "%s%s", head, f->text);
    free(f->text);
    f->text = full;
    return FIA_OK;
}

void fuzz_report_finding(const fia_case *c, fuzz_finding *f)
{
    R.cnt.findings++;
    if (R.sink != NULL) {
        /* every finding, seen before or not: in crash mode the first of an
         * input ends the process */
        if (attach_text(f, c) != FIA_OK)
            say_nomem("a finding's text");
        R.sink(f);
        fuzz_finding_free(f);
        return;
    }
    resolve_compatible(f->signature, sizeof f->signature);
    if (seen(f->signature))
        return;
    if (!R.quiet)
        fprintf(stderr, "fuzz: finding %s: %s\n", f->signature, f->message);
    if (attach_text(f, c) != FIA_OK)
        say_nomem("a finding's text");
#ifdef FIA_HAVE_STORE
    /* behind findings still waiting, a new one waits too (no 10 s try) */
    if (R.db[0] && f->text != NULL &&
        (R.npending > 0 || store_finding(f) != FIA_OK) &&
        keep_pending(f) != FIA_OK)
        say_nomem("a finding the store refused");
#endif
    fuzz_finding_free(f);
    write_stats();
}

static double wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void fuzz_report_computed(const fia_case *c)
{
    char b[160];
    fuzz_bucket(c, b, sizeof b);
    for (char *w = b, *end; *w; w = end + (*end != '\0')) {
        end = w + strcspn(w, "+|");
        const char sep = *end;
        *end = '\0';
        /* room for one more time first: a word is in the set only with
         * its time (write_stats reads one for each) */
        if (R.paths.n >= R.cap_path_first) {
            size_t cap = R.cap_path_first ? 2 * R.cap_path_first : 32;
            double *np = realloc(R.path_first, cap * sizeof *np);
            if (np == NULL) {
                say_nomem("the paths reached");
                return;
            }
            R.path_first = np, R.cap_path_first = cap;
        }
        size_t k;
        int added = 0;
        if (*w && fuzz_strset_add(&R.paths, w, &k, &added) != FIA_OK) {
            say_nomem("the paths reached");
            return;
        }
        if (added)
            R.path_first[k] = wall_seconds();
        *end = sep;
    }
}

void fuzz_report_verdict(const fia_case *c, const fia_check_result *r,
                         fia_profile profile)
{
    fuzz_report_times(r);
    if (r->evaluated) {
        R.cnt.evaluated++;
        R.cnt.accepted += r->ov.accept;
        R.cnt.not_modeled += r->ov.not_modeled;
        R.cnt.not_covered += r->v == FIA_V_NOT_MODELED && r->ov.accept;
        R.cnt.vacuous += r->v == FIA_V_VACUOUS;
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
        const int k = rule_slot(fia_oracle_sole_rule(&r->ov, profile));
        if (k >= 0 && R.alone_first[k] == 0)
            R.alone_first[k] = wall_seconds();
    }
    if (r->computed) {
        fuzz_report_computed(c);
        char b[160];
        fuzz_bucket(c, b, sizeof b);
        add_sample(b, r->out_cmp.max_ulp, r->out_cmp.max_rel_err,
                   r->out_cmp.max_ratio, c, profile);
    }
    if (fia_verdict_is_finding(r->v)) {
        fuzz_finding f;
        fuzz_finding_of_check(&f, c, r, R.target, profile);
        fuzz_report_finding(c, &f);
    }
}
