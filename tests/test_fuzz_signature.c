/* Finding signatures name a bug, not a bucket (fuzz/signature.c): the same
 * failing pattern in different dtypes and layouts gives one signature,
 * different patterns give different ones; regions are named only on
 * evidence. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/compare.h"
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_internal.h"
#include "fuzz/signature.h"

/* B 2, N 4, KV_N 2, Q_S 8, D 40; batch 0 has 100 keys, batch 1 30. */
enum { B = 2, N = 4, KV_N = 2, QS = 8, D = 40 };
static const int64_t q_len[B] = {8, 8}, kv_len[B] = {100, 30};

typedef int (*fails_fn)(int64_t b, int64_t n, int64_t s, int64_t d);

static int f_all(int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)b, (void)n, (void)s, (void)d;
    return 1;
}
static int f_long_rows(int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)n, (void)s;
    return b == 0 && d % 3 != 0; /* not every element of a failing row */
}
static int f_second_group(int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)b, (void)s, (void)d;
    return n >= N / KV_N;
}
static int f_dtail(int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)b, (void)n, (void)s;
    return d >= 32;
}
static int f_one(int64_t b, int64_t n, int64_t s, int64_t d)
{
    return b == 1 && n == 3 && s == 7 && d == 39; /* one element: chance */
}
static int f_none(int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)b, (void)n, (void)s, (void)d;
    return 0;
}

static void pattern(fails_fn f, int code, int lse_too, char *buf, size_t len)
{
    static uint8_t out[B * N * QS * D], lse[B * N * QS];
    memset(lse, 0, sizeof lse);
    for (int64_t b = 0; b < B; b++)
        for (int64_t n = 0; n < N; n++)
            for (int64_t s = 0; s < QS; s++)
                for (int64_t d = 0; d < D; d++) {
                    int64_t row = (b * N + n) * QS + s;
                    out[row * D + d] = f(b, n, s, d) ? (uint8_t)code : 0;
                    if (lse_too && f(b, n, s, d))
                        lse[row] = (uint8_t)code;
                }
    fuzz_fail_view v = {B, N, KV_N, QS, D, q_len, kv_len, out, lse};
    fuzz_fail_pattern(&v, buf, len);
}

