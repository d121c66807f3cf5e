/* Tests of the case model: parse, print, equality, copy (its data:
 * test_case_data.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "case_testlib.h"
#include "test_rng.h"

static const char *example =
    "# GQA prefill with a right-down causal mask\n"
    "input_layout = BNSD\n"
    "num_heads = 8\n"
    "num_key_value_heads = 2\n"
    "scale = 0.125\n"
    "sparse_mode = 3\n"
    "inner_precise = 1\n"
    "softmax_lse_flag = true\n"
    "query = fp16 [2,8,16,64]\n"
    "key = fp16 [2,2,128,64]\n"
    "value = fp16 [2,2,128,64]\n"
    "atten_mask = bool [2048,2048]\n"
    "actual_seq_lengths = [16,7]\n"
    "actual_seq_lengths_kv = [128,100]\n"
    "seed = 42\n"
    "query.gen = uniform(-4,4)\n";

static void test_example(void)
{
    fia_case c;
    CHECK_EQ_INT(parse(example, &c), 0);
    CHECK(strcmp(c.name, "t") == 0);
    CHECK(strcmp(c.attrs.input_layout, "BNSD") == 0);
    CHECK_EQ_INT(c.attrs.num_heads, 8);
    CHECK_EQ_INT(c.attrs.num_key_value_heads, 2);
    CHECK(c.attrs.scale == 0.125);
    CHECK_EQ_INT(c.attrs.sparse_mode, 3);
    CHECK_EQ_INT(c.attrs.inner_precise, 1);
    CHECK(c.attrs.softmax_lse_flag);
    CHECK_EQ_INT(c.attrs.pre_tokens, 2147483647);
    CHECK_EQ_INT(c.attrs.next_tokens, 2147483647);
    CHECK_EQ_INT(c.attrs.block_size, 0);
    CHECK_EQ_INT(c.seed, 42);
    bool given[FIA_ATTR_COUNT] = {
        [FIA_ATTR_INPUT_LAYOUT] = true, [FIA_ATTR_NUM_HEADS] = true,
        [FIA_ATTR_NUM_KEY_VALUE_HEADS] = true, [FIA_ATTR_SCALE] = true,
        [FIA_ATTR_SPARSE_MODE] = true, [FIA_ATTR_INNER_PRECISE] = true,
        [FIA_ATTR_SOFTMAX_LSE_FLAG] = true};
    CHECK(memcmp(c.attr_given, given, sizeof given) == 0);
    const fia_tensor_spec *q = &c.tensors[FIA_SLOT_QUERY];
    CHECK_EQ_INT(q->presence, FIA_PRESENT);
    CHECK_EQ_INT(q->count, 1);
    CHECK(shape_is(&q->t[0], FIA_DT_FP16, 4, 2, 8, 16, 64));
    CHECK(q->t[0].data == NULL);
    CHECK_EQ_INT(q->gen.kind, FIA_GEN_UNIFORM);
    CHECK(q->gen.a == -4 && q->gen.b == 4);
    CHECK(shape_is(&c.tensors[FIA_SLOT_KEY].t[0], FIA_DT_FP16, 4, 2, 2, 128,
                   64));
    CHECK_EQ_INT(c.tensors[FIA_SLOT_KEY].count, 1);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_KEY].gen.kind, FIA_GEN_DEFAULT);
    CHECK(shape_is(&c.tensors[FIA_SLOT_VALUE].t[0], FIA_DT_FP16, 4, 2, 2, 128,
                   64));
    CHECK(shape_is(&c.tensors[FIA_SLOT_ATTEN_MASK].t[0], FIA_DT_BOOL, 2, 2048,
                   2048, 0, 0));
    for (int s = 0; s < FIA_SLOT_COUNT; s++) {
        if (s == FIA_SLOT_QUERY || s == FIA_SLOT_KEY || s == FIA_SLOT_VALUE ||
            s == FIA_SLOT_ATTEN_MASK)
            continue;
        CHECK_MSG(c.tensors[s].presence == FIA_ABSENT, "slot %s",
                  fia_slot_name((fia_slot)s));
    }
    const fia_int_array_spec *a = &c.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS];
    CHECK_EQ_INT(a->presence, FIA_PRESENT);
    CHECK_EQ_INT(a->count, 2);
    CHECK(a->values[0] == 16 && a->values[1] == 7);
    a = &c.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV];
    CHECK(a->count == 2 && a->values[0] == 128 && a->values[1] == 100);
    CHECK_EQ_INT(c.arrays[FIA_ARR_ACTUAL_SHARED_PREFIX_LEN].presence,
                 FIA_ABSENT);

    /* Derived outputs. */
    fia_tensor o;
    CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_ATTENTION_OUT, &o), FIA_PRESENT);
    CHECK(shape_is(&o, FIA_DT_FP16, 4, 2, 8, 16, 64));
    CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_SOFTMAX_LSE, &o), FIA_PRESENT);
    CHECK(shape_is(&o, FIA_DT_FP32, 4, 2, 8, 16, 1));
    CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_QUERY, &o), FIA_PRESENT);
    CHECK(shape_is(&o, FIA_DT_FP16, 4, 2, 8, 16, 64));
    CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_PSE_SHIFT, &o), FIA_ABSENT);
    fia_case_free(&c);
}

