/* ref/: public entry points (include/fia/ref.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ref_internal.h"

void fia_ref_options_default(fia_ref_options *o)
{
    o->precision_bits = 128;
    o->pure_mpfr = 0;
}

void fia_ref_result_free(fia_ref_result *r)
{
    if (!r)
        return;
    free(r->out.data);
    free(r->out_exact);
    free(r->out_unspecified);
    free(r->out_bound);
    free(r->lse_bound);
    free(r->lse.data);
    free(r->lse_exact);
    free(r->lse_unspecified);
    r->out.data = r->lse.data = NULL;
    r->out_exact = r->lse_exact = NULL;
    r->out_unspecified = r->lse_unspecified = NULL;
    r->out_bound = r->lse_bound = NULL;
    r->out_numel = r->lse_numel = 0;
    r->has_lse = 0;
}

/* Output buffers; unspecified starts at 1 so that nothing is compared that
 * the computation did not write. */
static int alloc_result(const ref_problem *p, fia_ref_result *r)
{
    r->out = *p->out_t;
    r->out.data = NULL;
    r->out_numel = fia_tensor_numel(p->out_t);
    size_t n = (size_t)(r->out_numel > 0 ? r->out_numel : 0);
    if (n > 0) {
        r->out.data = calloc(n, sizeof(uint16_t));
        r->out_exact = calloc(n, sizeof(double));
        r->out_unspecified = malloc(n);
        r->out_bound = calloc(n, sizeof(double));
        if (!r->out.data || !r->out_exact || !r->out_unspecified ||
            !r->out_bound)
            return -1;
        memset(r->out_unspecified, 1, n);
    }
    if (!p->has_lse)
        return 0;
    r->has_lse = 1;
    memset(&r->lse, 0, sizeof r->lse);
    r->lse.dtype = FIA_DT_FP32;
    r->lse.ndim = p->lse_ndim;
    memcpy(r->lse.shape, p->lse_shape, sizeof r->lse.shape);
    r->lse_numel = fia_tensor_numel(&r->lse);
    size_t m = (size_t)(r->lse_numel > 0 ? r->lse_numel : 0);
    if (m > 0) {
        r->lse.data = calloc(m, sizeof(uint32_t));
        r->lse_exact = calloc(m, sizeof(double));
        r->lse_unspecified = malloc(m);
        r->lse_bound = calloc(m, sizeof(double));
        if (!r->lse.data || !r->lse_exact || !r->lse_unspecified ||
            !r->lse_bound)
            return -1;
        memset(r->lse_unspecified, 1, m);
    }
    return 0;
}

fia_status fia_ref_compute(const fia_case *c, const fia_case_data *d,
                           const fia_ref_options *opt, fia_ref_result *r)
{
    if (!r)
        return FIA_ERR_PARAM_INVALID;
    memset(r, 0, sizeof *r);
    fia_ref_options def;
    if (!opt) {
        fia_ref_options_default(&def);
        opt = &def;
    }
    long prec = opt->precision_bits < 64 ? 64 : opt->precision_bits;
    if (prec > 4096)
        prec = 4096;
    ref_problem p;
    fia_status st = ref_problem_init(&p, c, d, r->error, sizeof r->error);
    if (st != FIA_OK)
        return st;
    if (alloc_result(&p, r) != 0) {
        st = FIA_ERR_NOMEM;
        snprintf(r->error, sizeof r->error, "out of memory (result)");
    } else if (!p.empty_query) {
        st = ref_attention_run(&p, prec, opt->pure_mpfr, r, r->error,
                               sizeof r->error);
    }
    ref_problem_free(&p);
    if (st != FIA_OK) {
        char msg[sizeof r->error];
        memcpy(msg, r->error, sizeof msg);
        fia_ref_result_free(r);
        memcpy(r->error, msg, sizeof msg);
    }
    return st;
}
