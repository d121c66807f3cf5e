/* The harness: one case checked end to end.
 *
 * The oracle gives the expected status, fast/ is called through its
 * two-phase API, and for accepted cases its outputs are compared with the
 * MPFR reference.  This is the only code that sees all three parts; it adds
 * no validation or arithmetic of its own.  `fiacheck run`, the fuzz targets,
 * repro and minimize all judge a case through fia_check_case(). */
#ifndef FIA_CHECK_H
#define FIA_CHECK_H

#include "fia/case.h"
#include "fia/compare.h"
#include "fia/error.h"
#include "fia/oracle.h"
#include "fia/ref.h"
#include "fia/status.h"

typedef enum fia_verdict {
    FIA_V_PASS = 0,
    FIA_V_NOT_MODELED,     /* skipped: a documented feature not modeled yet */
    FIA_V_STATUS_MISMATCH, /* finding */
    FIA_V_ACCURACY,        /* finding */
    FIA_V_NAN_LEAK,        /* finding */
    FIA_V_HARNESS_ERROR,   /* finding: ref refused a case the oracle accepted */
    FIA_V_BAD_INPUT,       /* the case is malformed or too large to compute */
    FIA_V_VACUOUS,         /* not a finding, not a pass: fast/ answered as
                              expected but no output element could be
                              compared (every one unspecified or outside
                              the tolerance model) */
    FIA_V_INTENT_UNMET,    /* not a finding of fast/ but a failure: the
                              case does not exercise what its `intent`
                              line says (it would otherwise pass) */
    FIA_V_CRASH,           /* finding: the system (a worker process) died
                              or broke the protocol during the call,
                              whatever the rules expected */
    FIA_V_TIMEOUT          /* finding: it did not answer in time */
} fia_verdict;

const char *fia_verdict_name(fia_verdict v); /* "pass", "vacuous", ... */
int fia_verdict_is_finding(fia_verdict v);

typedef struct fia_check_options {
    fia_profile profile;
    int status_only;       /* statuses only: no data, nothing computed */
    long precision;        /* reference precision in bits; 0 = default */
    fia_tol_profile tolerance; /* FIA_TOL_BOUND (default, 0) ... */
    double rtol, atol;     /* FIA_TOL_ALLCLOSE */
    int fast_profile_set;  /* fast/ runs under fast_profile, not profile:
                              the released code's statuses checked against
                              the documents' (FIACHECK_FAST_PROFILE) */
    fia_profile fast_profile;
    int pure_mpfr;         /* reference without its binary64 first pass */
    double max_ref_work;   /* refuse to compute cases estimated above this
                              many multiply-adds; 0 = FIA_CHECK_MAX_REF_WORK */
    int fail_masks;        /* keep which output elements failed
                              (r->out_fail, r->lse_fail); the caller then
                              calls fia_check_result_release */
    fia_ref_progress_fn ref_progress; /* the reference's progress; NULL */
    void *ref_progress_ctx;
} fia_check_options;

/* Default work limit: about a minute of the reference on one core. */
#define FIA_CHECK_MAX_REF_WORK 2e10
/* The reference's multiply-adds for a case, estimated from shapes alone
 * (an upper estimate; 0 when there is nothing to compute). */
double fia_check_reference_work(const fia_case *c);

void fia_check_options_default(fia_check_options *o);

/* One intent of the case, judged (harness/intent.c). */
typedef struct fia_intent_result {
    fia_intent intent;
    int met;                     /* 1 met, 0 not, -1 not checked (nothing
                                    read: --status-only, not modeled) */
    char found[192];             /* what was found, either way */
} fia_intent_result;

typedef struct fia_check_result {
    fia_verdict v;
    /* Why the verdict is what it is, when there is something to say; code
     * FIA_OK and msg "" otherwise (a pass; accuracy and nan-leak, whose
     * numbers are out_cmp / lse_cmp; vacuous: FIA_OK with what was not
     * compared).  code: FIA_ERR_BAD_INPUT (or the case
     * model's FIA_ERR_NOMEM) for bad-input, FIA_ERR_NOT_MODELED for
     * not-modeled, the failing part's status for harness-error, and for a
     * status-mismatch the status fast returned, or the expected one when
     * fast accepted. */
    fia_error reason;
    int evaluated;               /* the oracle ran: ov is valid */
    fia_oracle_verdict ov;
    int fast_called;
    fia_status fast_status;
    fia_error fast_error;        /* fast's message when fast_status != OK */
    int computed;                /* outputs were compared */
    fia_compare_result out_cmp;
    int has_lse;
    fia_compare_result lse_cmp;
    int has_cann;                /* --tolerance cann-double: attention_out's
                                    double benchmark (the case fails when
                                    the bound or this fails) */
    fia_cann_result cann;
    int64_t ref_elements, ref_escalated; /* the reference's Ziv counters */
    /* CPU seconds of the process (fast/'s own threads included) in the
     * reference and in the system under test (its validation and, when
     * computed, its outputs): what `fiacheck fuzz` and `bench --fuzz`
     * split a target's time by */
    double ref_seconds, sut_seconds;
    int n_intents;               /* the case's intents, in vocabulary order */
    fia_intent_result intents[FIA_INTENT_COUNT];
    /* With options.fail_masks, once compared: per element of
     * attention_out / softmax_lse (in their own layout) its fia_fail_code;
     * NULL otherwise.  Owned by the result (fia_check_result_release). */
    uint8_t *out_fail, *lse_fail;
} fia_check_result;

/* Frees what a result judged with options.fail_masks holds (the masks);
 * the rest stays valid. */
void fia_check_result_release(fia_check_result *r);

/* The process's CPU time in seconds, every thread's (what ref_seconds and
 * sut_seconds are measured with). */
double fia_check_cpu_seconds(void);

/* Judges one parsed case.  Never fails: problems become the verdict. */
void fia_check_case(const fia_case *c, const fia_check_options *o,
                    fia_check_result *r);

/* Judges the case's intents into r->intents (r->ov must be evaluated): by
 * the reference's reading of the rows of d (NULL when no data was made:
 * those intents are not checked, not_read says why) and the oracle's
 * verdict.  Leaves r->v alone. */
void fia_check_intents(const fia_case *c, const fia_case_data *d,
                       const char *not_read, fia_check_result *r);

/* 1 when the case's block table sends a key it reads outside the cache
 * (page attention: block ids are not validated, the result is unspecified;
 * harness/paged_ids.c), with the reason in why[n]; 0 otherwise (also when
 * the case is not paged or has no data). */
int fia_check_paged_ids_unspecified(const fia_case *c, const fia_case_data *d,
                                    char *why, size_t n);

/* Calls the system under test's two phases (fast/, or the plug-in
 * fia_sut_current() names) with the case's parameters and tensors, under
 * the case's run settings (kernel_level, threads, task_order), restored
 * afterwards.  Phase two runs only when `compute` is set and phase one
 * succeeded.  Returns the first non-OK status (the system's, with its
 * last_error in err; FIA_ERR_NOMEM for the workspace; FIA_ERR_BAD_INPUT
 * when the system cannot take the case's run settings). */
fia_status fia_call_sut(const fia_case *c, const fia_case_data *d,
                        fia_profile profile, int compute, fia_error *err);
/* FIA_OK when the system under test can take the case's run settings;
 * otherwise FIA_ERR_BAD_INPUT saying which it cannot. */
fia_status fia_sut_check_settings(const fia_case *c, fia_error *err);

#endif
