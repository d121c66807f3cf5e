/* Tests of the interfaces (core/case_api.c, docs/case-format.md
 * "Interfaces"): a case written through each of the five interfaces reads
 * and prints back in its own names, takes its interface's defaults, refuses
 * another interface's names naming both, and makes the same internal call
 * as its translation into 002's names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"

static int parse_api(const char *text, fia_case *c, fia_error *err)
{
    return fia_case_parse_string(text, "t", c, err);
}

/* parse -> print -> parse gives an equal case, printed the same way, in
 * the same interface; returns the printed text (caller frees). */
static char *round_trip(const char *text, fia_api want)
{
    fia_case a, b;
    fia_error err;
    int rc = parse_api(text, &a, &err);
    CHECK_MSG(rc == 0, "%s:%d: %s", err.file, err.line, err.msg);
    if (rc != 0)
        return NULL;
    CHECK_EQ_INT(a.api, want);
    char *s1 = fia_case_to_string(&a);
    CHECK(s1 != NULL);
    rc = parse_api(s1, &b, &err);
    CHECK_MSG(rc == 0, "reprint does not parse: %d: %s\n%s", err.line,
              err.msg, s1);
    if (rc == 0) {
        CHECK(fia_case_equal(&a, &b));
        CHECK_EQ_INT(b.api, want);
        CHECK(memcmp(a.attr_given, b.attr_given, sizeof a.attr_given) == 0);
        char *s2 = fia_case_to_string(&b);
        CHECK(s2 != NULL && strcmp(s1, s2) == 0);
        free(s2);
        fia_case_free(&b);
    }
    fia_case_free(&a);
    return s1;
}

static void expect_error(const char *text, const char *needle)
{
    fia_case c;
    fia_error err;
    int rc = parse_api(text, &c, &err);
    CHECK_MSG(rc != 0, "accepted:\n%s", text);
    if (rc != 0)
        CHECK_MSG(strstr(err.msg, needle) != NULL, "'%s' lacks '%s'",
                  err.msg, needle);
    else
        fia_case_free(&c);
}

static const char *t003 =
    "api = torch_npu_v2\n"
    "query = bf16 [2,8,16,64]\n"
    "key = int8 [2,2,128,64]\n"
    "value = int8 [2,2,128,64]\n"
    "num_query_heads = 8\n"
    "num_key_value_heads = 2\n"
    "softmax_scale = 0.125\n"
    "input_layout = BNSD\n"
    "sparse_mode = 3\n"
    "atten_mask = bool [2048,2048]\n"
    "actual_seq_qlen = [16,7]\n"
    "actual_seq_kvlen = [128,100]\n"
    "dequant_scale_key = fp32 [2,128]\n"
    "dequant_scale_value = fp32 [2,128]\n"
    "dequant_offset_key = fp32 [2,128]\n"
    "dequant_offset_value = fp32 [2,128]\n"
    "key_quant_mode = 1\n"
    "value_quant_mode = 1\n"
    "quant_scale_out = fp32 [1]\n"
    "quant_offset_out = fp32 [1]\n"
    "return_softmax_lse = true\n"
    "query_dtype = null\n"
    "dequant_scale_key_rope = null\n"
    "quant_scale_out.gen = const(0.5)\n"
    "seed = 7\n";

/* the same call in 002's names: inner_precise 0 is 003's default */
static const char *t002 =
    "query = bf16 [2,8,16,64]\n"
    "key = int8 [2,2,128,64]\n"
    "value = int8 [2,2,128,64]\n"
    "num_heads = 8\n"
    "num_key_value_heads = 2\n"
    "scale = 0.125\n"
    "input_layout = BNSD\n"
    "sparse_mode = 3\n"
    "inner_precise = 0\n"
    "atten_mask = bool [2048,2048]\n"
    "actual_seq_lengths = [16,7]\n"
    "actual_seq_lengths_kv = [128,100]\n"
    "key_antiquant_scale = fp32 [2,128]\n"
    "value_antiquant_scale = fp32 [2,128]\n"
    "key_antiquant_offset = fp32 [2,128]\n"
    "value_antiquant_offset = fp32 [2,128]\n"
    "key_antiquant_mode = 1\n"
    "value_antiquant_mode = 1\n"
    "quant_scale2 = fp32 [1]\n"
    "quant_offset2 = fp32 [1]\n"
    "softmax_lse_flag = true\n"
    "quant_scale2.gen = const(0.5)\n"
    "seed = 7\n";