static void test_defaults(void)
{
    fia_case c;
    fia_case_init(&c);
    CHECK_EQ_INT(c.attrs.num_heads, 1);
    CHECK(c.attrs.scale == 1.0);
    CHECK_EQ_INT(c.attrs.pre_tokens, 2147483647);
    CHECK_EQ_INT(c.attrs.next_tokens, 2147483647);
    CHECK(strcmp(c.attrs.input_layout, "BSH") == 0);
    CHECK_EQ_INT(c.attrs.inner_precise, 1);
    CHECK_EQ_INT(c.attrs.sparse_mode, 0);
    CHECK(!c.attrs.softmax_lse_flag);
    fia_case_free(&c);

    CHECK_EQ_INT(parse(minimal, &c), 0);
    for (int a = 0; a < FIA_ATTR_COUNT; a++)
        CHECK(!c.attr_given[a]);
    CHECK_EQ_INT(c.seed, 0);
    CHECK_EQ_INT(c.attrs.num_heads, 1);
    CHECK(strcmp(c.attrs.input_layout, "BSH") == 0);
    CHECK_EQ_INT(c.attrs.query_quant_mode, 0);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_ATTENTION_OUT].presence, FIA_ABSENT);
    for (int a = 0; a < FIA_ARR_COUNT; a++)
        CHECK_EQ_INT(c.arrays[a].presence, FIA_ABSENT);
    fia_tensor o;
    CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_ATTENTION_OUT, &o), FIA_PRESENT);
    CHECK(shape_is(&o, FIA_DT_FP16, 3, 1, 2, 8, 0));
    /* softmax_lse_flag false: nullptr. */
    CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_SOFTMAX_LSE, &o), FIA_ABSENT);
    fia_case_free(&c);

    /* Names. */
    CHECK(strcmp(fia_slot_name(FIA_SLOT_DEQUANT_SCALE_QUERY),
                 "dequant_scale_query") == 0);
    CHECK_EQ_INT(fia_slot_from_name("softmax_lse"), FIA_SLOT_SOFTMAX_LSE);
    CHECK_EQ_INT(fia_slot_from_name("nope"), -1);
    CHECK(fia_slot_is_list(FIA_SLOT_KEY) && !fia_slot_is_list(FIA_SLOT_QUERY));
    CHECK(fia_slot_is_output(FIA_SLOT_ATTENTION_OUT) &&
          !fia_slot_is_output(FIA_SLOT_QUERY));
    CHECK(strcmp(fia_array_name(FIA_ARR_ACTUAL_SHARED_PREFIX_LEN),
                 "actual_shared_prefix_len") == 0);
    CHECK(strcmp(fia_attr_name(FIA_ATTR_QUERY_QUANT_MODE),
                 "query_quant_mode") == 0);
}

