/* fuzz/: the fuzz targets of fiacheck and what they share with the CLI
 * (fiacheck fuzz, repro, minimize) and the tests.
 *
 * A target turns the fuzzer's bytes into one or two cases (decode_*.c, each
 * a list of per-feature generator fragments gen_<feature>.c, see gen.h),
 * judges them with fia_check_case() (harness/check.c) or, for the
 * metamorphic target, compares fast/'s outputs of two forms of one problem
 * (meta.c), and reports findings (built by finding.c), rule coverage and
 * accuracy to the store (report.c).  Nothing here decides validity or
 * computes attention. */
#ifndef FIA_FUZZ_H
#define FIA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include "fia/case.h"
#include "fia/check.h"
#include "fia/error.h"
#ifdef FIA_HAVE_STORE
#include "fia/store.h"
#endif

/* The signature buffers' size: signatures are cut to it, the same way
 * wherever they are made. */
#define FUZZ_SIGNATURE_LEN 256

/* The targets in fuzz/targets.def's order: FUZZ_PARAMS, FUZZ_NUMERIC, ... */
typedef enum fuzz_target_id {
#define FUZZ_TARGET(name, ID) FUZZ_##ID,
#include "fuzz/targets.def"
#undef FUZZ_TARGET
    FUZZ_TARGET_COUNT
} fuzz_target_id;

const char *fuzz_target_name(fuzz_target_id t);     /* "fuzz_params", ... */
int fuzz_target_from_name(const char *name);       /* also "params"; -1 */

/* ---- decoders (bytes -> case) -------------------------------------------
 * Any input decodes to a case (fuzz/gen.h: the fragments they are made
 * of).  FIA_OK, or FIA_ERR_NOMEM when a tensor could not be built: the case
 * is then incomplete (valid to free, not to judge). */

/* Any combination of parameters, biased to validator edges; shapes may be
 * huge (status only). */
fia_status fuzz_decode_params(const uint8_t *data, size_t size, fia_case *c);
/* A case the rules accept, small shapes, data from kernel-breaking
 * distributions (explicit .values where the distribution needs them). */
fia_status fuzz_decode_numeric(const uint8_t *data, size_t size, fia_case *c);
/* fuzz_numeric's quantization mode tag ("int8kv", "int4kv", "int8out",
 * "int8q": a feature-set word, fuzz_feature_set) made wherever it applies
 * from now on, instead of now and then; NULL or another word: none.
 * Returns whether tag named a mode.  Process-wide (a survey's --only). */
int fuzz_numeric_focus(const char *tag);
/* The numeric and metamorphic decoders give a case a kernel level (now and
 * then) among those this CPU has, so that a finding reproduces where it
 * was found: the same bytes then decode to another case on a CPU with
 * other levels.  With on != 0 they decode as on a CPU with every level
 * fiacheck names (fia_kernel_level), whatever this one has: the seed
 * corpora's meaning, one on every machine (tests/test_fuzz_corpus_decode;
 * such a case may not run here).  Process-wide. */
void fuzz_decode_as_every_level(int on);
/* A base case for the metamorphic target and the transform to apply to it
 * (a string like "layout=BSH", see meta.c; "none" when none applies). */
fia_status fuzz_decode_metamorphic(const uint8_t *data, size_t size,
                                   fia_case *c, char *transform, size_t tlen);

/* ---- the metamorphic relation ------------------------------------------ */

/* The second form of c under transform into *out (freed on failure):
 * FIA_OK; FIA_ERR_BAD_INPUT when the transform does not apply to c or c's
 * data cannot be made; FIA_ERR_NOMEM. */
fia_status fuzz_meta_transform(const fia_case *c, const char *transform,
                               fia_case *out, fia_error *err);

typedef struct fuzz_meta_result {
    int applicable;        /* 0: transform not applicable, or a form rejected */
    int finding;           /* 1: disagreement or a status finding */
    char kind[32];         /* "metamorphic" or a verdict name */
    char signature[256];
    char message[512];
    int64_t worst_index;   /* in the canonical BNSD order, -1 */
    double worst_a, worst_b, max_ulp;
} fuzz_meta_result;

