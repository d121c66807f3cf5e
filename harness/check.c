/* One case checked end to end: oracle, fast/, reference, comparator. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fia/check.h"
#include "fia/sut_host.h"
#include "fia/ref.h"

static const char *const verdict_names[] = {
    "pass", "not-modeled", "status-mismatch", "accuracy", "nan-leak",
    "harness-error", "bad-input", "vacuous", "intent-unmet", "crash",
    "timeout",
};

const char *fia_verdict_name(fia_verdict v)
{
    if ((int)v < 0 || (size_t)v >= sizeof verdict_names / sizeof *verdict_names)
        return "unknown";
    return verdict_names[v];
}

int fia_verdict_is_finding(fia_verdict v)
{
    return v == FIA_V_STATUS_MISMATCH || v == FIA_V_ACCURACY ||
           v == FIA_V_NAN_LEAK || v == FIA_V_HARNESS_ERROR ||
           v == FIA_V_CRASH || v == FIA_V_TIMEOUT;
}

double fia_check_cpu_seconds(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        return 0.0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void fia_check_options_default(fia_check_options *o)
{
    memset(o, 0, sizeof *o);
    o->profile = FIA_PROFILE_DOC;
}

/* The plain same-dtype implementation for the flash-attn profile: tensors
 * shaped as the reference's, initialized with its values. */
static fia_status plain_outputs(const fia_case *c, const fia_case_data *d,
                                const fia_ref_result *ref, fia_tensor *po,
                                fia_tensor *pl, fia_error *err)
{
    *po = ref->out;
    *pl = ref->lse;
    po->data = pl->data = NULL;
    size_t no = (size_t)(ref->out_numel > 0 ? ref->out_numel : 0) * 2;
    size_t nl = (size_t)(ref->has_lse && ref->lse_numel > 0
                             ? ref->lse_numel : 0) * 4;
    po->data = malloc(no ? no : 1);
    pl->data = malloc(nl ? nl : 1);
    if (!po->data || !pl->data)
        return fia_fail(err, FIA_ERR_NOMEM,
                        "plain implementation: out of memory");
    if (no)
        memcpy(po->data, ref->out.data, no);
    if (nl)
        memcpy(pl->data, ref->lse.data, nl);
    return fia_tolerance_plain(c, d, po, ref->has_lse ? pl : NULL, err);
}

/* Compares fast/'s outputs in d with the reference ref under the options'
 * tolerance profile; sets r->v (and r->reason when the comparison cannot be
 * made). */