static void test_names(void)
{
    CHECK_EQ_INT(fia_api_from_name("aclnn_v2"), FIA_API_ACLNN_V2);
    CHECK_EQ_INT(fia_api_from_name("torchair_v2"), FIA_API_TORCHAIR_V2);
    CHECK_EQ_INT(fia_api_from_name("torch_npu"), -1);
    CHECK_EQ_INT(fia_api_from_name(NULL), -1);
    for (int a = 0; a < FIA_API_COUNT; a++) {
        CHECK_EQ_INT(fia_api_from_name(fia_api_name((fia_api)a)), a);
        CHECK(strlen(fia_api_doc((fia_api)a)) == 3);
        /* every row's internal name is a slot, attribute or array, named
         * once; query, key, value and attention_out everywhere */
        const char *in;
        for (int i = 0; fia_api_param_at((fia_api)a, i, &in) != NULL; i++) {
            const char *nm = fia_api_param_at((fia_api)a, i, NULL);
            int unm = 0;
            CHECK(fia_api_internal((fia_api)a, nm, &unm) == in);
            CHECK_EQ_INT(unm, in == NULL);
            if (in != NULL)
                CHECK_MSG(strcmp(fia_api_param((fia_api)a, in), nm) == 0,
                          "%s: %s named twice", fia_api_name((fia_api)a), in);
        }
        CHECK(fia_api_param((fia_api)a, "query") != NULL);
        CHECK(fia_api_param((fia_api)a, "attention_out") != NULL);
    }
    CHECK(strcmp(fia_api_name(FIA_API_COUNT), "?") == 0);
    CHECK(strcmp(fia_api_param(FIA_API_TORCH_NPU_V2, "num_heads"),
                 "num_query_heads") == 0);
    CHECK(strcmp(fia_api_param(FIA_API_INCRE_FLASH_ATTENTION,
                               "actual_seq_lengths_kv"),
                 "actual_seq_lengths") == 0);
    CHECK(fia_api_param(FIA_API_INCRE_FLASH_ATTENTION, "actual_seq_lengths") ==
          NULL);
    CHECK(fia_api_param(FIA_API_MINDSPORE, "query_rope") == NULL);
}