/* Runs both forms through fast/ (after fia_check_case status-only on both)
 * and compares the outputs. */
void fuzz_meta_check(const fia_case *c, const char *transform,
                     fia_profile profile, fuzz_meta_result *r);

/* ---- signatures and buckets -------------------------------------------- */

/* Feature bucket: "prefill+sparse3+mask+gqa+lse+seqlen+rowinv" style. */
void fuzz_feature_set(const fia_case *c, char *buf, size_t len);
/* bucket = feature set | dtype | layout. */
void fuzz_bucket(const fia_case *c, char *buf, size_t len);
/* Semantic signature of a finding judged by fia_check_case (signature.c
 * defines it): status-mismatch | rule ids | expected>fast; accuracy and
 * nan-leak | where and how the output fails (needs r's fail masks:
 * fia_check_options.fail_masks); others kind | bucket. */
void fuzz_signature(const fia_case *c, const fia_check_result *r,
                    fia_profile profile, char *buf, size_t len);

/* ---- the targets --------------------------------------------------------- */

/* One input of a target (what LLVMFuzzerTestOneInput calls). */
int fuzz_run_one(fuzz_target_id t, const uint8_t *data, size_t size);

/* ---- findings (finding.c): what the workers, `fiacheck fuzz` and
 * `fiacheck minimize` record, built in one place ------------------------- */

typedef struct fuzz_finding {
    fuzz_target_id target;
    char profile[32];       /* "doc", "cann", "doc+cann" */
    char kind[32];          /* a verdict name, "metamorphic", "crash", ... */
    char signature[320];
    char metrics[512];      /* JSON (with the case's "bucket"); "" none */
    char message[1024];
    char transform[64];     /* the metamorphic transform; "" none */
    char artifact[1024];    /* the libFuzzer artifact it came from; "" none */
    uint64_t seed;
    char *text;             /* the case text (fuzz_finding_attach_text) */
} fuzz_finding;

/* A finding of fia_check_case's verdict r (a finding verdict): signature
 * fuzz_signature, metrics the comparison's or the two statuses. */
void fuzz_finding_of_check(fuzz_finding *f, const fia_case *c,
                           const fia_check_result *r, fuzz_target_id t,
                           fia_profile p);
/* A finding of the metamorphic relation (m->finding set). */
void fuzz_finding_of_meta(fuzz_finding *f, const fia_case *c,
                          const fuzz_meta_result *m, fia_profile p,
                          const char *transform);
/* A finding of a libFuzzer artifact (kind "crash" or "timeout") whose
 * input decodes to c: signature kind|target|bucket. */
void fuzz_finding_of_artifact(fuzz_finding *f, const fia_case *c,
                              const char *kind, fuzz_target_id t,
                              const char *profile, const char *transform,
                              const char *path, const char *message);
/* Builds f->text from c: the finding's header then the case (with the
 * artifact's line in front when it has one). */
fia_status fuzz_finding_attach_text(fuzz_finding *f, const fia_case *c);
void fuzz_finding_free(fuzz_finding *f);
#ifdef FIA_HAVE_STORE
/* The store's record of f (pointing into f; text attached). */
void fuzz_finding_record(const fuzz_finding *f, int64_t campaign,
                         const char *revision, fia_finding_record *out);
#endif

/* The case text a finding stores: a header of "# fiacheck-..." comment
 * lines (target, profile, kind, signature, fast-kernels, fast-threads,
 * transform) then the case; NULL out of memory. */
char *fuzz_finding_text(const fia_case *c, fuzz_target_id t,
                        const char *profile, const char *kind,
                        const char *signature, const char *transform);
/* That header alone (each line ending in a newline); NULL out of memory. */
char *fuzz_finding_header(fuzz_target_id t, const char *profile,
                          const char *kind, const char *signature,
                          const char *transform);
/* Reads "# fiacheck-KEY: VALUE" from such a text into val ("" if none). */
void fuzz_text_header(const char *text, const char *key, char *val,
                      size_t len);

/* ---- worst cases in their generator form (worst_text.c) -----------------
 * A bucket's worst case that its target's decoder makes from the input
 * bytes is stored as those bytes, not as its values: the header of
 * fuzz_finding_text (kind accuracy-worst) and "# fiacheck-generator"
 * lines naming the decoder, its focus (fuzz_numeric_focus), the input in
 * hex and the case's digest. */