static void test_syntax_variants(void)
{
    fia_case c;
    const char *t =
        "  query=bf16[ 1 , 2 ,8 ]   # trailing comment\r\n"
        "\n   \t\n# whole-line comment\n"
        "key = bf16 [1,3,8] ; bf16 [1,4,8]\n"
        "value = bf16 [1,3,8]; bf16 [1,4,8]\n"
        "pse_shift = null\n"
        "block_table = int32 []\n"
        "scale = -inf\n"
        "pre_tokens = -9223372036854775808\n"
        "next_tokens = 9223372036854775807\n"
        "input_layout = weird_Layout_9\n"
        "seed = 18446744073709551615\n"
        "actual_seq_lengths = []\n"
        "actual_seq_lengths_kv = null\n"
        "softmax_lse_flag = false\n"
        "atten_mask.gen = causal\n"
        "atten_mask = int8 [4,4]\n";
    CHECK_EQ_INT(parse(t, &c), 0);
    CHECK(shape_is(&c.tensors[FIA_SLOT_QUERY].t[0], FIA_DT_BF16, 3, 1, 2, 8,
                   0));
    CHECK_EQ_INT(c.tensors[FIA_SLOT_KEY].count, 2);
    CHECK(shape_is(&c.tensors[FIA_SLOT_KEY].t[1], FIA_DT_BF16, 3, 1, 4, 8, 0));
    CHECK_EQ_INT(c.tensors[FIA_SLOT_VALUE].count, 2);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_PSE_SHIFT].presence, FIA_NULL);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_BLOCK_TABLE].presence, FIA_PRESENT);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_BLOCK_TABLE].t[0].ndim, 0);
    CHECK(isinf(c.attrs.scale) && c.attrs.scale < 0);
    CHECK(c.attrs.pre_tokens == INT64_MIN);
    CHECK(c.attrs.next_tokens == INT64_MAX);
    CHECK(strcmp(c.attrs.input_layout, "weird_Layout_9") == 0);
    CHECK(c.seed == UINT64_MAX);
    CHECK_EQ_INT(c.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].presence, FIA_PRESENT);
    CHECK_EQ_INT(c.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].count, 0);
    CHECK_EQ_INT(c.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS_KV].presence, FIA_NULL);
    CHECK(!c.attrs.softmax_lse_flag);
    CHECK(c.attr_given[FIA_ATTR_SOFTMAX_LSE_FLAG]);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_ATTEN_MASK].gen.kind, FIA_GEN_CAUSAL);
    fia_case_free(&c);

    CHECK_EQ_INT(parse("query = fp16 [1,1,1]\nkey = fp16 [1,1,1]\n"
                       "value = fp16 [1,1,1]\nscale = 0x1.8p-3\n", &c), 0);
    CHECK(c.attrs.scale == 0.1875);
    fia_case_free(&c);
    CHECK_EQ_INT(parse("query = fp16 [1,1,1]\nkey = fp16 [1,1,1]\n"
                       "value = fp16 [1,1,1]\nscale = nan\n", &c), 0);
    CHECK(isnan(c.attrs.scale));
    fia_case_free(&c);
}

struct err_case {
    const char *extra;     /* appended to the minimal case (lines 4..) */
    int line;
    const char *needle;    /* must occur in the message */
};