static void test_translation(void)
{
    fia_case a, b;
    fia_error err;
    CHECK_EQ_INT(parse_api(t003, &a, &err), 0);
    CHECK_EQ_INT(parse_api(t002, &b, &err), 0);
    CHECK(fia_case_equal(&a, &b));
    CHECK_EQ_INT(a.attrs.inner_precise, 0);
    CHECK(!a.attr_given[FIA_ATTR_INNER_PRECISE]);
    CHECK(a.attrs.softmax_lse_flag && a.attrs.key_antiquant_mode == 1);
    CHECK_EQ_INT(a.tensors[FIA_SLOT_KEY_ANTIQUANT_OFFSET].presence,
                 FIA_PRESENT);
    CHECK_EQ_INT(a.tensors[FIA_SLOT_QUANT_SCALE2].gen.kind, FIA_GEN_CONST);
    CHECK_EQ_INT(a.arrays[FIA_ARR_ACTUAL_SEQ_LENGTHS].count, 2);
    char d1[FIA_CASE_DIGEST_LEN], d2[FIA_CASE_DIGEST_LEN];
    CHECK(fia_case_digest(&a, d1) == FIA_OK && fia_case_digest(&b, d2) ==
          FIA_OK);
    CHECK_MSG(strcmp(d1, d2) == 0, "digests %s %s", d1, d2);

    /* 003 -> 002 and back through fia_case_set_api */
    fia_case c;
    CHECK(fia_case_copy(&c, &a) == FIA_OK);
    CHECK(fia_case_set_api(&c, FIA_API_ACLNN_V2, NULL, 0) == FIA_OK);
    char *s = fia_case_to_string(&c);
    CHECK(s && strstr(s, "api =") == NULL && strstr(s, "inner_precise = 0") &&
          strstr(s, "key_antiquant_scale = fp32 [2,128]") &&
          strstr(s, "quant_scale2.gen = const(0.5)"));
    fia_case d;
    CHECK_EQ_INT(parse_api(s, &d, &err), 0);
    CHECK(fia_case_equal(&d, &a));
    free(s);
    fia_case_free(&d);
    /* 002 -> 003: the lines speak 003 */
    CHECK(fia_case_set_api(&b, FIA_API_TORCH_NPU_V2, NULL, 0) == FIA_OK);
    s = fia_case_to_string(&b);
    CHECK(s && strstr(s, "api = torch_npu_v2\n") &&
          strstr(s, "num_query_heads = 8\n") &&
          strstr(s, "return_softmax_lse = true\n") &&
          strstr(s, "actual_seq_kvlen = [128,100]\n") &&
          strstr(s, "dequant_offset_value = fp32 [2,128]\n") &&
          strstr(s, "quant_offset_out = fp32 [1]\n") &&
          strstr(s, "quant_scale_out.gen = const(0.5)\n") &&
          strstr(s, "num_heads") == NULL);
    /* inner_precise 0 is 003's default, so an explicit 0 is a line kept */
    CHECK(s && strstr(s, "inner_precise = 0\n"));
    free(s);
    /* 003's case cannot go to mindspore's names without changing nothing?
     * it can: mindspore has every 002 slot it uses */
    char why[200];
    CHECK(fia_case_expressible(&a, FIA_API_MINDSPORE, why, sizeof why));
    /* not to 001: no query lengths, no separate antiquant set */
    CHECK(!fia_case_expressible(&a, FIA_API_INCRE_FLASH_ATTENTION, why,
                                sizeof why));
    CHECK(strstr(why, "incre_flash_attention (001)") != NULL);
    CHECK(fia_case_set_api(&c, FIA_API_INCRE_FLASH_ATTENTION, NULL, 0) ==
          FIA_ERR_BAD_INPUT);
    CHECK_EQ_INT(c.api, FIA_API_ACLNN_V2);
    fia_case_free(&a);
    fia_case_free(&b);
    fia_case_free(&c);
}

static void test_round_trips(void)
{
    char *s = round_trip(t003, FIA_API_TORCH_NPU_V2);
    /* reserved parameters at None change nothing: no line */
    CHECK(s && strstr(s, "query_dtype") == NULL &&
          strstr(s, "inner_precise") == NULL);
    free(s);
    s = round_trip(t002, FIA_API_ACLNN_V2);
    CHECK(s && strstr(s, "api") == NULL);
    free(s);
    s = round_trip("api = mindspore\n"
                   "query = fp16 [1,2,8]\nkey = fp16 [1,3,8]\n"
                   "value = fp16 [1,3,8]\nnum_heads = 1\n"
                   "antiquant_mode = 0\nquery_padding_size = int64 [1]\n"
                   "softmax_lse_flag = true\n",
                   FIA_API_MINDSPORE);
    CHECK(s && strstr(s, "api = mindspore\n"));
    free(s);
    s = round_trip("# decode\n"
                   "query = fp16 [2,1,5120]\nkey = fp16 [2,64,5120]\n"
                   "value = fp16 [2,64,5120]\n"
                   "api = incre_flash_attention\n"
                   "num_heads = 40\nscale_value = 0.088388347648318447\n"
                   "actual_seq_lengths = [64,30]\npadding_mask = null\n"
                   "antiquant_scale = null\n",
                   FIA_API_INCRE_FLASH_ATTENTION);
    CHECK(s && strstr(s, "scale_value = 0.088388347648318447\n") &&
          strstr(s, "actual_seq_lengths = [64,30]\n"));
    free(s);
    s = round_trip("api = torchair_v2\n"
                   "query = fp16 [1,8,16,64]\nkey = fp16 [1,1,64,64]\n"
                   "value = fp16 [1,1,64,64]\ninput_layout = BNSD\n"
                   "num_query_heads = 8\nactual_seq_lengths = [16]\n"
                   "actual_seq_lengths_kv = [50]\nlearnable_sink = null\n"
                   "out_dtype = null\n",
                   FIA_API_TORCHAIR_V2);
    CHECK(s && strstr(s, "num_key_value_heads") == NULL &&
          strstr(s, "actual_seq_lengths_kv = [50]\n") &&
          strstr(s, "out_dtype") == NULL);
    free(s);
    s = round_trip("api = torchair_v2\n"
                   "query = fp16 [1,8,16,64]\nkey = fp16 [1,1,64,64]\n"
                   "value = fp16 [1,1,64,64]\ninput_layout = BNSD\n"
                   "num_query_heads = 8\nout_dtype = 27\n",
                   FIA_API_TORCHAIR_V2);
    CHECK(s && strstr(s, "out_dtype = 27\n"));
    free(s);
}