/* The generator form of case c decoded by fuzz_numeric from input[0..n)
 * under the current focus; NULL when it does not regenerate c here (the
 * decoder gives another case, the input is too large, out of memory):
 * store the full text then. */
char *fuzz_worst_generator_text(const fia_case *c, const char *profile,
                                const char *bucket, const uint8_t *input,
                                size_t n);
/* 1 when text is a generator form. */
int fuzz_worst_is_generator(const char *text);
/* The full text (header and case, as fuzz_finding_text writes it) of a
 * stored worst case into *out (malloc'ed): a full text is copied, a
 * generator form decoded again and checked against its digest.  FIA_OK;
 * FIA_ERR_BAD_INPUT when the form is damaged or decodes to another case
 * here (another decoder, or a machine with other kernel levels), said in
 * err; FIA_ERR_NOMEM. */
fia_status fuzz_worst_full_text(const char *text, char **out, fia_error *err);
/* fuzz_numeric's focus word ("int8kv", ...), NULL when none. */
const char *fuzz_numeric_focus_tag(void);

/* ---- a set of strings (strset.c) ------------------------------------------ */

typedef struct fuzz_strset {
    char **items;           /* in insertion order */
    size_t n, cap;
    size_t *slots;          /* the index: item + 1, 0 empty */
    size_t nslots;
} fuzz_strset;

void fuzz_strset_init(fuzz_strset *s);
void fuzz_strset_free(fuzz_strset *s);
/* The index of str, -1 when not in the set. */
ptrdiff_t fuzz_strset_find(const fuzz_strset *s, const char *str);
/* Adds a copy of str when new; *index (may be NULL) its index, *added
 * (may be NULL) 1 when it was new.  FIA_OK or FIA_ERR_NOMEM. */
fia_status fuzz_strset_add(fuzz_strset *s, const char *str, size_t *index,
                           int *added);

/* ---- reporting (report.c) ------------------------------------------------ */

typedef struct fuzz_counters {
    int64_t execs, evaluated, accepted, not_modeled, findings, skipped;
    int64_t vacuous;        /* judged cases where nothing was compared */
    int64_t not_covered;    /* calls the rules accept that a numbers-only
                               system under test refused (not_modeled
                               counts the rules' own not-modeled calls) */
    int64_t ref_elements, ref_escalated; /* the reference's Ziv counters */
    /* CPU seconds: in the target (fuzz_run_one), in its reference and its
     * system under test, and of the whole process (the engine's share is
     * process - target; stats files only) */
    double cpu_target, cpu_ref, cpu_sut, cpu_process;
} fuzz_counters;

/* Reads FIACHECK_DB, FIACHECK_CAMPAIGN, FIACHECK_PROFILE, FIACHECK_REVISION,
 * FIACHECK_STATS; opens the store when a path is given.  Idempotent. */
void fuzz_report_init(fuzz_target_id t);
/* Profiles to check (from FIACHECK_PROFILE; both when unset). */
int fuzz_report_profiles(fia_profile *out);   /* count: 1 or 2 */
/* Accounts a judged case: validity, rule coverage, accuracy; records a
 * finding when the verdict is one. */
void fuzz_report_verdict(const fia_case *c, const fia_check_result *r,
                         fia_profile profile);
/* A case whose outputs were computed and compared: the paths it took
 * (the words of its bucket, fuzz_bucket) are reached, each at its first
 * time (the stats file's "reach" lines; fuzz_report_verdict does it for
 * the cases it is given). */
void fuzz_report_computed(const fia_case *c);
/* Records finding f of case c (deduplicated by signature in this
 * process); frees what f holds. */
void fuzz_report_finding(const fia_case *c, fuzz_finding *f);
void fuzz_report_exec(void);                 /* one input done */
/* Adds r's reference and system-under-test CPU times and Ziv counters
 * (fuzz_report_verdict does it for the cases it is given). */
void fuzz_report_times(const fia_check_result *r);
/* Adds CPU seconds spent in the target (fuzz_run_one), and of those in a
 * system under test outside fia_check_case. */
