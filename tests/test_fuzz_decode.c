/* The fuzz decoders: never crash on random bytes, always give a printable
 * case that parses back to the same case, fuzz_params' validity rate stays
 * within 30-70 %, fuzz_numeric gives cases the rules accept, and every
 * metamorphic transform gives a second form the rules accept. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fuzz/bytes.h"
#include "fuzz/fuzz.h"

static size_t random_input(fuzz_rng *r, uint8_t *buf, size_t cap)
{
    size_t n = (size_t)(fuzz_rng_next(r) % cap);
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)fuzz_rng_next(r);
    return n;
}

/* every tensor of the case has an element count that fits int64 */
static int shapes_fit(const fia_case *c)
{
    for (int s = 0; s < FIA_SLOT_COUNT; s++)
        for (int i = 0; c->tensors[s].t && i < c->tensors[s].count; i++)
            if (fia_tensor_numel(&c->tensors[s].t[i]) < 0)
                return 0;
    return 1;
}

static int round_trips(const fia_case *c)
{
    char *text = fia_case_to_string(c);
    fia_case back;
    fia_error err;
    int ok = text != NULL && fia_case_parse_string(text, "t", &back, &err) == 0;
    if (ok) {
        ok = fia_case_equal(c, &back);
        fia_case_free(&back);
    }
    free(text);
    return ok;
}

int main(void)
{
    fuzz_rng r = {2024};
    uint8_t buf[512];
    int n = 4000, accepted = 0, rt_fail = 0, unfit = 0;
    for (int k = 0; k < n; k++) {
        size_t len = random_input(&r, buf, sizeof buf);
        fia_case c;
        fuzz_decode_params(buf, len, &c);
        fia_oracle_verdict v;
        CHECK(fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) == 0);
        accepted += v.accept;
        unfit += !shapes_fit(&c);
        if (k % 8 == 0 && !round_trips(&c))
            rt_fail++;
        fia_case_free(&c);
    }
    double rate = (double)accepted / n;
    printf("fuzz_params validity rate on random bytes: %.1f %%\n", 100 * rate);
    CHECK_MSG(rate >= 0.30 && rate <= 0.70, "validity %.3f", rate);
    CHECK_EQ_INT(rt_fail, 0);
    CHECK_EQ_INT(unfit, 0);

    /* a case built in memory with a tensor no memory could hold (the
     * parser refuses it): the harness calls it bad input, asks nobody */
    {
        fia_case big;
        fia_error err;
        CHECK(fia_case_parse_string(
                  "query = fp16 [2,1,4,8]\nkey = fp16 [2,1,4,8]\n"
                  "value = fp16 [2,1,4,8]\ninput_layout = BNSD\n"
                  "atten_mask = bool [2,4,4]\nsparse_mode = 0\n",
                  "t", &big, &err) == 0);
        fia_tensor *m = &big.tensors[FIA_SLOT_ATTEN_MASK].t[0];
        m->shape[0] = 65536, m->shape[1] = m->shape[2] = 20971520;
        static fia_check_result cr;
        fia_check_options o;
        fia_check_options_default(&o);
        o.status_only = 1;
        fia_check_case(&big, &o, &cr);
        CHECK_EQ_INT(cr.v, FIA_V_BAD_INPUT);
        CHECK(!cr.evaluated);
        CHECK_MSG(strstr(cr.reason.msg, "atten_mask") != NULL &&
                      strstr(cr.reason.msg, "overflows int64") != NULL,
                  "%s", cr.reason.msg);
        m->shape[1] = m->shape[2] = 4; /* and back: judged again */
        fia_check_case(&big, &o, &cr);
        CHECK(cr.evaluated);
        fia_case_free(&big);
    }

    /* short and empty inputs decode to something sane */
    fia_case c;
    fuzz_decode_params(NULL, 0, &c);
    CHECK(c.tensors[FIA_SLOT_QUERY].presence == FIA_PRESENT);
    fia_case_free(&c);

    int num_ok = 0, nn = 300;
    for (int k = 0; k < nn; k++) {
        size_t len = random_input(&r, buf, sizeof buf);
        fuzz_decode_numeric(buf, len, &c);
        fia_oracle_verdict v;
        fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL);
        num_ok += v.accept;
        if (!v.accept && getenv("FIA_SHOW_REJECTED"))
            printf("rejected by %s: %s\n", v.n_fired ? v.fired[0]->id : "?",
                   fia_case_to_string(&c));
        if (k % 10 == 0)
            CHECK(round_trips(&c));
        fia_case_free(&c);
    }
    printf("fuzz_numeric: %d of %d accepted\n", num_ok, nn);
    CHECK(num_ok >= nn * 97 / 100);

    int applied = 0;
    for (int k = 0; k < 150; k++) {
        char t[64];
        size_t len = random_input(&r, buf, sizeof buf);
        fuzz_decode_metamorphic(buf, len, &c, t, sizeof t);
        fia_case c2;
        if (fuzz_meta_transform(&c, t, &c2, NULL) == FIA_OK) {
            fia_oracle_verdict v;
            fia_oracle_evaluate(&c2, FIA_PROFILE_DOC, &v, NULL);
            CHECK_MSG(v.accept,
                      "transform %s gives a rejected form (%s)", t,
                      v.n_fired ? v.fired[0]->id : "?");
            applied++;
            fia_case_free(&c2);
        }
        fia_case_free(&c);
    }
    printf("metamorphic: %d of 150 transformed\n", applied);
    CHECK(applied >= 140);

    /* the header of a finding's text */
    fuzz_decode_numeric((const uint8_t *)"abc", 3, &c);
    char *text = fuzz_finding_text(&c, FUZZ_METAMORPHIC, "cann", "metamorphic",
                                   "sig|x", "layout=BSH");
    char v[64];
    fuzz_text_header(text, "transform", v, sizeof v);
    CHECK(strcmp(v, "layout=BSH") == 0);
    fuzz_text_header(text, "profile", v, sizeof v);
    CHECK(strcmp(v, "cann") == 0);
    fuzz_text_header(text, "nothing", v, sizeof v);
    CHECK(v[0] == '\0');
    fia_case back;
    fia_error err;
    CHECK(fia_case_parse_string(text, "t", &back, &err) == 0);
    fia_case_free(&back);
    free(text);
    fia_case_free(&c);
    return check_summary();
}
