/* fuzz/: the fuzz targets of fiacheck and what they share with the CLI
 * (fiacheck fuzz, repro, minimize) and the tests.
 *
 * A target turns the fuzzer's bytes into one or two cases (decode_*.c),
 * judges them with fia_check_case() (harness/check.c) or, for the
 * metamorphic target, compares fast/'s outputs of two forms of one problem
 * (meta.c), and reports findings, rule coverage and accuracy to the store
 * (report.c).  Nothing here decides validity or computes attention. */
#ifndef FIA_FUZZ_H
#define FIA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include "fia/case.h"
#include "fia/check.h"

typedef enum fuzz_target_id {
    FUZZ_PARAMS = 0,
    FUZZ_NUMERIC,
    FUZZ_METAMORPHIC,
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
/* A base case for the metamorphic target and the transform to apply to it
 * (a string like "layout=BSH", see meta.c; "none" when none applies). */
fia_status fuzz_decode_metamorphic(const uint8_t *data, size_t size,
                                   fia_case *c, char *transform, size_t tlen);

/* ---- the metamorphic relation ------------------------------------------ */

/* The second form of c under transform; 0, or -1 when the transform does
 * not apply to c (or c's data cannot be made). */
int fuzz_meta_transform(const fia_case *c, const char *transform,
                        fia_case *out);

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
/* Semantic signature of a finding judged by fia_check_case:
 * kind | rule ids (status) or feature set (accuracy) | dtype | layout. */
void fuzz_signature(const fia_case *c, const fia_check_result *r,
                    fia_profile profile, char *buf, size_t len);

/* ---- the targets --------------------------------------------------------- */

/* One input of a target (what LLVMFuzzerTestOneInput calls). */
int fuzz_run_one(fuzz_target_id t, const uint8_t *data, size_t size);

/* The case text a finding stores: a header of "# fiacheck-..." comment
 * lines (target, profile, kind, signature, fast-kernels, fast-threads,
 * transform) then the case. */
char *fuzz_finding_text(const fia_case *c, fuzz_target_id t,
                        const char *profile, const char *kind,
                        const char *signature, const char *transform);
/* Reads "# fiacheck-KEY: VALUE" from such a text into val ("" if none). */
void fuzz_text_header(const char *text, const char *key, char *val,
                      size_t len);

/* ---- reporting (report.c) ------------------------------------------------ */

typedef struct fuzz_counters {
    int64_t execs, evaluated, accepted, not_modeled, findings, skipped;
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
/* Records a finding (deduplicated by signature in this process). */
void fuzz_report_finding(const fia_case *c, const char *kind,
                         const char *signature, fia_profile profile,
                         const char *metrics_json, const char *message,
                         const char *transform);
void fuzz_report_exec(void);                 /* one input done */
void fuzz_report_skip(void);                 /* an input not judged */
void fuzz_report_flush(void);                /* to the store + stats file */
const fuzz_counters *fuzz_report_counters(void);
int fuzz_report_quiet(int quiet);            /* no stderr lines; old value */

/* ---- minimization (minimize.c) ------------------------------------------- */
/* 1 when the candidate still fails the way we want. */
typedef int (*fuzz_pred)(const fia_case *c, void *ctx);

/* Shrinks c in place (drop optional tensors and features, reduce B, N, S,
 * D, simplify data toward small integers) while pred holds; at most
 * max_attempts predicate calls.  Returns the number of accepted steps. */
int fuzz_minimize(fia_case *c, fuzz_pred pred, void *ctx, int max_attempts);
/* A size measure (smaller is simpler). */
double fuzz_case_size(const fia_case *c);

/* Judges c as target t would and writes the finding's signature; returns 1
 * when it is a finding, 0 when it passes (sig = ""), -1 not judged. */
int fuzz_case_signature(const fia_case *c, fuzz_target_id t, fia_profile p,
                        const char *transform, char *sig, size_t len,
                        char *msg, size_t mlen);

/* Predicate "same signature": ctx is a fuzz_sig_pred. */
typedef struct fuzz_sig_pred {
    fuzz_target_id target;
    fia_profile profile;
    char transform[64];
    char signature[256];
} fuzz_sig_pred;
int fuzz_same_signature(const fia_case *c, void *ctx);

#endif