static void test_errors(void)
{
    static const struct err_case cases[] = {
        {"foo = 1\n", 4, "foo"},
        {"query.bar = 1\n", 4, "query.bar"},
        {"num_heads = 2\n\nnum_heads = 3\n", 6, "num_heads"},
        {"query = fp16 [1]\n", 4, "query"},
        {"seed = 1\nseed = 2\n", 5, "seed"},
        {"pse_shift = fp17 [1,2]\n", 4, "pse_shift"},
        {"pse_shift = fp16 [1,-2]\n", 4, "pse_shift"},
        {"atten_mask = bool [65536,20971520,20971520]\n", 4, "overflows"},
        {"pse_shift = fp16 [4611686018427387904,4]\n", 4, "overflows"},
        {"pse_shift = fp16 [1,2,3,4,5,6,7,8,9]\n", 4, "pse_shift"},
        {"pse_shift = fp16 [1,2\n", 4, "pse_shift"},
        {"pse_shift = fp16\n", 4, "pse_shift"},
        {"pse_shift = fp16 [1,2] x\n", 4, "pse_shift"},
        {"pse_shift = fp16 [1,2]; fp16 [1]\n", 4, "pse_shift"},
        {"num_heads = abc\n", 4, "num_heads"},
        {"num_heads = 12x\n", 4, "num_heads"},
        {"num_heads = 1.5\n", 4, "num_heads"},
        {"num_heads = 99999999999999999999\n", 4, "out of range"},
        {"sparse_mode = -9223372036854775809\n", 4, "sparse_mode"},
        {"seed = -1\n", 4, "seed"},
        {"seed = 18446744073709551616\n", 4, "out of range"},
        {"scale = 1.0.0\n", 4, "scale"},
        {"softmax_lse_flag = yes\n", 4, "softmax_lse_flag"},
        {"input_layout = BS-H\n", 4, "input_layout"},
        {"input_layout = ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGH\n", 4,
         "input_layout"},
        {"num_heads 8\n", 4, "'='"},
        {"= 8\n", 4, "key"},
        {"num_heads =\n", 4, "num_heads"},
        {"query.gen = gauss(0,1)\n", 4, "query.gen"},
        {"query.gen = normal(0)\n", 4, "query.gen"},
        {"query.gen = normal(0,-1)\n", 4, "query.gen"},
        {"query.gen = uniform(2,1)\n", 4, "query.gen"},
        {"query.gen = random(1.5)\n", 4, "query.gen"},
        {"query.gen = const(1,2)\n", 4, "query.gen"},
        {"query.gen = const(x)\n", 4, "query.gen"},
        {"query.gen = normal(0,1\n", 4, "query.gen"},
        {"query.gen = causal\nquery.values = 1\n", 5, "query"},
        {"query.values = 1,2\n", 4, "query.values"},
        {"query.values = 1,,2\n", 4, "query.values"},
        {"pse_shift.gen = causal\n", 4, "pse_shift"},
        {"pse_shift = null\n\npse_shift.values = 1\n", 6, "pse_shift"},
        {"attention_out.gen = const(1)\n", 4, "attention_out"},
        {"actual_seq_lengths = [1,x]\n", 4, "actual_seq_lengths"},
        {"actual_seq_lengths = 1,2\n", 4, "actual_seq_lengths"},
        {"actual_seq_lengths = []\nactual_seq_lengths = null\n", 5,
         "actual_seq_lengths"},
        {"key = fp16 [1];\n", 4, "key"},
    };
    char text[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%s", minimal, cases[i].extra);
        fia_case c;
        fia_error err;
        int rc = fia_case_parse_string(text, "bad.case", &c, &err);
        CHECK_MSG(rc == FIA_ERR_BAD_INPUT && err.code == FIA_ERR_BAD_INPUT, "case %zu should fail", i);
        CHECK_MSG(err.line == cases[i].line, "case %zu: line %d, want %d (%s)",
                  i, err.line, cases[i].line, err.msg);
        CHECK_MSG(strstr(err.msg, cases[i].needle) != NULL,
                  "case %zu: '%s' lacks '%s'", i, err.msg, cases[i].needle);
        CHECK(strcmp(err.file, "bad.case") == 0);
        /* After an error the case is empty (nothing leaks, free is safe). */
        CHECK_EQ_INT(c.tensors[FIA_SLOT_QUERY].presence, FIA_ABSENT);
        fia_case_free(&c);
    }
    /* Missing required keys. */
    static const char *missing[][2] = {
        {"key = fp16 [1]\nvalue = fp16 [1]\n", "'query'"},
        {"query = fp16 [1]\nvalue = fp16 [1]\n", "'key'"},
        {"query = fp16 [1]\nkey = fp16 [1]\n", "'value'"},
        {"", "'query'"},
    };
    for (size_t i = 0; i < 4; i++) {
        fia_case c;
        fia_error err;
        CHECK_EQ_INT(fia_case_parse_string(missing[i][0], NULL, &c, &err),
                     FIA_ERR_BAD_INPUT);
        CHECK_EQ_INT(err.code, FIA_ERR_BAD_INPUT);
        CHECK(strstr(err.msg, "missing required key") != NULL);
        CHECK_MSG(strstr(err.msg, missing[i][1]) != NULL, "%s", err.msg);
        CHECK(strcmp(err.file, "<string>") == 0);
        fia_case_free(&c);
    }
    /* A too-long tensor list. */
    size_t cap = 20 * (FIA_MAX_TENSOR_LIST + 2) + 100;
    char *big = malloc(cap);
    strcpy(big, "query = fp16 [1]\nvalue = fp16 [1]\nkey = fp16 [1]");
    for (int i = 0; i < FIA_MAX_TENSOR_LIST; i++)
        strcat(big, ";fp16 [1]");
    strcat(big, "\n");
    fia_case c;
    fia_error err;
    CHECK_EQ_INT(fia_case_parse_string(big, NULL, &c, &err), FIA_ERR_BAD_INPUT);
    CHECK(err.line == 3 && strstr(err.msg, "key") != NULL);
    fia_case_free(&c);
    free(big);
    /* A missing file. */
    CHECK_EQ_INT(fia_case_parse_file("/nonexistent/dir/x.case", &c, &err), FIA_ERR_IO);
    CHECK_EQ_INT(err.code, FIA_ERR_IO);
    CHECK(strstr(err.msg, "cannot open") != NULL);
    fia_case_free(&c);
}