static void judge_outputs(const fia_case *c, const fia_case_data *d,
                          const fia_check_options *o,
                          const fia_ref_result *ref, fia_check_result *r)
{
    fia_tensor po = {0}, pl = {0};
    if ((o->tolerance == FIA_TOL_FLASH_ATTN ||
         o->tolerance == FIA_TOL_CANN_DOUBLE) &&
        plain_outputs(c, d, ref, &po, &pl, &r->reason) != FIA_OK) {
        r->v = FIA_V_HARNESS_ERROR;
        goto done;
    }
    const fia_tensor *out = d->t[FIA_SLOT_ATTENTION_OUT];
    if (o->fail_masks) {
        /* which elements failed, for the finding's signature */
        int64_t no = fia_tensor_numel(&ref->out);
        int64_t nl = ref->has_lse ? fia_tensor_numel(&ref->lse) : 0;
        r->out_fail = calloc((size_t)(no > 0 ? no : 1), 1);
        r->lse_fail = calloc((size_t)(nl > 0 ? nl : 1), 1);
        if (r->out_fail == NULL || r->lse_fail == NULL) {
            r->v = FIA_V_HARNESS_ERROR;
            fia_fail(&r->reason, FIA_ERR_NOMEM, "out of memory");
            goto done;
        }
    }
    fia_compare_ref cr = {&ref->out, ref->out_exact, ref->out_unspecified,
                          ref->out_bound, &po};
    fia_status st = out == NULL ? FIA_ERR_BAD_INPUT
                                : fia_compare_profile_fail(o->tolerance, o->rtol,
                                                           o->atol, &cr, out,
                                                           &r->out_cmp,
                                                           r->out_fail, NULL);
    if (st != FIA_OK) {
        r->v = FIA_V_HARNESS_ERROR;
        fia_fail(&r->reason, st, "attention_out does not match the "
                 "reference in dtype or size");
        goto done;
    }
    int ok = r->out_cmp.pass;
    int leak = r->out_cmp.n_nan_leak > 0;
    const fia_tensor *lse = d->t[FIA_SLOT_SOFTMAX_LSE];
    if (ref->has_lse && lse != NULL) {
        r->has_lse = 1;
        fia_compare_ref lr = {&ref->lse, ref->lse_exact, ref->lse_unspecified,
                              ref->lse_bound, &pl};
        st = fia_compare_profile_fail(o->tolerance, o->rtol, o->atol, &lr,
                                      lse, &r->lse_cmp, r->lse_fail, NULL);
        if (st != FIA_OK) {
            r->v = FIA_V_HARNESS_ERROR;
            fia_fail(&r->reason, st, "softmax_lse does not match the "
                     "reference in size");
            goto done;
        }
        ok = ok && r->lse_cmp.pass;
        leak = leak || r->lse_cmp.n_nan_leak > 0;
    }
    r->v = leak ? FIA_V_NAN_LEAK : ok ? FIA_V_PASS : FIA_V_ACCURACY;
    if (o->tolerance == FIA_TOL_CANN_DOUBLE && out != NULL &&
        fia_tensor_numel(out) > 0) {
        st = fia_cann_compare(&cr, out, &r->cann, &r->reason);
        if (st != FIA_OK) {
            r->v = FIA_V_HARNESS_ERROR;
            goto done;
        }
        r->has_cann = 1;
        if (r->v == FIA_V_PASS && !r->cann.pass)
            r->v = FIA_V_ACCURACY;
        if (!r->cann.pass)
            fia_fail(&r->reason, FIA_OK, "cann-double: kernel / benchmark "
                     "max rel err %.3g (<= 2), mean rel err %.3g (<= 1.2), "
                     "RMSE %.3g (<= 1.2)", r->cann.ratio[0], r->cann.ratio[1],
                     r->cann.ratio[2]);
    }
    /* Elements there were, and none compared: a pass would claim a check
     * that was not made.  (An empty output has nothing to compare: its
     * status was the check.) */
    int64_t total = r->out_cmp.n_total + (r->has_lse ? r->lse_cmp.n_total : 0);
    int64_t compared = r->out_cmp.n_compared +
                       (r->has_lse ? r->lse_cmp.n_compared : 0);
    if (r->v == FIA_V_PASS && total > 0 && compared == 0) {
        r->v = FIA_V_VACUOUS;
        fia_fail(&r->reason, FIA_OK, "nothing compared: all %lld output "
                 "elements are unspecified or outside the tolerance model",
                 (long long)total);
    }
done:
    free(po.data), free(pl.data);
}

/* Computes the reference and compares fast/'s outputs in d with it; sets
 * r->v. */
static void compare_outputs(const fia_case *c, const fia_case_data *d,
                            const fia_check_options *o, fia_check_result *r)
{
    fia_ref_options ro;
    fia_ref_options_default(&ro);
    if (o->precision > 0)
        ro.precision_bits = o->precision;
    ro.pure_mpfr = o->pure_mpfr;
    /* the released code's early return for a call that reads no key */
    ro.released_kv_return = o->profile == FIA_PROFILE_CANN;
    ro.progress = o->ref_progress;
    ro.progress_ctx = o->ref_progress_ctx;
    fia_ref_result ref;
    memset(&ref, 0, sizeof ref);
    fia_error rerr;
    const double t0 = fia_check_cpu_seconds();
    fia_status st = fia_ref_compute(c, d, &ro, &ref, &rerr);
    r->ref_seconds += fia_check_cpu_seconds() - t0;
    if (st != FIA_OK) {
        r->v = FIA_V_HARNESS_ERROR;
        fia_fail(&r->reason, st, "the oracle accepts the case but the "
                 "reference refused it (%d %s): %s", st,
                 fia_status_name(st), rerr.msg);
        fia_ref_result_free(&ref);
        return;
    }
    r->computed = 1;
    r->ref_elements = ref.n_elements;
    r->ref_escalated = ref.n_escalated;
    judge_outputs(c, d, o, &ref, r);
    fia_ref_result_free(&ref);
}

/* An upper estimate of the reference's multiply-adds, from shapes alone
 * and without reading the layout: every output element takes a dot product
 * over the key sequence, whose length is at most the largest middle dim of
 * the key tensor (over by at most N / KV_S when N is the larger one). */
