/* A bucket's worst case kept in its generator form (fuzz/worst_text.c)
 * regenerates the very case it stands for: byte for byte the full text the
 * store kept before, the same digest, the same verdict and errors; a
 * damaged or foreign form is refused with a reason, never turned into
 * another case. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fuzz/fuzz.h"
#include "test_rng.h"

#define INPUT_BYTES 256

/* The k-th input: SplitMix64 bytes, as a survey draws them. */
static void input_of(uint64_t k, uint8_t *buf, size_t n)
{
    uint64_t x = 0x5eed0000u + k;
    for (size_t i = 0; i < n; i += 8) {
        const uint64_t z = test_splitmix64(&x);
        for (size_t j = 0; j < 8 && i + j < n; j++)
            buf[i + j] = (uint8_t)(z >> (8 * j));
    }
}

/* text with the first occurrence of what replaced by with (malloc'ed). */
static char *replaced(const char *text, const char *what, const char *with)
{
    const char *p = strstr(text, what);
    if (p == NULL)
        return NULL;
    size_t n = strlen(text) - strlen(what) + strlen(with) + 1;
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, "%.*s%s%s", (int)(p - text), text, with,
                 p + strlen(what));
    return out;
}

static void refused(const char *text, const char *why_part)
{
    char *full = NULL;
    fia_error err = {0};
    CHECK(text != NULL);
    if (text == NULL)
        return;
    CHECK_EQ_INT(fuzz_worst_full_text(text, &full, &err), FIA_ERR_BAD_INPUT);
    CHECK(full == NULL);
    CHECK_MSG(strstr(err.msg, why_part) != NULL, "'%s' lacks '%s'", err.msg,
              why_part);
    free(full);
}

/* The same judgement of both cases: verdict and every error figure. */
static void same_outputs(const fia_case *a, const fia_case *b)
{
    fia_check_options o;
    fia_check_options_default(&o);
    fia_check_result ra, rb;
    fia_check_case(a, &o, &ra);
    fia_check_case(b, &o, &rb);
    CHECK_EQ_INT(ra.v, rb.v);
    CHECK_EQ_INT(ra.computed, rb.computed);
    CHECK(memcmp(&ra.out_cmp.max_ulp, &rb.out_cmp.max_ulp, sizeof(double)) == 0);
    CHECK(memcmp(&ra.out_cmp.max_ratio, &rb.out_cmp.max_ratio,
                 sizeof(double)) == 0);
    CHECK(memcmp(&ra.out_cmp.max_rel_err, &rb.out_cmp.max_rel_err,
                 sizeof(double)) == 0);
    fia_check_result_release(&ra);
    fia_check_result_release(&rb);
}

/* One input: its generator form regenerates it; judged when judge. */
static int round_trip(uint64_t k, int judge)
{
    uint8_t in[INPUT_BYTES];
    input_of(k, in, sizeof in);
    fia_case c;
    fia_case_init(&c);
    if (fuzz_decode_numeric(in, sizeof in, &c) != FIA_OK) {
        fia_case_free(&c);
        return 0;
    }
    char bucket[200];
    fuzz_bucket(&c, bucket, sizeof bucket);
    char *gen = fuzz_worst_generator_text(&c, "doc", bucket, in, sizeof in);
    char *old = fuzz_finding_text(&c, FUZZ_NUMERIC, "doc", "accuracy-worst",
                                  bucket, NULL);
    CHECK(gen != NULL && old != NULL);
    if (gen == NULL || old == NULL) {
        free(gen), free(old), fia_case_free(&c);
        return 0;
    }
    CHECK(fuzz_worst_is_generator(gen));
    CHECK(!fuzz_worst_is_generator(old));
    CHECK_MSG(strlen(gen) < 2 * INPUT_BYTES + 1024, "%zu bytes", strlen(gen));

    char *full = NULL;
    fia_error err = {0};
    CHECK_EQ_INT(fuzz_worst_full_text(gen, &full, &err), FIA_OK);
    CHECK_MSG(full != NULL && strcmp(full, old) == 0,
              "input %llu: the regenerated text differs from the full one",
              (unsigned long long)k);
    /* read back as repro reads it: the same case, digest and outputs (the
     * digest covers the case's name: read back under the decoder's) */
    fia_case back;
    fia_case_init(&back);
    CHECK(full != NULL &&
          fia_case_parse_string(full, c.name, &back, &err) == FIA_OK);
    char d1[FIA_CASE_DIGEST_LEN], d2[FIA_CASE_DIGEST_LEN];
    CHECK(fia_case_digest(&c, d1) == FIA_OK &&
          fia_case_digest(&back, d2) == FIA_OK && strcmp(d1, d2) == 0);
    CHECK(strstr(gen, d1) != NULL); /* the digest it is checked against */
    CHECK(fia_case_equal(&c, &back));
    if (judge)
        same_outputs(&c, &back);
    fia_case_free(&back);
    free(full);

    /* a full text passes through as it is */
    CHECK_EQ_INT(fuzz_worst_full_text(old, &full, &err), FIA_OK);
    CHECK(full != NULL && strcmp(full, old) == 0);
    free(full);

    /* damage is refused, never regenerated into another case */
    char *p = replaced(gen, d1, "0123456789abcdef");
    refused(p, "decodes to another case");
    free(p);
    p = replaced(gen, "-input: ", "-input: zz");
    refused(p, "not hex");
    free(p);
    p = replaced(gen, "-input: ", "-input: a");
    refused(p, "1 to");
    free(p);
    p = replaced(gen, "-digest: ", "-digest: x");
    refused(p, "digest");
    free(p);
    p = replaced(gen, "# fiacheck-generator: fuzz_numeric",
                 "# fiacheck-generator: fuzz_params");
    refused(p, "unknown");
    free(p);
    /* another input does not stand for this case */
    uint8_t other[INPUT_BYTES];
    input_of(k + 1000, other, sizeof other);
    char *wrong = fuzz_worst_generator_text(&c, "doc", bucket, other,
                                            sizeof other);
    CHECK(wrong == NULL);
    free(wrong);
    free(gen);
    free(old);
    fia_case_free(&c);
    return 1;
}

int main(void)
{
    int n = 0;
    for (uint64_t k = 0; k < 40; k++)
        n += round_trip(k, k < 6);
    CHECK_MSG(n >= 30, "only %d of 40 inputs decoded", n);

    /* a survey's --only focus is part of the form, and the process's focus
     * is left as it was */
    CHECK(fuzz_numeric_focus("int8kv"));
    uint8_t in[INPUT_BYTES];
    input_of(7, in, sizeof in);
    fia_case c;
    fia_case_init(&c);
    CHECK(fuzz_decode_numeric(in, sizeof in, &c) == FIA_OK);
    char *gen = fuzz_worst_generator_text(&c, "doc", "b", in, sizeof in);
    CHECK(gen != NULL && strstr(gen, "# fiacheck-generator-focus: int8kv\n"));
    fuzz_numeric_focus(NULL);
    char *full = NULL, *old = fuzz_finding_text(&c, FUZZ_NUMERIC, "doc",
                                                "accuracy-worst", "b", NULL);
    fia_error err = {0};
    CHECK(gen != NULL && fuzz_worst_full_text(gen, &full, &err) == FIA_OK);
    CHECK(full != NULL && old != NULL && strcmp(full, old) == 0);
    CHECK(fuzz_numeric_focus_tag() == NULL);
    free(gen), free(full), free(old);
    fia_case_free(&c);
    return check_summary();
}