void fuzz_report_target_seconds(double target, double sut);
void fuzz_report_skip(void);                 /* an input not judged */
void fuzz_report_flush(void);                /* to the store + stats file */
/* Flushes and closes the store (checkpointed: fia_store_close); the next
 * report opens it again.  Also at exit. */
void fuzz_report_close(void);
/* The input being judged (fuzz_run_one sets it; NULL after): a bucket's
 * worst case of fuzz_numeric is kept as it when it regenerates the case. */
void fuzz_report_input(const uint8_t *data, size_t size);
const fuzz_counters *fuzz_report_counters(void);
/* One line "<indent>CPU time: reference P %, system under test P %,
 * harness P %[, fuzzer P %] of S s[; the reference left P % of N elements
 * to MPFR]" from c (time_split.c); nothing when c has no time.  The fuzzer's
 * share is there when c has the process's time (a campaign's stats). */
void fuzz_print_time_split(const char *indent, const fuzz_counters *c);
int fuzz_report_quiet(int quiet);            /* no stderr lines; old value */
/* Takes every finding instead of the store (text attached, freed after
 * the call); NULL: recorded.  Set before the first input. */
typedef void (*fuzz_finding_sink)(const fuzz_finding *f);
void fuzz_report_set_sink(fuzz_finding_sink fn);
/* This process is a libFuzzer binary: when FIACHECK_ON_FINDING is unset
 * and no store is named, findings crash it (crash.c).  Before init. */
void fuzz_report_engine(void);
/* The check options of the environment into o: FIACHECK_TOLERANCE (the
 * words of --tolerance) and FIACHECK_FAST_PROFILE (fast/'s status profile,
 * else the oracle's). */
void fuzz_report_check_options(fia_check_options *o);

/* ---- crash mode (crash.c) ------------------------------------------------ */
/* Prints f's signature, message and case text on stderr, then aborts from
 * the function named after its kind (fia_finding_accuracy, ...). */
__attribute__((noreturn)) void fuzz_crash_on_finding(const fuzz_finding *f);
/* That function's name for a kind ("fia_finding_other" for unknown ones). */
const char *fuzz_crash_function(const char *kind);
size_t fuzz_report_unstored(void);           /* findings the store refused */

/* ---- minimization (minimize.c) ------------------------------------------- */
/* 1 when the candidate still fails the way we want. */
typedef int (*fuzz_pred)(const fia_case *c, void *ctx);

/* Shrinks c in place (drop optional tensors and features, reduce B, N, S,
 * D, simplify data toward small integers) while pred holds; at most
 * max_attempts predicate calls.  Returns the number of accepted steps. */
int fuzz_minimize(fia_case *c, fuzz_pred pred, void *ctx, int max_attempts);
/* A size measure (smaller is simpler). */
double fuzz_case_size(const fia_case *c);

/* How target t judges a case. */
typedef struct fuzz_case_verdict {
    int finding;                        /* 1 finding, 0 passes, -1 not judged */
    char signature[FUZZ_SIGNATURE_LEN]; /* a finding's; "" otherwise */
    char message[1024];                 /* the verdict's */
} fuzz_case_verdict;

/* Judges c as target t would into *v; returns v->finding. */
int fuzz_case_signature(const fia_case *c, fuzz_target_id t, fia_profile p,
                        const char *transform, fuzz_case_verdict *v);
/* The same under the check options opt (profile, tolerance...; status_only
 * is the target's). */
int fuzz_case_judge(const fia_case *c, fuzz_target_id t,
                    const fia_check_options *opt, const char *transform,
                    fuzz_case_verdict *v);

/* Predicate "the same bug": a finding whose signature is compatible with
 * the given one (fuzz_signature_compatible); ctx is a fuzz_sig_pred. */
typedef struct fuzz_sig_pred {
    fuzz_target_id target;
    fia_profile profile;
    char transform[64];
    char signature[FUZZ_SIGNATURE_LEN];
    const fia_check_options *check; /* NULL: the defaults under profile */
} fuzz_sig_pred;
int fuzz_same_signature(const fia_case *c, void *ctx);

#endif