double fia_check_reference_work(const fia_case *c)
{
    fia_tensor out;
    if (fia_case_output(c, FIA_SLOT_ATTENTION_OUT, &out) != FIA_PRESENT)
        return 0.0;
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    if (k->presence != FIA_PRESENT || k->count < 1)
        return 0.0;
    double kv = 1.0;
    for (int i = 1; i + 1 < k->t[0].ndim; i++)
        if ((double)k->t[0].shape[i] > kv)
            kv = (double)k->t[0].shape[i];
    /* the keys a row reads stop at actual_seq_lengths_kv: a case with huge
     * K/V of which few rows take part costs what those rows cost; a paged
     * cache's dims say nothing of a row's keys, the lengths do */
    const fia_int_array_spec *len = &c->arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    if (len->presence == FIA_PRESENT && len->count > 0 && len->values) {
        double longest = 0.0;
        for (int64_t b = 0; b < len->count; b++)
            if ((double)len->values[b] > longest)
                longest = (double)len->values[b];
        longest = longest > 1.0 ? longest : 1.0;
        kv = longest < kv ||
                     c->tensors[FIA_SLOT_BLOCK_TABLE].presence == FIA_PRESENT
                 ? longest : kv;
    }
    /* a shared prefix: every row reads its P keys first (P the length
     * given, within [0, S_p], else S_p; docs/features/prefix.md) */
    const fia_tensor_spec *kp = &c->tensors[FIA_SLOT_KEY_SHARED_PREFIX];
    if (kp->presence == FIA_PRESENT && kp->count >= 1 && kp->t[0].ndim >= 3) {
        const char *l = c->attrs.input_layout;
        const int sa = strcmp(l, "BNSD") == 0 || strcmp(l, "BNSD_BSND") == 0
                           ? 2 : 1;
        double P = (double)kp->t[0].shape[sa];
        const fia_int_array_spec *pl =
            &c->arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN];
        if (pl->presence == FIA_PRESENT && pl->count >= 1 && pl->values)
            P = (double)pl->values[0] < 0 ? 0
                : (double)pl->values[0] < P ? (double)pl->values[0] : P;
        kv += P;
    }
    /* a token layout's lengths are cumulative (but with a paged cache,
     * MLA's, each batch's own, read above): a row reads at most the
     * longest batch's keys */
    if (fia_layout_is_tnd(c->attrs.input_layout) &&
        c->tensors[FIA_SLOT_BLOCK_TABLE].presence != FIA_PRESENT &&
        len->presence == FIA_PRESENT && len->count > 0 && len->values) {
        kv = 1.0;
        for (int64_t b = 0; b < len->count; b++) {
            double l = (double)(len->values[b] - (b ? len->values[b - 1] : 0));
            kv = l > kv ? l : kv;
        }
    }
    double n = 1.0;
    for (int i = 0; i < out.ndim; i++)
        n *= (double)out.shape[i];
    return 2.0 * n * kv;
}

/* The case model's own limit (docs/case-format.md): a tensor has a
 * non-negative element count that fits int64 (the parser refuses others; a
 * case built in memory, e.g. by a fuzz decoder, is checked here).  No
 * tensor that large can exist, so no operator behaviour is asked. */
static fia_status check_shapes(const fia_case *c, fia_error *err)
{
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        const fia_tensor_spec *sp = &c->tensors[s];
        for (int i = 0; sp->t != NULL && i < sp->count; i++)
            if (fia_tensor_numel(&sp->t[i]) < 0)
                return fia_fail(err, FIA_ERR_BAD_INPUT, "bad shape: %s%s "
                                "element count is negative or overflows "
                                "int64", fia_slot_name((fia_slot)s),
                                sp->count > 1 ? " (a list entry)" : "");
    }
    return FIA_OK;
}

/* The oracle's verdict, and whether the case can be computed within the
 * work limit: FIA_OK, or the reason it cannot be checked (r->reason). */
static fia_status evaluate(const fia_case *c, const fia_check_options *o,
                           fia_check_result *r, int *compute)
{
    fia_error err;
    if (check_shapes(c, &r->reason) != FIA_OK)
        return r->reason.code;
    if (fia_oracle_evaluate(c, o->profile, &r->ov, &err) != FIA_OK)
        return fia_fail(&r->reason, err.code, "the oracle cannot evaluate "
                        "this case: %s", err.msg);
    r->evaluated = 1;
    *compute = !o->status_only && r->ov.accept;
    double work = *compute ? fia_check_reference_work(c) : 0.0;
    double max_work = o->max_ref_work > 0 ? o->max_ref_work
                                          : FIA_CHECK_MAX_REF_WORK;
    if (work > max_work)
        return fia_fail(&r->reason, FIA_ERR_BAD_INPUT, "too large to compute "
                        "with the reference: about %.3g multiply-adds (limit "
                        "%.3g); check its status with --status-only or raise "
                        "--max-work", work, max_work);
    return FIA_OK;
}