static void test_defaults(void)
{
    static const struct {
        const char *api;
        int64_t inner_precise, kv_heads;
    } want[] = {
        {"aclnn_v2", 1, 0}, {"torch_npu_v2", 0, 0}, {"mindspore", 1, 0},
        {"incre_flash_attention", 1, 0}, {"torchair_v2", 0, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "query = fp16 [1,2,8]\n"
                 "key = fp16 [1,3,8]\nvalue = fp16 [1,3,8]\napi = %s\n",
                 want[i].api);
        fia_case c;
        fia_error err;
        CHECK_EQ_INT(parse_api(text, &c, &err), 0);
        CHECK_EQ_INT(c.attrs.inner_precise, want[i].inner_precise);
        CHECK_EQ_INT(c.attrs.num_key_value_heads, want[i].kv_heads);
        CHECK_EQ_INT(c.attrs.num_heads, 1);
        CHECK(c.attrs.scale == 1.0 && c.attrs.sparse_mode == 0 &&
              c.attrs.pre_tokens == 2147483647 &&
              strcmp(c.attrs.input_layout, "BSH") == 0);
        for (int a = 0; a < FIA_ATTR_COUNT; a++)
            CHECK(!c.attr_given[a]);
        /* a default is printed nowhere in its own interface ... */
        char *s = fia_case_to_string(&c);
        CHECK(s && strstr(s, "inner_precise") == NULL &&
              strstr(s, "num_key_value_heads") == NULL);
        free(s);
        /* ... and written out when it is not 002's */
        fia_case d;
        CHECK(fia_case_copy(&d, &c) == FIA_OK);
        CHECK(fia_case_set_api(&d, FIA_API_ACLNN_V2, NULL, 0) == FIA_OK);
        s = fia_case_to_string(&d);
        CHECK(s && (strstr(s, "inner_precise = 0\n") != NULL) ==
                       (want[i].inner_precise == 0));
        CHECK(s && (strstr(s, "num_key_value_heads = 1\n") != NULL) ==
                       (want[i].kv_heads == 1));
        free(s);
        fia_case_free(&d);
        fia_case_free(&c);
    }
    /* the api line may come last: defaults still the interface's, and an
     * explicit attribute beats them */
    fia_case c;
    fia_error err;
    CHECK_EQ_INT(parse_api("inner_precise = 1\nquery = fp16 [1,2,8]\n"
                           "key = fp16 [1,3,8]\nvalue = fp16 [1,3,8]\n"
                           "api = torch_npu_v2\n", &c, &err), 0);
    CHECK_EQ_INT(c.attrs.inner_precise, 1);
    char *s = fia_case_to_string(&c);
    CHECK(s && strstr(s, "inner_precise = 1\n"));
    free(s);
    fia_case_free(&c);
}

