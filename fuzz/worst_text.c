/* A bucket's worst case as the store keeps it (fuzz/fuzz.h "worst cases in
 * their generator form").
 *
 * fuzz_numeric writes most of its data as explicit values (the
 * distributions that break kernels have no generator in the case format),
 * so a worst case printed whole is every value in 17 digits: 186 KB on
 * average, up to megabytes, thousands per campaign.  The decoder makes the
 * same case from the same input bytes, a few hundred of them, so those are
 * what is stored, with the case's digest: decoding them again must give a
 * case of that digest, or the text is refused rather than a different case
 * passed off as the worst one.  The decoder reads the machine (which
 * kernel levels fast/ has) and its own revision: a generator form
 * regenerates on a build of the decoder it was made with, on a machine
 * with the same levels. */
#include <stdlib.h>
#include <string.h>
#include "fuzz/fuzz.h"

/* Inputs larger than this are stored as full text (libFuzzer's default
 * -max_len is 4096; a survey's inputs are 256 bytes). */
#define WORST_MAX_INPUT (64 * 1024)

static const char gen_key[] = "# fiacheck-generator";

/* The case fuzz_numeric decodes from input under focus (NULL: none),
 * the process's focus put back after.  FIA_OK or the decoder's error. */
static fia_status decode_under(const char *focus, const uint8_t *input,
                               size_t n, fia_case *c)
{
    const char *was = fuzz_numeric_focus_tag();
    fuzz_numeric_focus(focus);
    fia_status st = fuzz_decode_numeric(input, n, c);
    fuzz_numeric_focus(was);
    return st;
}

char *fuzz_worst_generator_text(const fia_case *c, const char *profile,
                                const char *bucket, const uint8_t *input,
                                size_t n)
{
    if (input == NULL || n == 0 || n > WORST_MAX_INPUT)
        return NULL;
    char want[FIA_CASE_DIGEST_LEN], got[FIA_CASE_DIGEST_LEN];
    fia_case again;
    fia_case_init(&again);
    const char *focus = fuzz_numeric_focus_tag();
    int same = fia_case_digest(c, want) == FIA_OK &&
               decode_under(focus, input, n, &again) == FIA_OK &&
               fia_case_digest(&again, got) == FIA_OK &&
               strcmp(want, got) == 0 && fia_case_equal(c, &again);
    fia_case_free(&again);
    if (!same)
        return NULL;
    char *head = fuzz_finding_header(FUZZ_NUMERIC, profile, "accuracy-worst",
                                     bucket, NULL);
    size_t hn = head ? strlen(head) : 0;
    size_t len = hn + 2 * n + 512;
    char *out = head ? malloc(len) : NULL;
    if (out == NULL) {
        free(head);
        return NULL;
    }
    int k = snprintf(out, len,
                     "%s# the case is regenerated from the lines below "
                     "(fiacheck db worst prints it whole)\n"
                     "%s: %s\n", head, gen_key, fuzz_target_name(FUZZ_NUMERIC));
    free(head);
    if (focus != NULL)
        k += snprintf(out + k, len - (size_t)k, "%s-focus: %s\n", gen_key,
                      focus);
    k += snprintf(out + k, len - (size_t)k, "%s-input: ", gen_key);
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[k++] = hex[input[i] >> 4];
        out[k++] = hex[input[i] & 15];
    }
    snprintf(out + k, len - (size_t)k, "\n%s-digest: %s\n", gen_key, want);
    return out;
}

int fuzz_worst_is_generator(const char *text)
{
    char v[64];
    fuzz_text_header(text, "generator", v, sizeof v);
    return v[0] != '\0';
}

