/* The product in fuzz/ (gen_product.c): fuzz_params moves some calls to
 * 001's interface and the inference card, and the rules judge them: every
 * PROD rule fires on some generated call, as the only rule for some (a
 * campaign can tell it apart), and some card calls are accepted; strict
 * inputs and fuzz_numeric move only calls the card takes (no PROD rule
 * fires on a numeric case, and every one is accepted).  The cases are read back and judged by the
 * rules, not run. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/oracle.h"
#include "fuzz/bytes.h"
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz_testlib.h"

enum { NPROD = 7 };

static int prod_index(const fia_rule *r)
{
    if (strncmp(r->id, "PROD-00", 7) != 0)
        return -1;
    int k = r->id[7] - '1';
    return k >= 0 && k < NPROD ? k : -1;
}

static void test_params(void)
{
    fuzz_rng r = {3301};
    static uint8_t buf[2048];
    int n = 0, accepted = 0, fired[NPROD] = {0}, alone[NPROD] = {0};
    int b_own = 0; /* PROD-006 without LAYOUT-020: 256 < B <= 65535 */
    for (int it = 0; it < check_draws(40000); it++) {
        size_t len = ftl_random_input(&r, buf, 32, sizeof buf);
        fia_case c;
        if (fuzz_decode_params(buf, len, &c) != FIA_OK ||
            c.product != FIA_PRODUCT_INFERENCE_CARD) {
            fia_case_free(&c);
            continue;
        }
        n++;
        CHECK_EQ_INT(c.api, FIA_API_INCRE_FLASH_ATTENTION);
        fia_oracle_verdict v;
        fia_error err;
        if (fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, &err) == FIA_OK) {
            accepted += v.accept;
            for (int i = 0; i < v.n_fired; i++) {
                int k = prod_index(v.fired[i]);
                if (k >= 0) {
                    fired[k]++;
                    alone[k] += v.n_fired == 1;
                }
                if (k == 5) {
                    int a2 = 0;
                    for (int j = 0; j < v.n_fired; j++)
                        a2 |= strcmp(v.fired[j]->id, "LAYOUT-020") == 0;
                    b_own += !a2;
                }
            }
        }
        fia_case_free(&c);
    }
    fprintf(stderr, "params: %d calls on the card, %d accepted; PROD-001.."
            "007 fired %d %d %d %d %d %d %d (alone %d %d %d %d %d %d %d)\n",
            n, accepted, fired[0], fired[1], fired[2], fired[3], fired[4],
            fired[5], fired[6], alone[0], alone[1], alone[2], alone[3],
            alone[4], alone[5], alone[6]);
    CHECK_COUNT(n >= 300);
    CHECK_COUNT(accepted > 0);
    for (int k = 0; k < NPROD; k++)
        CHECK_COUNT_MSG(fired[k] > 0, "PROD-00%d never fired", k + 1);
    /* PROD-002's bf16 value always comes with another dtype rule (a bf16
     * query or a key/value mismatch): alone it cannot fire */
    for (int k = 0; k < NPROD; k++)
        if (k != 1)
            CHECK_COUNT_MSG(alone[k] > 0, "PROD-00%d never alone", k + 1);
    CHECK_COUNT_MSG(b_own > 0, "PROD-006 never fired for 256 < B <= 65535");
}

static void test_numeric(void)
{
    fuzz_rng r = {3302};
    static uint8_t buf[2048];
    int n = 0, bad = 0, refused = 0;
    for (int it = 0; it < check_draws(40000); it++) {
        size_t len = ftl_random_input(&r, buf, 64, sizeof buf);
        fia_case c;
        if (fuzz_decode_numeric(buf, len, &c) != FIA_OK ||
            c.product != FIA_PRODUCT_INFERENCE_CARD) {
            fia_case_free(&c);
            continue;
        }
        n++;
        fia_oracle_verdict v;
        fia_error err;
        if (fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, &err) == FIA_OK) {
            for (int i = 0; i < v.n_fired; i++)
                bad += prod_index(v.fired[i]) >= 0;
            refused += !v.accept && !v.not_modeled;
        }
        fia_case_free(&c);
    }
    fprintf(stderr, "numeric: %d cases on the card, %d PROD rules fired\n",
            n, bad);
    CHECK_COUNT(n >= 100);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(refused, 0);
}

int main(void)
{
    test_params();
    test_numeric();
    return check_summary();
}