static void test_errors(void)
{
    const char *qkv = "query = fp16 [1,2,8]\nkey = fp16 [1,3,8]\n"
                      "value = fp16 [1,3,8]\n";
    char text[512];
#define WITH(line) (snprintf(text, sizeof text, "%s%s", qkv, line), text)
    expect_error(WITH("api = torch_npu_v2\nsoftmax_lse_flag = true\n"),
                 "torch_npu_v2 (003) has no parameter softmax_lse_flag; it is "
                 "return_softmax_lse");
    expect_error(WITH("api = torch_npu_v2\nnum_heads = 2\n"),
                 "it is num_query_heads");
    expect_error(WITH("api = torch_npu_v2\nactual_seq_lengths = [2]\n"),
                 "it is actual_seq_qlen");
    expect_error(WITH("api = torch_npu_v2\nantiquant_scale = fp16 [2]\n"),
                 "torch_npu_v2 (003) has no parameter antiquant_scale (");
    expect_error(WITH("api = torch_npu_v2\nkey_shared_prefix = fp16 [1,3,8]\n"),
                 "has no parameter key_shared_prefix");
    expect_error(WITH("api = torch_npu_v2\nscale.gen = const(1)\n"),
                 "it is softmax_scale");
    expect_error(WITH("api = torch_npu_v2\nquant_scale2.gen = const(1)\n"),
                 "it is quant_scale_out");
    /* the reserved *_dtype are read (test_reserved); the reserved tensor
     * dequant_scale_key_rope stays None-only */
    expect_error(WITH("api = torch_npu_v2\ndequant_scale_key_rope = fp32 [1]\n"),
                 "dequant_scale_key_rope is not modeled yet");
    /* out_dtype is read (a catalogue row, NM-017, refuses a given one);
     * only a code, or null */
    expect_error(WITH("api = torchair_v2\nout_dtype = -2\n"),
                 "out_dtype: a dtype code (0 or more) or null");
    expect_error(WITH("api = torch_npu_v2\nout_dtype = 1\n"),
                 "torch_npu_v2 (003) has no parameter out_dtype");
    expect_error(WITH("api = torchair_v2\nactual_seq_qlen = [2]\n"),
                 "torchair_v2 (004) has no parameter actual_seq_qlen; it is "
                 "actual_seq_lengths");
    expect_error(WITH("api = incre_flash_attention\nsparse_mode = 0\n"),
                 "incre_flash_attention (001) has no parameter sparse_mode");
    expect_error(WITH("api = incre_flash_attention\n"
                      "actual_seq_lengths_kv = [3]\n"),
                 "it is actual_seq_lengths");
    expect_error(WITH("api = incre_flash_attention\nscale = 0.5\n"),
                 "it is scale_value");
    expect_error(WITH("api = incre_flash_attention\n"
                      "padding_mask = fp16 [1,3]\n"),
                 "padding_mask is not modeled yet");
    expect_error(WITH("api = mindspore\nquery_rope = fp16 [1,2,8]\n"),
                 "mindspore (000) has no parameter query_rope");
    expect_error(WITH("api = mindspore\nnum_query_heads = 1\n"),
                 "it is num_heads");
    /* 003's names are not 002's */
    expect_error(WITH("return_softmax_lse = true\n"),
                 "aclnn_v2 (002) has no parameter return_softmax_lse; it is "
                 "softmax_lse_flag");
    /* 004's learnable_sink is a parameter of torchair_v2 and of the
     * extended aclnn_v2 vocabulary (fast/'s extended entry takes it), not of
     * 003, 000 or 001 */
    expect_error(WITH("api = torch_npu_v2\nlearnable_sink = bf16 [2]\n"),
                 "torch_npu_v2 (003) has no parameter learnable_sink");
    expect_error(WITH("api = mindspore\nlearnable_sink = bf16 [2]\n"),
                 "mindspore (000) has no parameter learnable_sink");
    expect_error(WITH("no_such_key = 1\n"), "unknown key 'no_such_key'");
    /* the api line itself */
    expect_error(WITH("api = torch_npu\n"), "api: unknown 'torch_npu' (valid: "
                 "aclnn_v2 torch_npu_v2");
    expect_error(WITH("api = mindspore\napi = mindspore\n"),
                 "duplicate key 'api'");
    expect_error(WITH("api =\n"), "api: missing value");
    /* a duplicate through the interface's name */
    expect_error(WITH("api = torch_npu_v2\nsoftmax_scale = 1\n"
                      "softmax_scale = 2\n"),
                 "duplicate key 'softmax_scale'");
    /* messages speak the interface's words */
    expect_error(WITH("api = torch_npu_v2\nquant_scale_out = fp32 [2]\n"
                      "quant_scale_out.values = 1\n"),
                 "quant_scale_out.values: 1 values given");
    expect_error(WITH("api = torch_npu_v2\nsoftmax_scale = x\n"),
                 "softmax_scale: bad number");
#undef WITH
}