static void roundtrip(const char *text)
{
    fia_case a, b, d;
    CHECK_EQ_INT(parse(text, &a), 0);
    char *s = fia_case_to_string(&a);
    CHECK(s != NULL);
    if (!s)
        return;
    fia_error err;
    int rc = fia_case_parse_string(s, "printed", &b, &err);
    CHECK_MSG(rc == 0, "%d: %s\n%s", err.line, err.msg, s);
    CHECK_MSG(fia_case_equal(&a, &b), "not equal after round trip:\n%s", s);
    /* Printing is canonical: printing again gives the same text except the
     * name in the header. */
    char *s2 = fia_case_to_string(&b);
    CHECK(s2 && strcmp(strchr(s, '\n'), strchr(s2, '\n')) == 0);
    CHECK_EQ_INT(fia_case_copy(&d, &a), 0);
    CHECK(fia_case_equal(&a, &d));
    fia_case_free(&a);   /* the copy is deep: still usable */
    CHECK(fia_case_equal(&b, &d));
    free(s);
    free(s2);
    fia_case_free(&b);
    fia_case_free(&d);
}

static void test_roundtrip(void)
{
    roundtrip(example);
    roundtrip(minimal);
    roundtrip("query = fp16 [1,2,8]\n"
              "key = fp16 [1,3,8]; fp16 [1,3,8]; fp16 [1,0,8]\n"
              "value = fp16 [1,3,8]; fp16 [1,3,8]; fp16 [1,0,8]\n"
              "key.values = " "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,"
              "19,20,21,22,23,24,0.1,-0.5,1e-300,-0,nan,inf,-inf,0x1p-1074,"
              "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
              "value.gen = normal(0.5,2)\n"
              "scale = nan\n"
              "pse_shift = null\nattention_out = null\n"
              "softmax_lse = fp32 [1,1,2,1]\n"
              "actual_seq_lengths = []\nactual_seq_lengths_kv = null\n"
              "actual_shared_prefix_len = [-1,0,9223372036854775807]\n"
              "seed = 18446744073709551615\n");
    roundtrip("query = int8 []\nkey = int4 [0]\nvalue = uint64 [3]\n"
              "query.values = 7\nkey.values =\n"
              "value.gen = const(-inf)\n"
              "atten_mask = bool [2,3]\natten_mask.gen = random(0.25)\n"
              "pse_shift = bf16 [1,1]\npse_shift.gen = uniform(-0.1,0.3)\n"
              "quant_scale2 = fp32 [1]\nquant_scale2.gen = const(0.1)\n"
              "block_table = int32 [2,2]\nblock_table.gen = causal\n"
              "input_layout = BSND\nnum_heads = 1\nscale = -0\n"
              "inner_precise = 3\nblock_size = 128\nantiquant_mode = 1\n"
              "key_antiquant_mode = 2\nvalue_antiquant_mode = 3\n"
              "query_quant_mode = 4\nnum_key_value_heads = 7\n"
              "pre_tokens = -5\nnext_tokens = 0\nsoftmax_lse_flag = true\n"
              "sparse_mode = 4\n");

    /* Equality notices differences. */
    fia_case a, b;
    CHECK_EQ_INT(parse(example, &a), 0);
    CHECK_EQ_INT(fia_case_copy(&b, &a), 0);
    b.tensors[FIA_SLOT_QUERY].gen.b = 3;
    CHECK(!fia_case_equal(&a, &b));
    b.tensors[FIA_SLOT_QUERY].gen.b = 4;
    CHECK(fia_case_equal(&a, &b));
    b.attrs.scale = -0.125;
    CHECK(!fia_case_equal(&a, &b));
    b.attrs.scale = 0.125;
    b.tensors[FIA_SLOT_KEY].t[0].shape[2] = 127;
    CHECK(!fia_case_equal(&a, &b));
    b.tensors[FIA_SLOT_KEY].t[0].shape[2] = 128;
    b.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].values[1] = 8;
    CHECK(!fia_case_equal(&a, &b));
    b.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].values[1] = 7;
    b.seed = 43;
    CHECK(!fia_case_equal(&a, &b));
    b.seed = 42;
    b.tensors[FIA_SLOT_PSE_SHIFT].presence = FIA_NULL;
    CHECK(!fia_case_equal(&a, &b));
    fia_case_free(&a);
    fia_case_free(&b);

    /* A programmatic attribute change without attr_given is still printed. */
    CHECK_EQ_INT(parse(minimal, &a), 0);
    a.attrs.sparse_mode = 2;
    a.attrs.scale = 0.1;
    char *s = fia_case_to_string(&a);
    CHECK(s && strstr(s, "sparse_mode = 2\n") && strstr(s, "scale = 0.1"));
    CHECK(s && !strstr(s, "num_heads"));
    CHECK_EQ_INT(parse(s, &b), 0);
    CHECK(fia_case_equal(&a, &b));
    free(s);
    fia_case_free(&a);
    fia_case_free(&b);

    /* fia_case_print and fia_case_parse_file agree. */
    char path[] = "/tmp/fiacheck_test_case_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        CHECK_EQ_INT(parse(example, &a), 0);
        CHECK_EQ_INT(fia_case_print(&a, f), 0);
        fclose(f);
        fia_error err;
        CHECK_EQ_INT(fia_case_parse_file(path, &b, &err), 0);
        CHECK(strcmp(b.name, path) == 0);
        CHECK(fia_case_equal(&a, &b));
        remove(path);
        fia_case_free(&a);
        fia_case_free(&b);
    }
}