/* The outputs as a device hands them over: not zeros (a kernel that skips
 * rows it must write would pass wherever the documented value is 0) but a
 * NaN of a pattern no arithmetic makes; an int8 output gets a fixed byte.
 * Every element the documents define must then be written by the system;
 * the ones they leave unspecified are not compared. */
static void poison_outputs(fia_case_data *d)
{
    static const fia_slot outs[] = {FIA_SLOT_ATTENTION_OUT,
                                    FIA_SLOT_SOFTMAX_LSE};
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        fia_tensor *t = d->t[outs[k]];
        int64_t n = t != NULL && t->data != NULL ? fia_tensor_numel(t) : 0;
        for (int64_t i = 0; i < n; i++)
            switch (t->dtype) {
            case FIA_DT_FP16:
                ((uint16_t *)t->data)[i] = 0x7e5a;
                break;
            case FIA_DT_BF16:
                ((uint16_t *)t->data)[i] = 0x7fa5;
                break;
            case FIA_DT_FP32: {
                const uint32_t nan = 0x7fc05a5au;
                memcpy((uint32_t *)t->data + i, &nan, 4);
                break;
            }
            case FIA_DT_INT8:
                ((int8_t *)t->data)[i] = 0x5a;
                break;
            default:
                i = n; /* no output of another dtype */
                break;
            }
    }
}

/* The verdict once fast/ has answered: not modeled (both refuse the call
 * as not modeled), a status mismatch, or (accepted as expected) the
 * comparison of its outputs. */
static void judge_call(const fia_case *c, const fia_case_data *d,
                       const fia_check_options *o, int compute,
                       fia_check_result *r)
{
    const fia_sut *sut = fia_sut_current();
    if (r->fast_status == FIA_ERR_SUT_CRASH ||
        r->fast_status == FIA_ERR_SUT_TIMEOUT) {
        /* no answer at all: a finding whatever the rules expected */
        r->v = r->fast_status == FIA_ERR_SUT_CRASH ? FIA_V_CRASH
                                                   : FIA_V_TIMEOUT;
        fia_fail(&r->reason, r->fast_status, "%s", r->fast_error.msg);
        return;
    }
    if (r->fast_status == FIA_ERR_NOT_MODELED && fia_sut_exec_refused()) {
        /* the call never reached the worker (too large to send) */
        r->v = FIA_V_NOT_MODELED;
        fia_fail(&r->reason, FIA_ERR_NOT_MODELED, "not judged: %s",
                 r->fast_error.msg);
        return;
    }
    if (!(sut->validates & FIA_SUT_CHECKS_STATUS) && r->fast_status != FIA_OK) {
        /* a numbers-only system refusing a valid call: not a finding, a
         * call it does not cover */
        r->v = FIA_V_NOT_MODELED;
        fia_fail(&r->reason, FIA_ERR_NOT_MODELED, "not covered by %s: %d %s"
                 "%s%.300s", sut->name, r->fast_status,
                 fia_status_name(r->fast_status),
                 r->fast_error.msg[0] ? ": " : "", r->fast_error.msg);
        return;
    }
    /* A not-modeled verdict is a status too: fast/ must refuse the same
     * call as not modeled, or the disagreement would hide behind it. */
    if (r->ov.not_modeled && r->fast_status == FIA_ERR_NOT_MODELED) {
        const fia_rule *nm = NULL;
        for (int i = 0; i < r->ov.n_fired && nm == NULL; i++)
            if (r->ov.fired[i]->kind == FIA_RULE_NOT_MODELED)
                nm = r->ov.fired[i];
        r->v = FIA_V_NOT_MODELED;
        fia_fail(&r->reason, FIA_ERR_NOT_MODELED, "not modeled yet: %s %s",
                 nm ? nm->id : "?", nm ? nm->summary : "");
    } else if (r->fast_status != r->ov.expected) {
        r->v = FIA_V_STATUS_MISMATCH;
        fia_fail(&r->reason,
                 r->fast_status != FIA_OK ? r->fast_status : r->ov.expected,
                 "expected %d %s, %s returned %d %s%s%s", r->ov.expected,
                 fia_status_name(r->ov.expected), sut->name, r->fast_status,
                 fia_status_name(r->fast_status),
                 r->fast_error.msg[0] ? ": " : "", r->fast_error.msg);
    } else if (compute) {
        compare_outputs(c, d, o, r);
    } else {
        r->v = FIA_V_PASS;
    }
}

/* Clears *r but the oracle verdict's lists, valid up to their counts (they
 * are sized for the whole catalogue: most of the result's bytes). */