static int hex_digit(int ch)
{
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* The bytes of the "-input:" line into *buf (malloc'ed). */
static fia_status read_input(const char *text, uint8_t **buf, size_t *n,
                             fia_error *err)
{
    char key[64];
    snprintf(key, sizeof key, "%s-input: ", gen_key);
    const char *p = strstr(text, key);
    if (p == NULL)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "a generator form without its input line");
    p += strlen(key);
    size_t digits = strcspn(p, "\n");
    if (digits == 0 || digits % 2 != 0 || digits / 2 > WORST_MAX_INPUT)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "the generator's input is not 1 to %d bytes in hex",
                        WORST_MAX_INPUT);
    uint8_t *b = malloc(digits / 2);
    if (b == NULL)
        return fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < digits / 2; i++) {
        int hi = hex_digit((unsigned char)p[2 * i]);
        int lo = hex_digit((unsigned char)p[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return fia_fail(err, FIA_ERR_BAD_INPUT,
                            "the generator's input is not hex (at digit %zu)",
                            2 * i + (hi < 0 ? 1 : 2));
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *buf = b, *n = digits / 2;
    return FIA_OK;
}

/* text's "# fiacheck-" header lines but the generator's (and the comment
 * introducing them), then the case c. */
static char *full_of(const char *text, const fia_case *c)
{
    char *body = fia_case_to_string(c);
    if (body == NULL)
        return NULL;
    /* + 2: a last header line without its newline gets one */
    size_t len = strlen(text) + strlen(body) + 2, k = 0;
    char *out = malloc(len);
    for (const char *p = text; out != NULL && *p;) {
        size_t l = strcspn(p, "\n");
        int keep = strncmp(p, "# fiacheck-", 11) == 0 &&
                   strncmp(p, gen_key, strlen(gen_key)) != 0;
        if (keep) {
            memcpy(out + k, p, l);
            k += l;
            out[k++] = '\n';
        }
        p += l + (p[l] == '\n');
    }
    if (out != NULL)
        memcpy(out + k, body, strlen(body) + 1);
    free(body);
    return out;
}

fia_status fuzz_worst_full_text(const char *text, char **out, fia_error *err)
{
    *out = NULL;
    char gen[64], focus[32], want[64];
    fuzz_text_header(text, "generator", gen, sizeof gen);
    if (gen[0] == '\0') {
        *out = strdup(text);
        return *out ? FIA_OK : fia_fail(err, FIA_ERR_NOMEM, "out of memory");
    }
    if (fuzz_target_from_name(gen) != FUZZ_NUMERIC)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "generator '%s' unknown to this build (fuzz_numeric "
                        "is)", gen);
    fuzz_text_header(text, "generator-focus", focus, sizeof focus);
    fuzz_text_header(text, "generator-digest", want, sizeof want);
    if (focus[0] && !fuzz_numeric_focus(focus)) {
        fuzz_numeric_focus(NULL);
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "generator focus '%s' unknown to this build", focus);
    }
    fuzz_numeric_focus(NULL);
    if (strlen(want) != FIA_CASE_DIGEST_LEN - 1)
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "a generator form without its case digest");
    uint8_t *buf = NULL;
    size_t n = 0;
    fia_status st = read_input(text, &buf, &n, err);
    if (st != FIA_OK)
        return st;
    fia_case c;
    fia_case_init(&c);
    char got[FIA_CASE_DIGEST_LEN] = "";
    st = decode_under(focus[0] ? focus : NULL, buf, n, &c);
    free(buf);
    if (st == FIA_OK)
        st = fia_case_digest(&c, got);
    if (st != FIA_OK) {
        fia_case_free(&c);
        return fia_fail(err, st, "regenerating the case: %s",
                        st == FIA_ERR_NOMEM ? "out of memory"
                                            : "the decoder failed");
    }
    if (strcmp(got, want) != 0) {
        fia_case_free(&c);
        return fia_fail(err, FIA_ERR_BAD_INPUT,
                        "the input decodes to another case here (digest %s, "
                        "stored %s): this build's fuzz_numeric decoder, or "
                        "this machine's kernel levels, differ from those "
                        "that stored it; print it with a build of the "
                        "campaign's harness revision (db campaigns)",
                        got, want);
    }
    *out = full_of(text, &c);
    fia_case_free(&c);
    return *out ? FIA_OK : fia_fail(err, FIA_ERR_NOMEM, "out of memory");
}
