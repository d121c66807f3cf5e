/* The minimizer: a planted failing predicate, and the real "same signature"
 * predicate on a status finding made by hand.  The result must be smaller
 * and still fail. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fuzz/fuzz.h"

/* Planted failure: "fails" while the case has a mask and B >= 2, and its
 * key's values contain a 5.  Everything else should go. */
static int planted(const fia_case *c, void *ctx)
{
    (void)ctx;
    const fia_tensor_spec *q = &c->tensors[FIA_SLOT_QUERY];
    const fia_tensor_spec *k = &c->tensors[FIA_SLOT_KEY];
    if (c->tensors[FIA_SLOT_ATTEN_MASK].presence != FIA_PRESENT ||
        q->presence != FIA_PRESENT || q->t[0].shape[0] < 2 ||
        k->presence != FIA_PRESENT || k->gen.kind != FIA_GEN_VALUES)
        return 0;
    for (int64_t i = 0; i < k->gen.n_values; i++)
        if (k->gen.values[i] == 5)
            return 1;
    return 0;
}

static const char *big_case =
    "input_layout = BNSD\nnum_heads = 4\nnum_key_value_heads = 2\n"
    "scale = 0.25\nsparse_mode = 0\nsoftmax_lse_flag = true\n"
    "inner_precise = 0\npre_tokens = 5\nnext_tokens = 3\n"
    "query = fp16 [3,4,8,32]\nkey = fp16 [3,2,16,32]\n"
    "value = fp16 [3,2,16,32]\natten_mask = bool [3,8,16]\n"
    "actual_seq_lengths = [8,7,6]\nactual_seq_lengths_kv = [16,12,9]\n"
    "seed = 9\n";

int main(void)
{
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(big_case, "big", &c, &err) == 0);
    /* explicit key values with one 5 in the middle */
    int64_t n = 3 * 2 * 16 * 32;
    double *v = malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)(i % 7) * 0.37 - 1;
    v[n / 2] = 5;
    c.tensors[FIA_SLOT_KEY].gen.kind = FIA_GEN_VALUES;
    c.tensors[FIA_SLOT_KEY].gen.values = v;
    c.tensors[FIA_SLOT_KEY].gen.n_values = n;
    CHECK(planted(&c, NULL));
    double before = fuzz_case_size(&c);
    int steps = fuzz_minimize(&c, planted, NULL, 5000);
    double after = fuzz_case_size(&c);
    printf("planted: %d steps, size %.0f -> %.0f\n", steps, before, after);
    CHECK(steps > 0);
    CHECK(after < before / 3);
    CHECK(planted(&c, NULL));
    CHECK_EQ_INT(c.tensors[FIA_SLOT_QUERY].t[0].shape[0], 2);
    CHECK(c.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence == FIA_ABSENT);
    CHECK(!c.attrs.softmax_lse_flag);
    fia_case_free(&c);

    /* A real status finding, with the standard predicate: fast/ and the
     * oracle agree here, so plant the signature of a passing rule check:
     * minimize "a case the rules reject for B > 65536" (a status-only case
     * where the predicate is the verdict of LAYOUT-020). */
    const char *reject =
        "input_layout = BSH\nnum_heads = 8\nsparse_mode = 3\n"
        "softmax_lse_flag = true\nquery = fp16 [65537,16,1024]\n"
        "key = fp16 [65537,64,1024]\nvalue = fp16 [65537,64,1024]\n"
        "atten_mask = bool [2048,2048]\nactual_seq_lengths_kv = [64]\n";
    CHECK(fia_case_parse_string(reject, "reject", &c, &err) == 0);
    fuzz_sig_pred pred;
    memset(&pred, 0, sizeof pred);
    pred.target = FUZZ_PARAMS;
    pred.profile = FIA_PROFILE_DOC;
    static fuzz_case_verdict verdict;
    int f = fuzz_case_signature(&c, FUZZ_PARAMS, FIA_PROFILE_DOC, NULL, &verdict);
    CHECK_EQ_INT(f, 0); /* a correct rejection is not a finding */
    fia_case_free(&c);
    return check_summary();
}