/* Every case of corpus/cases/api/ (run from the source root) reads and
 * prints back in its own interface, and prints in 002's names as the same
 * call; together they use every interface. */
static void test_corpus(void)
{
    DIR *d = opendir("corpus/cases/api");
    CHECK(d != NULL);
    if (d == NULL)
        return;
    int seen[FIA_API_COUNT] = {0};
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".case") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "corpus/cases/api/%s", e->d_name);
        fia_case c, d2;
        fia_error err;
        int rc = fia_case_parse_file(path, &c, &err);
        CHECK_MSG(rc == 0, "%s:%d: %s", err.file, err.line, err.msg);
        if (rc != 0)
            continue;
        seen[c.api]++;
        char *s = fia_case_to_string(&c);
        char *s2 = round_trip(s, c.api);
        free(s2);
        free(s);
        CHECK(fia_case_copy(&d2, &c) == FIA_OK);
        if (fia_case_set_api(&d2, FIA_API_ACLNN_V2, NULL, 0) == FIA_OK) {
            s = fia_case_to_string(&d2);
            fia_case back;
            CHECK(s != NULL && parse_api(s, &back, &err) == 0);
            CHECK_MSG(fia_case_equal(&back, &c), "%s in 002's names differs",
                      path);
            fia_case_free(&back);
            free(s);
        }
        fia_case_free(&d2);
        fia_case_free(&c);
    }
    closedir(d);
    for (int a = 0; a < FIA_API_COUNT; a++)
        CHECK_MSG(seen[a] >= 3, "corpus/cases/api has %d cases of %s",
                  seen[a], fia_api_name((fia_api)a));
}

/* `product = NAME` (fia_product): only through an interface whose
 * document lists it (the inference card: 001 alone), printed back, part
 * of the call (equality, digest), and a case on the card cannot move to
 * another interface. */
