/* fuzz/guide.c: a verdict's rule outcomes land in libFuzzer's extra
 * counters (the section __libfuzzer_extra_counters, where the engine
 * reads them): fired, alone (fia_oracle_sole_rule) and obeyed, per
 * profile; clearing empties them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/oracle.h"
#include "fuzz/fuzz_internal.h"

/* the linker's bounds of the section (weak: NULL when nothing is in it) */
extern uint8_t __start___libfuzzer_extra_counters[] __attribute__((weak));
extern uint8_t __stop___libfuzzer_extra_counters[] __attribute__((weak));

static size_t marked_bytes(void)
{
    size_t n = 0;
    for (const uint8_t *p = __start___libfuzzer_extra_counters;
         p != NULL && p < __stop___libfuzzer_extra_counters; p++)
        n += *p != 0;
    return n;
}

static int evaluate(const char *text, fia_profile p, fia_oracle_verdict *v)
{
    fia_case c;
    fia_error err;
    if (fia_case_parse_string(text, "<test>", &c, &err) != FIA_OK)
        return -1;
    int rc = fia_oracle_evaluate(&c, p, v, NULL);
    fia_case_free(&c);
    return rc;
}

/* MASK-003 broken alone: a mask of rank 5 on an otherwise valid prefill */
static const char *broken =
    "input_layout = BNSD\nnum_heads = 2\nscale = 0.5\n"
    "query = fp16 [1,2,16,32]\nkey = fp16 [1,2,32,32]\n"
    "value = fp16 [1,2,32,32]\natten_mask = bool [1,1,1,16,32]\n";
static const char *obeyed =
    "input_layout = BNSD\nnum_heads = 2\nscale = 0.5\n"
    "query = fp16 [1,2,16,32]\nkey = fp16 [1,2,32,32]\n"
    "value = fp16 [1,2,32,32]\natten_mask = bool [16,32]\n";

int main(void)
{
    static fia_oracle_verdict v;
    const fia_rule *mask3 = fia_rule_find("MASK-003");
    CHECK(mask3 != NULL);
    if (mask3 == NULL)
        return check_summary();
    CHECK(__start___libfuzzer_extra_counters != NULL);
    CHECK((size_t)(__stop___libfuzzer_extra_counters -
                   __start___libfuzzer_extra_counters) >=
          2 * FIA_ORACLE_MAX_RULES * FZ_N_OUTCOMES);

    fz_guide_clear();
    CHECK_EQ_INT(marked_bytes(), 0);
    CHECK(evaluate(broken, FIA_PROFILE_DOC, &v) == FIA_OK);
    CHECK(fia_oracle_sole_rule(&v, FIA_PROFILE_DOC) == mask3);
    fz_guide_verdict(&v, FIA_PROFILE_DOC);
    CHECK(fz_guide_marked(FIA_PROFILE_DOC, mask3, FZ_OUTCOME_FIRED));
    CHECK(fz_guide_marked(FIA_PROFILE_DOC, mask3, FZ_OUTCOME_ALONE));
    CHECK(!fz_guide_marked(FIA_PROFILE_DOC, mask3, FZ_OUTCOME_OBEYED));
    /* the other profile's counters are its own */
    CHECK(!fz_guide_marked(FIA_PROFILE_CANN, mask3, FZ_OUTCOME_FIRED));
    /* one mark per fired and obeyed row, and one for the sole rule */
    CHECK_EQ_INT(marked_bytes(), (size_t)(v.n_fired + v.n_normalized +
                                          v.n_obeyed + 1));
    /* out of range asks are no marks */
    CHECK(!fz_guide_marked(FIA_PROFILE_DOC, NULL, FZ_OUTCOME_FIRED));
    CHECK(!fz_guide_marked(FIA_PROFILE_DOC, mask3, FZ_N_OUTCOMES));

    fz_guide_clear();
    CHECK(evaluate(obeyed, FIA_PROFILE_CANN, &v) == FIA_OK);
    CHECK(v.accept);
    fz_guide_verdict(&v, FIA_PROFILE_CANN);
    CHECK(fz_guide_marked(FIA_PROFILE_CANN, mask3, FZ_OUTCOME_OBEYED));
    CHECK(!fz_guide_marked(FIA_PROFILE_CANN, mask3, FZ_OUTCOME_FIRED));
    CHECK(!fz_guide_marked(FIA_PROFILE_CANN, mask3, FZ_OUTCOME_ALONE));
    CHECK(!fz_guide_marked(FIA_PROFILE_DOC, mask3, FZ_OUTCOME_ALONE));
    fz_guide_clear();
    CHECK_EQ_INT(marked_bytes(), 0);
    return check_summary();
}