static uint64_t fuzz_state = 0x1234567887654321ull;
static uint64_t fuzz_next(void) { return test_xorshift64(&fuzz_state); }

static void test_fuzz(void)
{
    static const char *pieces[] = {
        "=", "#", "\n", ";", ",", "[", "]", "(", ")", ".gen", ".values",
        "null", "fp16", "bool", " ", "99999999999999999999", "-1", "nan",
        "query", "key", "value", "causal", "normal(0,1)", "\r", "0x", "e9",
    };
    size_t base_len = strlen(example);
    int accepted = 0, rejected = 0, other = 0;
    for (int iter = 0; iter < 2000; iter++) {
        size_t cap = base_len * 2 + 4096;
        char *buf = malloc(cap);
        memcpy(buf, example, base_len + 1);
        size_t len = base_len;
        int nmut = 1 + (int)(fuzz_next() % 8);
        for (int k = 0; k < nmut; k++) {
            size_t pos = len ? fuzz_next() % (len + 1) : 0;
            switch (fuzz_next() % 5) {
            case 0: /* random byte */
                if (pos < len)
                    buf[pos] = (char)(fuzz_next() % 255 + 1);
                break;
            case 1: /* delete a run */
                if (pos < len) {
                    size_t n = fuzz_next() % 16;
                    if (n > len - pos)
                        n = len - pos;
                    memmove(buf + pos, buf + pos + n, len - pos - n + 1);
                    len -= n;
                }
                break;
            case 2: { /* insert a piece */
                const char *p = pieces[fuzz_next() % (sizeof pieces /
                                                      sizeof pieces[0])];
                size_t n = strlen(p);
                if (len + n + 1 < cap) {
                    memmove(buf + pos + n, buf + pos, len - pos + 1);
                    memcpy(buf + pos, p, n);
                    len += n;
                }
                break;
            }
            case 3: /* duplicate a run (long lines) */
                if (pos < len) {
                    size_t n = fuzz_next() % 200;
                    if (n > len - pos)
                        n = len - pos;
                    if (len + n + 1 < cap) {
                        memmove(buf + pos + n, buf + pos, len - pos + 1);
                        len += n;
                    }
                }
                break;
            default: /* truncate */
                if (fuzz_next() % 4 == 0) {
                    buf[pos] = '\0';
                    len = pos;
                }
                break;
            }
        }
        fia_case c;
        fia_error err;
        int rc = fia_case_parse_string(buf, "fuzz", &c, &err);
        if (rc == 0) {
            accepted++;
            char *s = fia_case_to_string(&c);
            fia_case c2;
            if (s && fia_case_parse_string(s, "p", &c2, &err) == 0) {
                if (!fia_case_equal(&c, &c2))
                    other++;
                fia_case_free(&c2);
            } else {
                other++;
            }
            free(s);
            fia_case_data d;
            if (fia_case_materialize(&c, 0, &d, &err) == 0)
                fia_case_data_free(&d);
        } else if (rc == FIA_ERR_BAD_INPUT && err.code == rc) {
            rejected++;
            other += err.msg[0] == '\0';
        } else {
            other++;
        }
        fia_case_free(&c);
        free(buf);
    }
    CHECK_EQ_INT(accepted + rejected, 2000);
    CHECK(accepted > 0 && rejected > 0);
    CHECK_EQ_INT(other, 0);

    /* A very long line of values. */
    size_t n = 200000;
    char *big = malloc(n * 4 + 200);
    char *p = big + sprintf(big, "query = fp32 [%zu]\nkey = fp16 [1]\n"
                                 "value = fp16 [1]\nquery.values = ", n);
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, i ? ",%d" : "%d", (int)(i % 10));
    strcpy(p, "\n");
    fia_case c;
    CHECK_EQ_INT(parse(big, &c), 0);
    CHECK_EQ_INT(c.tensors[FIA_SLOT_QUERY].gen.n_values, (int64_t)n);
    fia_case_data d;
    CHECK_EQ_INT(fia_case_materialize(&c, 1, &d, NULL), FIA_OK);
    CHECK(((const float *)fia_case_data_tensor(&d, FIA_SLOT_QUERY)->data)
              [n - 1] == (float)((n - 1) % 10));
    fia_case_data_free(&d);
    fia_case_free(&c);
    free(big);
}