static void test_patterns(void)
{
    char a[160], b[160];
    pattern(f_all, FIA_FAIL_FAR, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|spread") == 0, "%s", a);
    pattern(f_all, FIA_FAIL_GROSS, 1, b, sizeof b);
    CHECK_MSG(strcmp(a, b) == 0, "far/gross, lse or not: %s vs %s", a, b);
    pattern(f_all, FIA_FAIL_NEAR, 0, a, sizeof a);
    /* by little or by much: one bug */
    CHECK_MSG(strcmp(a, "prefill|spread") == 0, "%s", a);
    /* finite or NaN (a read of poison or of a stale value): one bug */
    pattern(f_all, FIA_FAIL_NONFINITE, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|spread") == 0, "%s", a);
    pattern(f_long_rows, FIA_FAIL_NONFINITE, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|kv64") == 0, "%s", a);
    pattern(f_long_rows, FIA_FAIL_FAR, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|kv64") == 0, "%s", a);
    pattern(f_second_group, FIA_FAIL_FAR, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|head>g0") == 0, "%s", a);
    pattern(f_dtail, FIA_FAIL_FAR, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|dtail") == 0, "%s", a);
    pattern(f_one, FIA_FAIL_FAR, 0, a, sizeof a); /* no evidence of a region */
    CHECK_MSG(strcmp(a, "prefill|spread") == 0, "%s", a);

    /* lse alone: the same name as the output failing (one bug shows in
     * either tensor from case to case) */
    static uint8_t out[B * N * QS * D], lse[B * N * QS];
    memset(out, 0, sizeof out);
    memset(lse, FIA_FAIL_FAR, sizeof lse);
    fuzz_fail_view v = {B, N, KV_N, QS, D, q_len, kv_len, out, lse};
    fuzz_fail_pattern(&v, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|spread") == 0, "%s", a);
    /* decode path */
    int64_t one[B] = {1, 1};
    fuzz_fail_view dv = {B, N, KV_N, 1, D, one, kv_len, out, lse};
    fuzz_fail_pattern(&dv, a, sizeof a);
    CHECK_MSG(strncmp(a, "decode|", 7) == 0, "%s", a);
    pattern(f_none, FIA_FAIL_FAR, 0, a, sizeof a);
    CHECK_MSG(strcmp(a, "prefill|none") == 0, "%s", a);
}

/* An accuracy result of case text whose attention_out fails where f says
 * (in the case's own output layout), with its signature. */
static void signature_of(const char *text, fails_fn f, char *buf, size_t len)
{
    fia_case c;
    fia_error err;
    buf[0] = '\0';
    CHECK(fia_case_parse_string(text, "sig", &c, &err) == FIA_OK);
    fz_geom g;
    CHECK(fz_geom_of(&c, &g) == 0);
    static fia_check_result r;
    memset(&r, 0, sizeof r);
    r.v = FIA_V_ACCURACY;
    r.computed = 1;
    r.out_fail = calloc((size_t)(g.B * g.N * g.Q_S * g.D), 1);
    fz_layout lo = fz_out_layout(g.layout);
    for (int64_t b = 0; b < g.B; b++)
        for (int64_t n = 0; n < g.N; n++)
            for (int64_t s = 0; s < g.Q_S; s++)
                for (int64_t d = 0; d < g.D; d++)
                    if (f(b, n, s, d))
                        r.out_fail[fz_index(lo, g.B, g.N, g.Q_S, g.D, b, n, s,
                                            d)] = FIA_FAIL_FAR;
    fuzz_signature(&c, &r, FIA_PROFILE_DOC, buf, len);
    fia_check_result_release(&r);
    fia_case_free(&c);
}

static const char *bnsd_fp16 =
    "input_layout = BNSD\nnum_heads = 4\nnum_key_value_heads = 2\n"
    "scale = 0.5\nquery = fp16 [2,4,8,40]\nkey = fp16 [2,2,100,40]\n"
    "value = fp16 [2,2,100,40]\n"
    "actual_seq_lengths_kv = [100, 30]\n";
static const char *bsh_bf16 =
    "input_layout = BSH\nnum_heads = 4\nnum_key_value_heads = 2\n"
    "scale = 0.5\nquery = bf16 [2,8,160]\nkey = bf16 [2,100,80]\n"
    "value = bf16 [2,100,80]\n"
    "actual_seq_lengths_kv = [100, 30]\n";

static void test_across_dtype_layout(void)
{
    fails_fn bugs[] = {f_all, f_long_rows, f_second_group, f_dtail};
    char sig[4][FUZZ_SIGNATURE_LEN];
    for (int i = 0; i < 4; i++) {
        char other[FUZZ_SIGNATURE_LEN];
        signature_of(bnsd_fp16, bugs[i], sig[i], sizeof sig[i]);
        signature_of(bsh_bf16, bugs[i], other, sizeof other);
        CHECK_MSG(strcmp(sig[i], other) == 0, "bug %d: %s vs %s", i, sig[i],
                  other);
        CHECK_MSG(strncmp(sig[i], "accuracy|prefill|", 17) == 0,
                  "%s", sig[i]);
        for (int j = 0; j < i; j++)
            CHECK_MSG(strcmp(sig[i], sig[j]) != 0, "bugs %d and %d: %s", i, j,
                      sig[i]);
    }
}

/* A token layout's failing rows are named as the same rows of the batched
 * layout (not "irregular"): batch 1's rows of TND and of BSND. */
static int f_batch1(int64_t b, int64_t n, int64_t s, int64_t d)
{
    (void)n, (void)s, (void)d;
    return b == 1;
}

static void test_token_layout(void)
{
    static const char *tnd =
        "input_layout = TND\nnum_heads = 4\nnum_key_value_heads = 2\n"
        "query = bf16 [13,4,32]\nkey = bf16 [130,2,32]\n"
        "value = bf16 [130,2,32]\nactual_seq_lengths = [8,13]\n"
        "actual_seq_lengths_kv = [100,130]\n";
    static const char *bsnd =
        "input_layout = BSND\nnum_heads = 4\nnum_key_value_heads = 2\n"
        "query = bf16 [2,8,4,32]\nkey = bf16 [2,100,2,32]\n"
        "value = bf16 [2,100,2,32]\nactual_seq_lengths = [8,5]\n"
        "actual_seq_lengths_kv = [100,30]\n";
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(tnd, "tnd", &c, &err) == FIA_OK);
    static fia_check_result r;
    memset(&r, 0, sizeof r);
    r.v = FIA_V_ACCURACY;
    r.computed = 1;
    r.out_fail = calloc(13 * 4 * 32, 1);
    for (int64_t t = 8; t < 13; t++) /* batch 1: tokens 8..12 */
        memset(r.out_fail + t * 4 * 32, FIA_FAIL_FAR, 4 * 32);
    char a[FUZZ_SIGNATURE_LEN], b[FUZZ_SIGNATURE_LEN];
    fuzz_signature(&c, &r, FIA_PROFILE_DOC, a, sizeof a);
    fia_check_result_release(&r);
    fia_case_free(&c);
    signature_of(bsnd, f_batch1, b, sizeof b);
    CHECK_MSG(strcmp(a, b) == 0 && strcmp(a, "accuracy|prefill|batch>0") == 0,
              "TND %s, BSND %s", a, b);
}

static void test_meta_signature(void)
{
    fia_case c;
    fia_error err;
    CHECK(fia_case_parse_string(bnsd_fp16, "sig", &c, &err) == FIA_OK);
    char a[FUZZ_SIGNATURE_LEN], b[FUZZ_SIGNATURE_LEN];
    fuzz_meta_signature(&c, "layout=BSH", NULL, NULL, a, sizeof a);
    CHECK_MSG(strcmp(a, "metamorphic|phase-two") == 0, "%s", a);
    static uint8_t out[B * N * QS * D], lse[B * N * QS];
    memset(out, FIA_FAIL_NEAR, sizeof out);
    memset(lse, 0, sizeof lse);
    fuzz_meta_signature(&c, "layout=BSND", out, lse, a, sizeof a);
    fuzz_meta_signature(&c, "layout=BSH", out, lse, b, sizeof b);
    CHECK_MSG(strcmp(a, b) == 0 &&
              strcmp(a, "metamorphic|prefill|spread") == 0,
              "%s vs %s", a, b);
    /* another relation showing the same failure: the same name */
    fuzz_meta_signature(&c, "mha", out, lse, b, sizeof b);
    CHECK_MSG(strcmp(a, b) == 0, "layout %s vs mha %s", a, b);
    fia_case_free(&c);
}

/* A status mismatch is named by its rules and statuses, whatever the
 * case's dtype, layout and profile. */
static void test_status_signature(void)
{
    const char *const texts[2] = {bnsd_fp16, bsh_bf16};
    const fia_rule *rule = fia_rule_find("MASK-003");
    CHECK(rule != NULL);
    char sig[2][FUZZ_SIGNATURE_LEN];
    for (int k = 0; k < 2 && rule != NULL; k++) {
        fia_case c;
        fia_error err;
        CHECK(fia_case_parse_string(texts[k], "sig", &c, &err) == FIA_OK);
        static fia_check_result r;
        memset(&r, 0, sizeof r);
        r.v = FIA_V_STATUS_MISMATCH;
        r.ov.n_fired = 1;
        r.ov.fired[0] = rule;
        r.ov.expected = FIA_ERR_PARAM_INVALID;
        r.fast_status = FIA_OK;
        fuzz_signature(&c, &r, k ? FIA_PROFILE_CANN : FIA_PROFILE_DOC, sig[k],
                       sizeof sig[k]);
        fia_case_free(&c);
    }
    CHECK_MSG(strcmp(sig[0], sig[1]) == 0 &&
              strncmp(sig[0], "status-mismatch|MASK-003|", 25) == 0,
              "%s vs %s", sig[0], sig[1]);
}

/* A crash is named by its sanitizer's site: one bug at two ISA levels, one
 * name; the bucket only when the summary says nothing of a source file. */
static void test_crash_site(void)
{
    char a[200], b[200], c[200];
    CHECK(fuzz_crash_site("AddressSanitizer: heap-buffer-overflow /work/x/src/"
                          "fast/kernel/widen_avx2.c:14:21 in fast_widen_avx2",
                          a, sizeof a));
    CHECK(fuzz_crash_site("AddressSanitizer: heap-buffer-overflow /y/fast/"
                          "kernel/widen_avx512.c:14:21 in fast_widen_avx512",
                          b, sizeof b));
    CHECK_MSG(strcmp(a, "heap-buffer-overflow@fast/kernel/widen") == 0, "%s", a);
    CHECK(strcmp(a, b) == 0);
    CHECK(fuzz_crash_site("UndefinedBehaviorSanitizer: undefined-behavior "
                          "/s/ref/read_paged.c:120:5 in", c, sizeof c));
    CHECK_MSG(strcmp(c, "undefined-behavior@ref/read_paged") == 0, "%s", c);
    CHECK(!fuzz_crash_site("AddressSanitizer: SEGV (/lib/libc.so.6+0x1234)",
                           c, sizeof c) && c[0] == '\0');
    CHECK(!fuzz_crash_site("a crash", c, sizeof c));
    CHECK(!fuzz_crash_site(NULL, c, sizeof c));
    /* the finding of an artifact takes it */
    fia_case cs;
    fia_case_init(&cs);
    fuzz_finding fd;
    fuzz_finding_of_artifact(&fd, &cs, "crash", FUZZ_NUMERIC, "doc", "",
                             "art", "AddressSanitizer: heap-use-after-free "
                             "/s/fast/attention.c:3:1 in f");
    CHECK_MSG(strcmp(fd.signature, "crash|fuzz_numeric|heap-use-after-free@"
                     "fast/attention") == 0, "%s", fd.signature);
    fuzz_finding_free(&fd);
    fuzz_finding_of_artifact(&fd, &cs, "crash", FUZZ_NUMERIC, "doc", "",
                             "art", "a crash");
    CHECK(strncmp(fd.signature, "crash|fuzz_numeric|", 19) == 0 &&
          strchr(fd.signature, '@') == NULL);
    fuzz_finding_free(&fd);
    fia_case_free(&cs);
}

/* A plug-in's crash is named by its first frame in the plug-in: its
 * function, else its offset in the .so; a frame of the tree's own code,
 * of the runtime or of libc is not the plug-in's. */
static void test_plugin_frame(void)
{
    const char *so = "/tmp/x/libmine.so";
    char f[200], s[200];
    CHECK(fuzz_plugin_frame("    #0 0x7ff9 in mine_gather /home/u/mine/gather.c"
                            ":53:23", so, f, sizeof f) == 1);
    CHECK_MSG(strcmp(f, "mine_gather") == 0, "%s", f);
    CHECK(fuzz_plugin_frame("    #0 0x7f55 in mine_reduce (/tmp/x/libmine.so+"
                            "0x11ed) (BuildId: 95)", so, f, sizeof f) == 1);
    CHECK_MSG(strcmp(f, "mine_reduce") == 0, "%s", f);
    CHECK(fuzz_plugin_frame("    #1 0x7f55  (/tmp/x/libmine.so+0x1490) "
                            "(BuildId: 95)", so, f, sizeof f) == 1);
    CHECK_MSG(strcmp(f, "libmine.so+0x1490") == 0, "%s", f);
    /* C++: the parameters dropped, a name with spaces kept whole */
    CHECK(fuzz_plugin_frame("    #2 0x7f in void ggml_fa<float>(ggml_params "
                            "const*, int) /s/llama.cpp/ggml/src/ops.cpp:9:2",
                            so, f, sizeof f) == 1);
    CHECK_MSG(strcmp(f, "void ggml_fa<float>") == 0, "%s", f);
    CHECK(fuzz_plugin_frame("    #3 0x55 in fia_call_sut /src/fiacheck/"
                            "harness/sut_call.c:185:10", so, f, sizeof f) == -1);
    CHECK(fuzz_plugin_frame("    #4 0x7f in abort stdlib/./stdlib/abort.c:79:7",
                            so, f, sizeof f) == 0);
    CHECK(fuzz_plugin_frame("    #3 0x7f92  (/lib/x86_64-linux-gnu/libc.so.6+"
                            "0x3c04f)", so, f, sizeof f) == 0);
    CHECK(fuzz_plugin_frame("    #0 0x55 in __asan_memcpy /usr/src/llvm/"
                            "compiler-rt/lib/asan/asan_interceptors.cpp:22",
                            so, f, sizeof f) == 0);
    CHECK(fuzz_plugin_frame("    #0 0x55 in memcpy /usr/include/x86_64-linux-"
                            "gnu/bits/string_fortified.h:29:10", so, f,
                            sizeof f) == 0);
    CHECK(fuzz_plugin_frame("SUMMARY: AddressSanitizer: SEGV", so, f,
                            sizeof f) == 0);
    /* the site a plug-in crash's summary names: two functions, two sites */
    CHECK(fuzz_crash_site("plug-in crash: SEGV at mine_gather; SUMMARY...",
                          s, sizeof s));
    CHECK_MSG(strcmp(s, "SEGV@mine_gather") == 0, "%s", s);
    CHECK(fuzz_crash_site("plug-in crash: deadly-signal at libmine.so+0x14; "
                          "libFuzzer: deadly signal", f, sizeof f));
    CHECK_MSG(strcmp(f, "deadly-signal@libmine.so+0x14") == 0, "%s", f);
}

/* "spread" is no region shown: compatible with any where on the same path,
 * whatever the failing pattern's kind; nothing else is. */
static void test_compatible(void)
{
    static const struct {
        const char *a, *b;
        int want;
    } t[] = {
        {"accuracy|decode|kv64", "accuracy|decode|kv64", 1},
        {"accuracy|decode|kv64", "accuracy|decode|spread", 1},
        {"accuracy|decode|spread", "accuracy|decode|head>g0", 1},
        {"accuracy|decode|kv64", "accuracy|decode|head>g0", 0},
        {"accuracy|decode|spread", "accuracy|prefill|spread", 0},
        {"accuracy|decode|spread", "nan-leak|decode|spread", 1},
        {"accuracy|decode|kv64", "nan-leak|decode|head>g0", 0},
        {"accuracy|decode|kv64", "metamorphic|decode|kv64", 1},
        {"metamorphic|decode|spread", "metamorphic|decode|kv64", 1},
        {"metamorphic|decode|spread", "metamorphic|prefill|spread", 0},
        {"metamorphic|decode|spread", "accuracy|decode|spread", 1},
        {"metamorphic|decode|spread", "accuracy|prefill|spread", 0},
        {"metamorphic|phase-two", "metamorphic|decode|spread", 0},
        {"accuracy|decode|spread", "accuracy|decode|none", 1},
        {"status-mismatch|accept|OK>PARAM_INVALID",
         "status-mismatch|accept|OK>RUNTIME_ERROR", 0},
        {"crash|fuzz_numeric|SEGV@fast/attention", "crash|fuzz_numeric|spread", 0},
        {"spread", "kv64", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        CHECK_MSG(fuzz_signature_compatible(t[i].a, t[i].b) == t[i].want,
                  "%s ~ %s", t[i].a, t[i].b);
        CHECK_MSG(fuzz_signature_compatible(t[i].b, t[i].a) == t[i].want,
                  "%s ~ %s (swapped)", t[i].b, t[i].a);
    }
}

int main(void)
{
    test_compatible();
    test_token_layout();
    test_crash_site();
    test_plugin_frame();
    test_status_signature();
    test_patterns();
    test_across_dtype_layout();
    test_meta_signature();
    return check_summary();
}