static void clear_result(fia_check_result *r)
{
    char *p = (char *)r, *ov = (char *)&r->ov, *end = p + sizeof *r;
    memset(p, 0, (size_t)(ov - p));
    memset(ov + sizeof r->ov, 0, (size_t)(end - (ov + sizeof r->ov)));
    r->ov.accept = r->ov.not_modeled = 0;
    r->ov.expected = FIA_OK;
    r->ov.n_fired = r->ov.n_normalized = r->ov.n_obeyed = 0;
}

/* The intents, and the verdict intent-unmet when one is not met and the
 * case would otherwise not fail (a finding says more). */
static void judge_intents(const fia_case *c, const fia_case_data *d,
                          const char *not_read, fia_check_result *r)
{
    fia_check_intents(c, d, not_read, r);
    if (r->v != FIA_V_PASS && r->v != FIA_V_VACUOUS &&
        r->v != FIA_V_NOT_MODELED)
        return;
    char msg[sizeof r->reason.msg] = "";
    for (int i = 0; i < r->n_intents; i++) {
        const fia_intent_result *ir = &r->intents[i];
        if (ir->met == 0)
            snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s: %s",
                     msg[0] ? "; " : "", fia_intent_name(ir->intent),
                     ir->found);
    }
    if (msg[0]) {
        r->v = FIA_V_INTENT_UNMET;
        fia_fail(&r->reason, FIA_OK, "%s", msg);
    }
}

void fia_check_result_release(fia_check_result *r)
{
    free(r->out_fail);
    free(r->lse_fail);
    r->out_fail = r->lse_fail = NULL;
}

void fia_check_case(const fia_case *c, const fia_check_options *o,
                    fia_check_result *r)
{
    fia_error err;
    int compute = 0;
    clear_result(r);
    if (evaluate(c, o, r, &compute) != FIA_OK) {
        r->v = FIA_V_BAD_INPUT;
        return;
    }
    fia_case_data d;
    if (fia_case_materialize(c, compute, &d, &err) != 0) {
        r->v = FIA_V_BAD_INPUT;
        fia_fail(&r->reason, err.code, "%.255s%s", err.msg,
                 compute ? " (use --status-only to check its status alone)"
                         : "");
        return;
    }
    if (fia_sut_check_settings(c, &err) != FIA_OK) {
        r->v = FIA_V_BAD_INPUT;
        fia_fail(&r->reason, FIA_ERR_BAD_INPUT, "%s", err.msg);
        fia_case_data_free(&d);
        return;
    }
    const fia_sut *sut = fia_sut_current();
    if (!(sut->validates & FIA_SUT_CHECKS_STATUS) && !r->ov.accept) {
        /* a numbers-only system is asked only what the rules accept */
        r->v = FIA_V_NOT_MODELED;
        fia_fail(&r->reason, FIA_ERR_NOT_MODELED, "not judged: %s checks "
                 "numbers only and the rules %s this call (%s %d)",
                 sut->name, r->ov.not_modeled ? "do not model" : "reject",
                 fia_status_name(r->ov.expected), r->ov.expected);
        judge_intents(c, NULL, "not judged", r);
        fia_case_data_free(&d);
        return;
    }
    if (c->product != FIA_PRODUCT_ATLAS_A2 &&
        FIA_SUT_ABI_MINOR(sut->abi_version) < 1) {
        /* ABI 1.0 has no product field: the system would answer for
         * another device than the case's */
        r->v = FIA_V_NOT_MODELED;
        fia_fail(&r->reason, FIA_ERR_NOT_MODELED, "not judged: %s is built "
                 "against ABI 1.0, which cannot name the product %s",
                 sut->name, fia_product_name(c->product));
        judge_intents(c, NULL, "not judged", r);
        fia_case_data_free(&d);
        return;
    }
    if (compute)
        poison_outputs(&d);
    fia_profile fp = o->fast_profile_set ? o->fast_profile : o->profile;
    const double t0 = fia_check_cpu_seconds();
    r->fast_status = fia_call_sut(c, &d, fp, compute, &r->fast_error);
    r->sut_seconds += fia_check_cpu_seconds() - t0;
    r->fast_called = 1;
    char why[sizeof r->reason.msg];
    if (compute && r->ov.accept &&
        fia_check_paged_ids_unspecified(c, &d, why, sizeof why)) {
        /* any status, any output: nothing to judge */
        r->v = FIA_V_VACUOUS;
        fia_fail(&r->reason, FIA_OK, "%.200s; %s returned %d %s", why,
                 sut->name, r->fast_status, fia_status_name(r->fast_status));
    } else {
        judge_call(c, &d, o, compute, r);
    }
    judge_intents(c, compute ? &d : NULL, "--status-only computes nothing",
                  r);
    fia_case_data_free(&d);
}