/* The intent line: a set of names of the fixed vocabulary, printed back in
 * vocabulary order; an unknown name is an error naming the valid ones. */
/* threads and kernel_level: parsed, printed back, part of equality, and
 * bad values refused with the line. */
static void test_run_settings(void)
{
    const char *base = "query = fp16 [1,1,4,16]\nkey = fp16 [1,1,8,16]\n"
                       "value = fp16 [1,1,8,16]\n";
    char text[512];
    fia_case c, d;
    fia_error err;
    snprintf(text, sizeof text,
             "threads = 3\nkernel_level = avx2\ntask_order = 18446744073709551615\n%s",
             base);
    CHECK(fia_case_parse_string(text, "t", &c, &err) == FIA_OK);
    CHECK(c.threads == 3 && c.kernel_level == FIA_KL_AVX2 &&
          c.task_order == UINT64_MAX);
    char *printed = fia_case_to_string(&c);
    CHECK(printed && strstr(printed, "threads = 3\ntask_order = "
                                     "18446744073709551615\nkernel_level = avx2\n"));
    CHECK(printed && fia_case_parse_string(printed, "t", &d, &err) == FIA_OK);
    CHECK(fia_case_equal(&c, &d));
    d.threads = 4;
    CHECK(!fia_case_equal(&c, &d));
    d.threads = 3;
    d.task_order = 5;
    CHECK(!fia_case_equal(&c, &d));
    d.task_order = c.task_order;
    d.kernel_level = FIA_KL_SCALAR;
    CHECK(!fia_case_equal(&c, &d));
    free(printed);
    fia_case_free(&c);
    fia_case_free(&d);
    static const char *const bad[] = {"threads = 0", "threads = 17",
                                      "threads = x", "kernel_level = avx9",
                                      "kernel_level = default",
                                      "threads = 2\nthreads = 2",
                                      "task_order = 0", "task_order = x",
                                      "task_order = 1\ntask_order = 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s\n%s", bad[i], base);
        CHECK_MSG(fia_case_parse_string(text, "t", &c, &err) ==
                      FIA_ERR_BAD_INPUT, "%s", bad[i]);
        fia_case_free(&c);
    }
    /* no line: nothing printed, the defaults */
    CHECK(fia_case_parse_string(base, "t", &c, &err) == FIA_OK);
    printed = fia_case_to_string(&c);
    CHECK(c.threads == 0 && c.kernel_level == FIA_KL_DEFAULT && printed &&
          c.task_order == 0 && strstr(printed, "task_order") == NULL &&
          strstr(printed, "threads") == NULL &&
          strstr(printed, "kernel_level") == NULL);
    free(printed);
    fia_case_free(&c);
}