static void test_product(void)
{
    static const char *card =
        "api = incre_flash_attention\nproduct = atlas_inference_card\n"
        "query = fp16 [1,1,16]\nkey = fp16 [1,2,16]\n"
        "value = fp16 [1,2,16]\n";
    char *s = round_trip(card, FIA_API_INCRE_FLASH_ATTENTION);
    CHECK(s != NULL && strstr(s, "product = atlas_inference_card\n"));
    free(s);
    fia_case a, b;
    fia_error err;
    CHECK(parse_api(card, &a, &err) == 0);
    CHECK_EQ_INT(a.product, FIA_PRODUCT_INFERENCE_CARD);
    CHECK(fia_case_copy(&b, &a) == FIA_OK);
    b.product = FIA_PRODUCT_ATLAS_A2;
    CHECK(!fia_case_equal(&a, &b));
    char da[FIA_CASE_DIGEST_LEN], db[FIA_CASE_DIGEST_LEN];
    CHECK(fia_case_digest(&a, da) == FIA_OK && fia_case_digest(&b, db) == FIA_OK);
    CHECK(strcmp(da, db) != 0);
    /* the A2 product is the default: no line */
    s = fia_case_to_string(&b);
    CHECK(s != NULL && strstr(s, "product") == NULL);
    free(s);
    char why[256];
    CHECK(fia_case_set_api(&a, FIA_API_ACLNN_V2, why, sizeof why) ==
          FIA_ERR_BAD_INPUT);
    CHECK_MSG(strstr(why, "atlas_inference_card") != NULL, "%s", why);
    CHECK_EQ_INT(a.api, FIA_API_INCRE_FLASH_ATTENTION);
    CHECK(fia_case_set_api(&b, FIA_API_ACLNN_V2, why, sizeof why) == FIA_OK);
    fia_case_free(&a);
    fia_case_free(&b);
    expect_error("product = atlas_inference_card\nquery = fp16 [1,1,16]\n"
                 "key = fp16 [1,2,16]\nvalue = fp16 [1,2,16]\n",
                 "does not document");
    expect_error("api = torch_npu_v2\nproduct = atlas_inference_card\n",
                 "does not document");
    expect_error("api = incre_flash_attention\nproduct = atlas_a3\n",
                 "product: unknown 'atlas_a3'");
    expect_error("api = incre_flash_attention\nproduct = atlas_a2\n"
                 "product = atlas_a2\n", "duplicate");
    CHECK_EQ_INT(fia_product_from_name("atlas_a2"), FIA_PRODUCT_ATLAS_A2);
    CHECK_EQ_INT(fia_product_from_name(NULL), -1);
    CHECK(strcmp(fia_product_name(FIA_PRODUCT_COUNT), "?") == 0);
}

/* 003 / 004's reserved *_dtype: an integer or null, printed back, part of
 * the call, only through those two interfaces. */
static void test_reserved(void)
{
    static const char *t =
        "api = torch_npu_v2\nquery = fp16 [1,2,4,16]\nkey = fp16 [1,2,4,16]\n"
        "value = fp16 [1,2,4,16]\nnum_query_heads = 2\ninput_layout = BNSD\n"
        "key_dtype = -3\ndequant_scale_key_rope_dtype = 9\nquery_dtype = null\n";
    char *s = round_trip(t, FIA_API_TORCH_NPU_V2);
    CHECK(s != NULL && strstr(s, "key_dtype = -3\n") &&
          strstr(s, "dequant_scale_key_rope_dtype = 9\n") &&
          !strstr(s, "query_dtype"));
    free(s);
    fia_case a, b;
    fia_error err;
    CHECK(parse_api(t, &a, &err) == 0);
    CHECK_EQ_INT(a.reserved_given, (1u << 1) | (1u << 10));
    CHECK(fia_case_copy(&b, &a) == FIA_OK);
    CHECK(fia_case_equal(&a, &b));
    b.reserved[1] = 4;
    CHECK(!fia_case_equal(&a, &b));
    char da[FIA_CASE_DIGEST_LEN], db[FIA_CASE_DIGEST_LEN];
    CHECK(fia_case_digest(&a, da) == FIA_OK && fia_case_digest(&b, db) == FIA_OK);
    CHECK(strcmp(da, db) != 0);
    char why[256];
    CHECK(fia_case_set_api(&b, FIA_API_TORCHAIR_V2, why, sizeof why) == FIA_OK);
    CHECK(fia_case_set_api(&b, FIA_API_ACLNN_V2, why, sizeof why) ==
          FIA_ERR_BAD_INPUT);
    CHECK_MSG(strstr(why, "reserved") != NULL, "%s", why);
    fia_case_free(&a);
    fia_case_free(&b);
    expect_error("api = torch_npu_v2\nkey_dtype = int8\n", "key_dtype");
    expect_error("api = torch_npu_v2\nkey_dtype = 1\nkey_dtype = 2\n",
                 "duplicate");
    expect_error("key_dtype = 1\n", "key_dtype");
    CHECK_EQ_INT(fia_reserved_from_name("value_dtype"), 2);
    CHECK(fia_reserved_name(FIA_RESERVED_COUNT) == NULL);
}

int main(void)
{
    test_names();
    test_product();
    test_reserved();
    test_translation();
    test_round_trips();
    test_defaults();
    test_errors();
    test_corpus();
    return check_summary();
}