static void test_intents(void)
{
    const char *base = "query = fp16 [1,1,4,16]\nkey = fp16 [1,1,8,16]\n"
                       "value = fp16 [1,1,8,16]\n";
    char text[512];
    fia_case c, d;
    fia_error err;
    snprintf(text, sizeof text, "intent = rejected , fully_masked_rows\n%s",
             base);
    CHECK(fia_case_parse_string(text, "t", &c, &err) == FIA_OK);
    CHECK(c.intents == (1u << FIA_INTENT_REJECTED |
                        1u << FIA_INTENT_FULLY_MASKED_ROWS));
    char *printed = fia_case_to_string(&c);
    CHECK(printed && strstr(printed,
                            "intent = fully_masked_rows, rejected\n") != NULL);
    CHECK(printed && fia_case_parse_string(printed, "t", &d, &err) == FIA_OK);
    CHECK(d.intents == c.intents);
    free(printed);
    fia_case_free(&c);
    fia_case_free(&d);
    CHECK(strcmp(fia_intent_name(FIA_INTENT_GQA_GROUP), "gqa_group") == 0);
    CHECK(fia_intent_from_name("split_decode") == FIA_INTENT_SPLIT_DECODE);
    CHECK(fia_intent_from_name("nope") == -1);
    snprintf(text, sizeof text, "intent = gqa_group,\n%s", base);
    CHECK(fia_case_parse_string(text, "t", &c, &err) == FIA_ERR_BAD_INPUT);
    CHECK(err.line == 1 && strstr(err.msg, "valid: fully_masked_rows") != NULL);
    fia_case_free(&c);
    /* no intent line: nothing printed */
    CHECK(fia_case_parse_string(base, "t", &c, &err) == FIA_OK);
    printed = fia_case_to_string(&c);
    CHECK(printed && c.intents == 0 && strstr(printed, "intent") == NULL);
    free(printed);
    fia_case_free(&c);
}

/* The *_NBSD layouts: attention_out is derived as (N, B, S, D) from the
 * query in the layout before '_', softmax_lse as that layout's. */
static void test_nbsd_outputs(void)
{
    static const struct {
        const char *layout, *query;
    } t[] = {{"BSH_NBSD", "fp16 [2,3,256]"},
             {"BSND_NBSD", "fp16 [2,3,4,64]"},
             {"BNSD_NBSD", "fp16 [2,4,3,64]"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char text[320];
        snprintf(text, sizeof text, "input_layout = %s\nnum_heads = 4\n"
                 "softmax_lse_flag = true\nquery = %s\nkey = %s\n"
                 "value = %s\n", t[i].layout, t[i].query, t[i].query,
                 t[i].query);
        fia_case c;
        fia_error err;
        CHECK_MSG(fia_case_parse_string(text, NULL, &c, &err) == FIA_OK,
                  "%s: %s", t[i].layout, err.msg);
        fia_tensor o;
        CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_ATTENTION_OUT, &o),
                     FIA_PRESENT);
        CHECK_MSG(shape_is(&o, FIA_DT_FP16, 4, 4, 2, 3, 64), "%s out",
                  t[i].layout);
        CHECK_EQ_INT(fia_case_output(&c, FIA_SLOT_SOFTMAX_LSE, &o),
                     FIA_PRESENT);
        CHECK_MSG(shape_is(&o, FIA_DT_FP32, 4, 2, 4, 3, 1), "%s lse",
                  t[i].layout);
        fia_case_free(&c);
    }
}

int main(void)
{
    test_nbsd_outputs();
    test_example();
    test_defaults();
    test_syntax_variants();
    test_errors();
    test_roundtrip();
    test_fuzz();
    test_intents();
    test_run_settings();
    return check_summary();
}
