/* Tests of the interception rule catalogue (oracle/).
 *
 * For every rule of the catalogue: one case that breaks it (the rule fires
 * and the expected status is right in both profiles) and one that obeys it
 * (the rule does not fire).  Plus the catalogue's own consistency, layer
 * precedence, and robustness on malformed cases. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/feature.h"
#include "fia/oracle.h"
#include "oracle/oracle_internal.h"

/* Valid bases. */
#define PREFILL                                                              \
    "query = fp16 [1,2,16,64]\n"                                             \
    "key = fp16 [1,2,32,64]\n"                                               \
    "value = fp16 [1,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
#define PREFILL3                                                             \
    "query = fp16 [3,2,16,64]\n"                                             \
    "key = fp16 [3,2,32,64]\n"                                               \
    "value = fp16 [3,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
#define DECODE                                                               \
    "query = fp16 [2,2,1,64]\n"                                              \
    "key = fp16 [2,2,32,64]\n"                                               \
    "value = fp16 [2,2,32,64]\n"                                             \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
/* PREFILL written through 003 / 004 (num_query_heads) */
#define V2_PREFILL(api)                                                      \
    "api = " api "\nquery = fp16 [1,2,16,64]\nkey = fp16 [1,2,32,64]\n"       \
    "value = fp16 [1,2,32,64]\nnum_query_heads = 2\n"                     \
    "num_key_value_heads = 2\ninput_layout = BNSD\n"
/* 001's interface, on the inference card and on the A2 products */
#define CARD                                                                 \
    "api = incre_flash_attention\nproduct = atlas_inference_card\n" DECODE
#define A2_IFA "api = incre_flash_attention\n" DECODE
#define BSH                                                                  \
    "query = fp16 [1,16,128]\n"                                              \
    "key = fp16 [1,32,128]\n"                                                \
    "value = fp16 [1,32,128]\n"                                              \
    "num_heads = 2\n"                                                        \
    "input_layout = BSH\n"
#define MASK2048 "atten_mask = bool [2048,2048]\n"
#define LIST3                                                                \
    "query = fp16 [3,2,16,64]\n"                                             \
    "key = fp16 [1,2,32,64]; fp16 [1,2,20,64]; fp16 [1,2,9,64]\n"            \
    "value = fp16 [1,2,32,64]; fp16 [1,2,20,64]; fp16 [1,2,9,64]\n"          \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"
/* 4096 copies of a string (a length array of 4097 batches). */
#define C4(s) s s s s
#define C64(s) C4(C4(C4(s)))
#define C4096(s) C64(C64(s))
/* A token layout: batches of 5, 0 and 12 query tokens over 9, 4 and 30
 * key tokens (cumulative counts), GQA 4:2, bf16, D 128. */
#define TND                                                                  \
    "query = bf16 [17,4,128]\n"                                              \
    "key = bf16 [43,2,128]\n"                                                \
    "value = bf16 [43,2,128]\n"                                              \
    "num_heads = 4\n"                                                        \
    "num_key_value_heads = 2\n"                                              \
    "input_layout = TND\n"                                                   \
    "actual_seq_lengths = [5,5,17]\n"                                        \
    "actual_seq_lengths_kv = [9,13,43]\n"
/* MLA (003): decode, BSH, a rank-3 cache of block_size 16 (lengths 40
 * and 7: blocks 3 + 1 of 6); prefill Q_S 4, BNSD, a rank-4 cache of
 * block_size 128, sparse 3; a D = 128 token layout with rope. */
#define MLA_D                                                                \
    "query = bf16 [2,1,16384]\n"                                             \
    "key = bf16 [6,16,512]\n"                                                \
    "value = bf16 [6,16,512]\n"                                              \
    "query_rope = bf16 [2,1,2048]\n"                                         \
    "key_rope = bf16 [6,16,64]\n"                                            \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH\n"                                                   \
    "block_size = 16\n"                                                      \
    "block_table = int32 [2,3]\n"                                            \
    "actual_seq_lengths_kv = [40,7]\n"
#define MLA_P                                                                \
    "query = bf16 [1,32,4,512]\n"                                            \
    "key = bf16 [2,1,128,512]\n"                                             \
    "value = bf16 [2,1,128,512]\n"                                           \
    "query_rope = bf16 [1,32,4,64]\n"                                        \
    "key_rope = bf16 [2,1,128,64]\n"                                         \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
#define MLA_T TND "query_rope = bf16 [17,4,64]\nkey_rope = bf16 [43,2,64]\n"
/* MLA's *_NBSD output: MLA_P's call in BSH_NBSD, attention_out (N, B, Q_S,
 * D); MLA's NZ cache: MLA_P's in BSH with the cache (blockNum, KV_N, D/16,
 * block_size, 16). */
#define MLA_NBSD                                                             \
    "query = bf16 [1,4,16384]\n"                                             \
    "key = bf16 [2,128,512]\n"                                               \
    "value = bf16 [2,128,512]\n"                                             \
    "query_rope = bf16 [1,4,2048]\n"                                         \
    "key_rope = bf16 [2,128,64]\n"                                           \
    "attention_out = bf16 [32,1,4,512]\n"                                    \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH_NBSD\n"                                              \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
#define MLA_NZ                                                               \
    "query = bf16 [1,4,16384]\n"                                             \
    "key = bf16 [2,1,32,128,16]\n"                                           \
    "value = bf16 [2,1,32,128,16]\n"                                         \
    "query_rope = bf16 [1,4,2048]\n"                                         \
    "key_rope = bf16 [2,1,4,128,16]\n"                                       \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH\n"                                                   \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
/* MLA full quantization (003 D = 512 "支持全量化场景"): MLA_D's decode in
 * int8 with bf16 ropes and output, dequant_scale_query (B, S, N), per-tensor
 * key/value scales [1], query_quant_mode 3; and a BSND prefill over the
 * int8 NZ cache (blockNum, KV_N, D/32, block_size, 32). */
#define MLA_FQ                                                               \
    "query = int8 [2,1,16384]\n"                                             \
    "key = int8 [6,16,512]\n"                                                \
    "value = int8 [6,16,512]\n"                                              \
    "attention_out = bf16 [2,1,16384]\n"                                     \
    "query_rope = bf16 [2,1,2048]\n"                                         \
    "key_rope = bf16 [6,16,64]\n"                                            \
    "dequant_scale_query = fp32 [2,1,32]\n"                                  \
    "key_antiquant_scale = fp32 [1]\n"                                       \
    "value_antiquant_scale = fp32 [1]\n"                                     \
    "query_quant_mode = 3\n"                                                 \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSH\n"                                                   \
    "block_size = 16\n"                                                      \
    "block_table = int32 [2,3]\n"                                            \
    "actual_seq_lengths_kv = [40,7]\n"
#define MLA_FQZ                                                              \
    "query = int8 [1,4,32,512]\n"                                            \
    "key = int8 [2,1,16,128,32]\n"                                           \
    "value = int8 [2,1,16,128,32]\n"                                         \
    "attention_out = bf16 [1,4,32,512]\n"                                    \
    "query_rope = bf16 [1,4,32,64]\n"                                        \
    "key_rope = bf16 [2,1,4,128,16]\n"                                       \
    "dequant_scale_query = fp32 [1,4,32]\n"                                  \
    "key_antiquant_scale = fp32 [1]\n"                                       \
    "value_antiquant_scale = fp32 [1]\n"                                     \
    "query_quant_mode = 3\n"                                                 \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 1\n"                                              \
    "input_layout = BSND\n"                                                  \
    "sparse_mode = 3\n"                                                      \
    "atten_mask = bool [2048,2048]\n"                                        \
    "block_size = 128\n"                                                     \
    "block_table = int32 [1,2]\n"                                            \
    "actual_seq_lengths_kv = [150]\n"
/* Page attention: kv lengths 200 and 56.  Prefill: block_size 128, blocks
 * 2 + 1 (4 in the cache), a 4-D cache; decode: 16, blocks 13 + 4 (20). */
#define PAGED_P                                                              \
    "query = fp16 [2,2,16,64]\n"                                             \
    "key = fp16 [4,2,128,64]\n"                                              \
    "value = fp16 [4,2,128,64]\n"                                            \
    "num_heads = 2\n"                                                        \
    "input_layout = BNSD\n"                                                  \
    "block_size = 128\n"                                                     \
    "block_table = int32 [2,2]\n"                                            \
    "actual_seq_lengths_kv = [200,56]\n"
#define PAGED_D                                                              \
    "query = fp16 [2,32,1,64]\n"                                             \
    "key = fp16 [20,16,256]\n"                                               \
    "value = fp16 [20,16,256]\n"                                             \
    "num_heads = 32\n"                                                       \
    "num_key_value_heads = 4\n"                                              \
    "input_layout = BNSD\n"                                                  \
    "block_size = 16\n"                                                      \
    "block_table = int32 [2,13]\n"                                           \
    "actual_seq_lengths_kv = [200,56]\n"

/* base with override lines: a line of the override replaces the base line
 * with the same key; "key = DROP" removes it.  Caller frees. */
static char *mk(const char *base, const char *over)
{
    size_t cap = strlen(base) + strlen(over) + 2;
    char *out = malloc(cap);
    out[0] = '\0';
    const char *p = base;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t klen = eq ? (size_t)(eq - p) : len;
        while (klen > 0 && p[klen - 1] == ' ')
            klen--;
        int overridden = 0;
        const char *q = over;
        while (*q) {
            const char *qnl = strchr(q, '\n');
            size_t qlen = qnl ? (size_t)(qnl - q) : strlen(q);
            if (qlen > klen && strncmp(q, p, klen) == 0 &&
                (q[klen] == ' ' || q[klen] == '='))
                overridden = 1;
            q += qlen + (qnl ? 1 : 0);
        }
        if (!overridden) {
            strncat(out, p, len);
            strcat(out, "\n");
        }
        p += len + (nl ? 1 : 0);
    }
    const char *q = over;
    while (*q) {
        const char *qnl = strchr(q, '\n');
        size_t qlen = qnl ? (size_t)(qnl - q) : strlen(q);
        if (!(qlen >= 4 && strncmp(q + qlen - 4, "DROP", 4) == 0)) {
            strncat(out, q, qlen);
            strcat(out, "\n");
        }
        q += qlen + (qnl ? 1 : 0);
    }
    return out;
}

static int eval(const char *text, fia_profile p, fia_oracle_verdict *v)
{
    fia_case c;
    fia_error err;
    if (fia_case_parse_string(text, "<test>", &c, &err) != 0) {
        fprintf(stderr, "parse error: line %d: %s\n--\n%s--\n", err.line,
                err.msg, text);
        return -1;
    }
    int rc = fia_oracle_evaluate(&c, p, v, NULL);
    fia_case_free(&c);
    return rc;
}

static int in_list(const fia_rule *const *list, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i]->id, id) == 0)
            return 1;
    return 0;
}

static int rule_in_verdict(const fia_oracle_verdict *v, const char *id)
{
    return in_list(v->fired, v->n_fired, id) ||
           in_list(v->normalized, v->n_normalized, id);
}

static fia_status expected_for(const fia_rule *r, fia_profile p)
{
    if (r->kind == FIA_RULE_NORMALIZE)
        return FIA_OK;
    if (r->kind == FIA_RULE_NOT_MODELED)
        return (p == FIA_PROFILE_CANN ? r->cann_status : r->doc_status) ==
                       FIA_OK
                   ? FIA_OK
                   : FIA_ERR_NOT_MODELED;
    return p == FIA_PROFILE_CANN ? r->cann_status : r->doc_status;
}

/* 1 when a fired rejection decides v's expected status in profile p. */
static int decided_by_reject(const fia_oracle_verdict *v, fia_profile p)
{
    for (int i = 0; i < v->n_fired; i++) {
        const fia_rule *f = v->fired[i];
        fia_status st = p == FIA_PROFILE_CANN ? f->cann_status : f->doc_status;
        if (f->kind == FIA_RULE_REJECT && st != FIA_OK && st == v->expected)
            return 1;
    }
    return 0;
}

typedef struct rule_case {
    const char *id;
    const char *base_break, *over_break;
    const char *base_obey, *over_obey;
} rule_case;

static const rule_case cases[] = {
    /* tensors */
    {"TENS-001", PREFILL, "query = null", PREFILL, ""},
    {"TENS-002", PREFILL, "key = null", PREFILL, ""},
    {"TENS-003", PREFILL, "value = null", PREFILL, ""},
    {"TENS-004", PREFILL, "attention_out = null", PREFILL,
     "attention_out = fp16 [1,2,16,64]"},
    {"TENS-010", PREFILL, "query = fp32 [1,2,16,64]", PREFILL, ""},
    {"TENS-011", PREFILL, "key = fp32 [1,2,32,64]", PREFILL, ""},
    {"TENS-012", PREFILL, "value = fp32 [1,2,32,64]", PREFILL, ""},
    {"TENS-013", PREFILL, "pse_shift = fp32 [1,2,16,32]", PREFILL,
     "pse_shift = fp16 [1,2,16,32]"},
    {"TENS-020", PREFILL, "dequant_scale1 = fp16 [1]", PREFILL,
     "dequant_scale1 = uint64 [1]"},
    {"TENS-021", PREFILL, "quant_scale1 = fp16 [1]", PREFILL,
     "quant_scale1 = fp32 [1]"},
    {"TENS-022", PREFILL, "dequant_scale2 = fp16 [1]", PREFILL,
     "dequant_scale2 = fp32 [1]"},
    {"TENS-023", PREFILL, "quant_scale2 = fp16 [1]", PREFILL,
     "quant_scale2 = fp32 [1]"},
    {"TENS-024", PREFILL, "quant_offset2 = fp16 [1]", PREFILL,
     "quant_offset2 = bf16 [1]"},
    {"TENS-025", PREFILL, "antiquant_scale = int8 [2]", PREFILL,
     "antiquant_scale = fp32 [2]"},
    {"TENS-026", PREFILL, "antiquant_offset = int8 [2]", PREFILL,
     "antiquant_offset = fp16 [2]"},
    {"TENS-027", PREFILL, "block_table = int64 [1,1]", PREFILL,
     "block_table = int32 [1,1]"},
    {"TENS-028", PREFILL, "query_padding_size = int32 [1]", PREFILL,
     "query_padding_size = int64 [1]"},
    {"TENS-029", PREFILL, "kv_padding_size = int32 [1]", PREFILL,
     "kv_padding_size = int64 [1]"},
    {"TENS-030", PREFILL, "key_antiquant_scale = int8 [1]", PREFILL,
     "key_antiquant_scale = fp16 [1]"},
    {"TENS-031", PREFILL, "key_antiquant_offset = int8 [1]", PREFILL,
     "key_antiquant_offset = bf16 [1]"},
    {"TENS-032", PREFILL, "value_antiquant_scale = int8 [1]", PREFILL,
     "value_antiquant_scale = fp32 [1]"},
    {"TENS-033", PREFILL, "value_antiquant_offset = int8 [1]", PREFILL,
     "value_antiquant_offset = fp16 [1]"},
    {"TENS-034", PREFILL, "key_shared_prefix = fp32 [1,2,8,64]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]"},
    {"TENS-035", PREFILL, "value_shared_prefix = fp32 [1,2,8,64]", PREFILL,
     "value_shared_prefix = int8 [1,2,8,64]"},
    {"TENS-036", PREFILL, "query_rope = fp32 [1,2,16,64]", PREFILL,
     "query_rope = bf16 [1,2,16,64]"},
    {"TENS-037", PREFILL, "key_rope = fp32 [1,2,32,64]", PREFILL,
     "key_rope = fp16 [1,2,32,64]"},
    {"TENS-038", PREFILL, "dequant_scale_query = fp16 [1]", PREFILL,
     "dequant_scale_query = fp32 [1]"},
    {"TENS-040", PREFILL, "value = bf16 [1,2,32,64]", PREFILL, ""},
    {"TENS-041", PREFILL, "key = bf16 [1,2,32,64]\nvalue = bf16 [1,2,32,64]",
     PREFILL,
     "query = bf16 [1,2,16,64]\nkey = bf16 [1,2,32,64]\n"
     "value = bf16 [1,2,32,64]"},

    /* layout */
    {"LAYOUT-001", PREFILL, "input_layout = XYZ", PREFILL, ""},
    {"LAYOUT-002", DECODE, "input_layout = BNSD_BSND", PREFILL,
     "input_layout = BNSD_BSND"},
    {"LAYOUT-003", PREFILL, "query = fp16 [1,2,16]", BSH, ""},
    {"LAYOUT-004", PREFILL, "key = fp16 [1,2,32]", PREFILL, ""},
    {"LAYOUT-005", PREFILL, "value = fp16 [1,2,32]", PREFILL, ""},
    {"LAYOUT-006", PREFILL, "value = fp16 [1,2,33,64]", PREFILL, ""},
    {"LAYOUT-014", PREFILL, "value = fp16 [1,2,33,64]", PREFILL,
     "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
     "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]"},
    {"LAYOUT-007", PREFILL, "num_heads = 0", PREFILL, ""},
    {"LAYOUT-008", PREFILL, "num_heads = 4\nnum_key_value_heads = 2", PREFILL,
     "input_layout = BSND\nquery = fp16 [1,16,2,64]\nkey = fp16 [1,32,2,64]\n"
     "value = fp16 [1,32,2,64]"},
    {"LAYOUT-009", BSH, "num_heads = 3", BSH, ""},
    {"LAYOUT-010", PREFILL, "key = fp16 [2,2,32,64]\nvalue = fp16 [2,2,32,64]",
     PREFILL, ""},
    {"LAYOUT-011", PREFILL, "num_key_value_heads = 1", PREFILL,
     "num_key_value_heads = 1\nkey = fp16 [1,1,32,64]\n"
     "value = fp16 [1,1,32,64]"},
    {"LAYOUT-012", BSH, "key = fp16 [1,32,129]\nvalue = fp16 [1,32,129]", BSH,
     "num_key_value_heads = 1\nkey = fp16 [1,32,64]\nvalue = fp16 [1,32,64]"},
    {"LAYOUT-013", PREFILL, "key = fp16 [1,2,32,32]\nvalue = fp16 [1,2,32,32]",
     PREFILL, ""},
    {"LAYOUT-020", PREFILL,
     "query = fp16 [65537,1,2,16]\nkey = fp16 [65537,1,4,16]\n"
     "value = fp16 [65537,1,4,16]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [65536,1,2,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1"},
    /* each interface's own document: 001 65535; 000 65535 at Q_S > 1,
     * 65536 at Q_S = 1 */
    {"LAYOUT-020", "api = incre_flash_attention\n" DECODE,
     "query = fp16 [65536,1,1,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1",
     "api = incre_flash_attention\n" DECODE,
     "query = fp16 [65535,1,1,16]\nkey = fp16 [65535,1,4,16]\n"
     "value = fp16 [65535,1,4,16]\nnum_heads = 1"},
    {"LAYOUT-020", "api = mindspore\n" PREFILL,
     "query = fp16 [65536,1,2,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1",
     "api = mindspore\n" PREFILL,
     "query = fp16 [65535,1,2,16]\nkey = fp16 [65535,1,4,16]\n"
     "value = fp16 [65535,1,4,16]\nnum_heads = 1"},
    {"LAYOUT-020", "api = mindspore\n" DECODE,
     "query = fp16 [65537,1,1,16]\nkey = fp16 [65537,1,4,16]\n"
     "value = fp16 [65537,1,4,16]\nnum_heads = 1",
     "api = mindspore\n" DECODE,
     "query = fp16 [65536,1,1,16]\nkey = fp16 [65536,1,4,16]\n"
     "value = fp16 [65536,1,4,16]\nnum_heads = 1"},
    {"LAYOUT-021", PREFILL,
     "query = fp16 [1,257,2,16]\nkey = fp16 [1,257,4,16]\n"
     "value = fp16 [1,257,4,16]\nnum_heads = 257",
     PREFILL,
     "query = fp16 [1,256,2,16]\nkey = fp16 [1,256,4,16]\n"
     "value = fp16 [1,256,4,16]\nnum_heads = 256"},
    {"LAYOUT-022", PREFILL,
     "query = fp16 [1,1,2,528]\nkey = fp16 [1,1,4,528]\n"
     "value = fp16 [1,1,4,528]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [1,1,2,512]\nkey = fp16 [1,1,4,512]\n"
     "value = fp16 [1,1,4,512]\nnum_heads = 1"},
    {"LAYOUT-023", PREFILL,
     "input_layout = BSND\nquery = fp16 [1,2,128,512]\n"
     "key = fp16 [1,4,128,512]\nvalue = fp16 [1,4,128,512]\nnum_heads = 128",
     PREFILL,
     "query = fp16 [1,128,2,512]\nkey = fp16 [1,128,4,512]\n"
     "value = fp16 [1,128,4,512]\nnum_heads = 128"},
    {"LAYOUT-024", PREFILL,
     "query = fp16 [1,2,16,24]\nkey = fp16 [1,2,32,24]\n"
     "value = fp16 [1,2,32,24]",
     PREFILL,
     "query = fp16 [1,2,16,32]\nkey = fp16 [1,2,32,32]\n"
     "value = fp16 [1,2,32,32]"},
    {"LAYOUT-025", PREFILL,
     "query = fp16 [129,1,2,12]\nkey = fp16 [129,1,4,12]\n"
     "value = fp16 [129,1,4,12]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [128,1,2,12]\nkey = fp16 [128,1,4,12]\n"
     "value = fp16 [128,1,4,12]\nnum_heads = 1"},
    {"LAYOUT-026", PREFILL,
     "query = fp16 [1,1,20971521,16]\nkey = fp16 [1,1,4,16]\n"
     "value = fp16 [1,1,4,16]\nnum_heads = 1",
     PREFILL,
     "query = fp16 [1,1,20971520,16]\nkey = fp16 [1,1,20971520,16]\n"
     "value = fp16 [1,1,20971520,16]\nnum_heads = 1"},
    {"LAYOUT-027", DECODE,
     "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,262145,16]\n"
     "value = fp16 [1,1,262145,16]\nnum_heads = 1",
     DECODE,
     "query = fp16 [1,1,1,16]\nkey = fp16 [1,1,262144,16]\n"
     "value = fp16 [1,1,262144,16]\nnum_heads = 1"},
    {"LAYOUT-N01", DECODE,
     "query = fp16 [2,2,1,12]\nkey = fp16 [2,2,32,12]\n"
     "value = fp16 [2,2,32,12]",
     DECODE, ""},

    /* gqa */
    {"GQA-001", PREFILL, "num_key_value_heads = -1", PREFILL, ""},
    {"GQA-002", PREFILL,
     "query = fp16 [1,4,16,64]\nnum_heads = 4\nnum_key_value_heads = 3\n"
     "key = fp16 [1,3,32,64]\nvalue = fp16 [1,3,32,64]",
     PREFILL,
     "query = fp16 [1,4,16,64]\nnum_heads = 4\nnum_key_value_heads = 2"},
    {"GQA-003", PREFILL,
     "query = fp16 [1,130,2,16]\nnum_heads = 130\nnum_key_value_heads = 2\n"
     "key = fp16 [1,2,4,16]\nvalue = fp16 [1,2,4,16]",
     PREFILL,
     "query = fp16 [1,128,2,16]\nnum_heads = 128\nnum_key_value_heads = 2\n"
     "key = fp16 [1,2,4,16]\nvalue = fp16 [1,2,4,16]"},
    {"GQA-N01", PREFILL, "num_key_value_heads = 0", PREFILL,
     "num_key_value_heads = 2"},
    {"GQA-N02", PREFILL, "", PREFILL, "num_key_value_heads = 0"},

    /* mask */
    {"MASK-001", PREFILL, "atten_mask = fp32 [16,32]", PREFILL,
     "atten_mask = uint8 [16,32]"},
    {"MASK-002", PREFILL, "atten_mask = fp16 [16,32]", PREFILL,
     "atten_mask = int8 [16,32]"},
    {"MASK-003", PREFILL, "atten_mask = bool [1,1,1,16,32]", PREFILL,
     "atten_mask = bool [16,32]"},
    {"MASK-004", PREFILL, "atten_mask = bool [2,16,32]", PREFILL,
     "atten_mask = bool [1,1,16,32]"},
    {"MASK-005", PREFILL, "atten_mask = bool [1,16,31]", PREFILL,
     "atten_mask = bool [1,16,32]"},
    {"MASK-006", DECODE, "atten_mask = bool [2,1,1,1,32]", DECODE,
     "atten_mask = bool [2,32]"},
    {"MASK-007", DECODE, "atten_mask = bool [1,32]", DECODE,
     "atten_mask = bool [2,1,32]"},
    {"MASK-008", DECODE, "atten_mask = bool [2,31]", DECODE,
     "atten_mask = bool [2,1,1,32]"},
    {"MASK-009", PREFILL, "sparse_mode = 1", PREFILL,
     "sparse_mode = 1\natten_mask = bool [16,32]"},
    {"MASK-010", PREFILL, "sparse_mode = 2", PREFILL,
     "sparse_mode = 2\n" MASK2048},
    {"MASK-011", PREFILL, "sparse_mode = 3\natten_mask = bool [16,32]",
     PREFILL, "sparse_mode = 3\natten_mask = int8 [1,1,2048,2048]"},
    {"MASK-N01", PREFILL, "atten_mask = bool [0,32]", PREFILL, ""},
    {"MASK-N02", PREFILL, "atten_mask = bool [32,48]", PREFILL,
     "atten_mask = bool [16,32]"},

    /* sparse */
    {"SPARSE-001", PREFILL, "sparse_mode = 5", PREFILL,
     "sparse_mode = 4\n" MASK2048},
    {"SPARSE-N01", PREFILL, "pre_tokens = 3", PREFILL,
     "atten_mask = bool [16,32]"},
    {"SPARSE-N02", PREFILL, "sparse_mode = 2\n" MASK2048, PREFILL, ""},
    {"SPARSE-N03", PREFILL, "sparse_mode = 3\n" MASK2048, PREFILL, ""},
    {"SPARSE-N04", PREFILL,
     "sparse_mode = 4\npre_tokens = 4\nnext_tokens = 0\n" MASK2048, PREFILL,
     ""},
    {"SPARSE-N05", DECODE, "sparse_mode = 7\npre_tokens = -5", DECODE, ""},
    {"SPARSE-N06", PREFILL, "pre_tokens = 4294967296", PREFILL,
     "pre_tokens = 2147483647\nnext_tokens = -2147483648"},

    /* seqlen */
    {"SEQ-001", PREFILL, "actual_seq_lengths = []", PREFILL,
     "actual_seq_lengths = [16]"},
    {"SEQ-002", PREFILL3, "actual_seq_lengths = [4,4]", PREFILL3,
     "actual_seq_lengths = [4,4,4]"},
    {"SEQ-003", PREFILL, "actual_seq_lengths = [17]", PREFILL,
     "actual_seq_lengths = [16]"},
    {"SEQ-004", PREFILL, "actual_seq_lengths = [-1]", PREFILL,
     "actual_seq_lengths = [0]"},
    {"SEQ-011", DECODE, "actual_seq_lengths_kv = []", PREFILL,
     "actual_seq_lengths_kv = [32]"},
    {"SEQ-012", PREFILL3, "actual_seq_lengths_kv = [4,4]", PREFILL3,
     "actual_seq_lengths_kv = [4,4,4,99]"},
    {"SEQ-013", DECODE, "actual_seq_lengths_kv = [33]", PREFILL,
     "actual_seq_lengths_kv = [32]"},
    {"SEQ-014", PREFILL, "actual_seq_lengths_kv = [-1]", PREFILL,
     "actual_seq_lengths_kv = [0]"},
    {"SEQ-N01", PREFILL, "actual_seq_lengths = [8]", PREFILL3,
     "actual_seq_lengths = [1,2,3]"},
    {"SEQ-N02", PREFILL3, "actual_seq_lengths = [1,2,3,99]", PREFILL3,
     "actual_seq_lengths = [1,2,3]"},
    {"SEQ-N03", DECODE, "actual_seq_lengths = []", DECODE, ""},

    /* lse */
    {"LSE-001", PREFILL, "softmax_lse_flag = true\nsoftmax_lse = null",
     PREFILL, "softmax_lse_flag = true"},
    {"LSE-002", PREFILL,
     "softmax_lse_flag = true\nsoftmax_lse = fp16 [1,2,16,1]", PREFILL,
     "softmax_lse_flag = true\nsoftmax_lse = fp32 [1,2,16,1]"},
    {"LSE-003", PREFILL, "softmax_lse_flag = true\nsoftmax_lse = fp32 [1,2,16]",
     DECODE, "softmax_lse_flag = true\nsoftmax_lse = fp32 [2,2,1,1]"},
    {"LSE-N01", PREFILL, "softmax_lse = fp16 [7]", PREFILL,
     "softmax_lse_flag = true"},

    /* precise */
    {"PREC-001", PREFILL, "inner_precise = 4", PREFILL, "inner_precise = 3"},
    {"PREC-002", DECODE, "inner_precise = 2", DECODE, "inner_precise = 0"},
    {"PREC-N01", PREFILL,
     "query = bf16 [1,2,16,64]\nkey = bf16 [1,2,32,64]\n"
     "value = bf16 [1,2,32,64]",
     PREFILL, ""},
    {"PREC-N02", PREFILL,
     "sparse_mode = 3\nactual_seq_lengths_kv = [8]\n" MASK2048, PREFILL,
     "sparse_mode = 3\n" MASK2048},
    {"PREC-N03", PREFILL, "", PREFILL, "inner_precise = 1"},

    /* output */
    {"OUT-001", PREFILL, "attention_out = fp32 [1,2,16,64]", PREFILL,
     "attention_out = fp16 [1,2,16,64]"},
    {"OUT-002", PREFILL, "attention_out = bf16 [1,2,16,64]", PREFILL,
     "attention_out = fp16 [1,2,16,64]"},
    {"OUT-003", PREFILL, "attention_out = fp16 [1,2,16,32]", PREFILL,
     "input_layout = BNSD_BSND\nattention_out = fp16 [1,16,2,64]"},
    {"OUT-005", PREFILL, "attention_out = fp16 [1,2,16,32]", PREFILL,
     "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
     "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]"},
    {"OUT-004", PREFILL,
     "query = fp16 [1,2,0,64]\nattention_out = fp16 [1,2,16,64]", PREFILL,
     ""},
    {"OUT-N01", PREFILL, "query = fp16 [1,2,0,64]\ninput_layout = XYZ",
     PREFILL, ""},
    {"OUT-N02", PREFILL, "key = fp16 [1,2,0,64]\nvalue = fp16 [1,2,0,64]",
     PREFILL, ""},

    /* scale */
    {"SCALE-N01", PREFILL, "scale = -1", PREFILL, "scale = 0.125"},

    /* not modeled */
    {"PSE-N02", PREFILL, "pse_shift = fp16 [1,2,16,32]", PREFILL,
     "pse_shift = fp16 [1,2,0,32]"},
    /* shared prefix: the rules before its late refusal */
    {"PREFIX-X02", PREFILL,
     "query = int8 [1,2,16,64]\nkey = int8 [1,2,32,64]\n"
     "value = int8 [1,2,32,64]\nkey_shared_prefix = int8 [1,2,8,64]\n"
     "value_shared_prefix = int8 [1,2,8,64]\n"
     "attention_out = fp16 [1,2,16,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-001", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-002", PREFILL,
     "key_shared_prefix = bf16 [1,2,8,64]\nvalue_shared_prefix = bf16 [1,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-002", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64,1]\nvalue_shared_prefix = fp16 [1,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-003", PREFILL,
     "key_shared_prefix = fp16 [2,2,8,64]\nvalue_shared_prefix = fp16 [2,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-004", PREFILL,
     "key_shared_prefix = fp16 [1,1,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-004", BSH,
     "key_shared_prefix = fp16 [1,8,128]\nvalue_shared_prefix = fp16 [1,8,64]",
     BSH,
     "key_shared_prefix = fp16 [1,8,128]\nvalue_shared_prefix = fp16 [1,8,128]"},
    {"PREFIX-005", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,9,64]",
     PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-006", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [4,4]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [4]"},
    {"PREFIX-007", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [9]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [8]"},
    {"PREFIX-007", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [-1]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [0]"},
    {"PREFIX-008", DECODE,
     "key = fp16 [2,2,262140,64]\nvalue = fp16 [2,2,262140,64]\n" "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]",
     DECODE,
     "key = fp16 [2,2,262136,64]\nvalue = fp16 [2,2,262136,64]\n" "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]"},
    {"PREFIX-009", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\natten_mask = bool [16,32]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\natten_mask = bool [16,40]"},
    {"PREFIX-009", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [3]\natten_mask = bool [16,34]",
     PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\nactual_shared_prefix_len = [3]\natten_mask = bool [16,35]"},
    {"PREFIX-010", PREFILL, "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\npse_shift = fp16 [1,2,16,32]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\npse_shift = fp16 [1,2,16,40]"},
    /* pse_shift */
    {"PSE-001", PREFILL, "pse_shift = bf16 [1,2,16,32]", PREFILL,
     "pse_shift = fp16 [1,2,16,32]"},
    {"PSE-002", DECODE, "pse_shift = bf16 [2,2,1,32]", DECODE,
     "pse_shift = fp16 [2,2,1,32]"},
    {"PSE-003", PREFILL, "pse_shift = fp16 [2,2,16,32]", PREFILL,
     "pse_shift = fp16 [1,2,16,32]"},
    {"PSE-003", DECODE, "pse_shift = fp16 [2,1,1,32]", DECODE,
     "pse_shift = fp16 [1,2,1,32]"},
    {"PSE-003", PREFILL, "pse_shift = fp16 [2,16,32]", PREFILL,
     "pse_shift = fp16 [1,2,16,32]"},
    /* the released code's lead dims: one head for all too (cann) */
    {"PSE-006", DECODE, "pse_shift = fp16 [2,3,1,32]", DECODE,
     "pse_shift = fp16 [1,1,1,32]"},
    {"PSE-004", PREFILL, "pse_shift = fp16 [1,2,15,32]", PREFILL,
     "pse_shift = fp16 [1,2,20,48]"},
    {"PSE-004", DECODE, "pse_shift = fp16 [2,2,1,31]", DECODE,
     "pse_shift = fp16 [2,2,1,40]"},
    {"PSE-004", DECODE, "pse_shift = fp16 [2,2,2,32]", DECODE,
     "pse_shift = fp16 [2,2,1,32]"},
    {"PSE-004", PAGED_D, "pse_shift = fp16 [2,32,1,200]", PAGED_D,
     "pse_shift = fp16 [2,32,1,208]"},
    {"PSE-005", DECODE,
     "query = fp16 [2,2,1,72]\nkey = fp16 [2,2,32,72]\n"
     "value = fp16 [2,2,32,72]\npse_shift = fp16 [2,2,1,32]",
     DECODE,
     "query = fp16 [2,2,1,72]\nkey = fp16 [2,2,32,72]\n"
     "value = fp16 [2,2,32,72]"},
    {"PSE-N01", PREFILL, "pse_shift = fp16 [1,2,0,32]", PREFILL,
     "pse_shift = fp16 [1,2,16,32]"},

#include "oracle_cases_quant.h"
    {"PAGED-N01", PREFILL, "block_size = 128", PREFILL, ""},
    /* page attention */
    {"PAGED-001", PAGED_P,
     "key = fp16 [4,2,128,64]; fp16 [4,2,128,64]\n"
     "value = fp16 [4,2,128,64]; fp16 [4,2,128,64]", PAGED_P, ""},
    {"PAGED-002", PAGED_P, "kv_padding_size = int64 [1]", PAGED_D, ""},
    {"PAGED-003", PAGED_D,
     "key_shared_prefix = fp16 [1,16,256]\nvalue_shared_prefix = fp16 [1,16,256]",
     PAGED_P, ""},
    {"PAGED-004", PAGED_D, "key = int4 [20,16,256]\nvalue = int4 [20,16,256]",
     PAGED_D, ""},
    {"PAGED-005", PAGED_P, "block_size = 192", PAGED_P,
     "block_size = 512\nkey = fp16 [2,2,512,64]\nvalue = fp16 [2,2,512,64]\n"
     "block_table = int32 [2,1]"},
    {"PAGED-006", PAGED_D, "block_size = 24", PAGED_D,
     "block_size = 48\nkey = fp16 [8,48,256]\nvalue = fp16 [8,48,256]"},
    {"PAGED-007", PAGED_P, "query = int8 [2,2,16,64]\n"
     "attention_out = fp16 [2,2,16,64]", PAGED_D, ""},
    {"PAGED-008", PAGED_P, "antiquant_scale = fp16 [1]", PAGED_D,
     "antiquant_scale = fp16 [1]"},
    {"PAGED-009", PAGED_D, "actual_seq_lengths_kv = DROP", PAGED_D, ""},
    {"PAGED-010", PAGED_P,
     "key = fp16 [4,2,128,64,1]\nvalue = fp16 [4,2,128,64,1]", PAGED_D, ""},
    {"PAGED-011", PAGED_P, "input_layout = BSND\nquery = fp16 [2,16,2,64]",
     PAGED_P, "input_layout = BNSD_BSND\nattention_out = fp16 [2,16,2,64]"},
    {"PAGED-012", PAGED_P,
     "key = fp16 [4,2,256,64]\nvalue = fp16 [4,2,256,64]", PAGED_D,
     "input_layout = BSH\nquery = fp16 [2,1,2048]"},
    {"PAGED-013", PAGED_D,
     "num_heads = 256\nnum_key_value_heads = 256\nquery = fp16 [2,256,1,512]\n"
     "key = fp16 [20,16,131072]\nvalue = fp16 [20,16,131072]",
     PAGED_D,
     "num_heads = 256\nnum_key_value_heads = 256\nquery = fp16 [2,256,1,512]\n"
     "key = fp16 [20,256,16,512]\nvalue = fp16 [20,256,16,512]"},
    {"PAGED-014", PAGED_P, "block_table = int32 [3,2]", PAGED_P,
     "block_table = int32 [2,7]"},
    {"PAGED-015", PAGED_D, "block_table = int32 [2,12]", PAGED_P,
     "actual_seq_lengths_kv = [256,0]\nblock_table = int32 [2,2]"},
    {"PAGED-016", PAGED_P, "key = fp16 [2,2,128,64]\nvalue = fp16 [2,2,128,64]",
     PAGED_P, "key = fp16 [3,2,128,64]\nvalue = fp16 [3,2,128,64]"},
    {"PAGED-017", PAGED_D,
     "key = fp16 [1048576,16,256]\nvalue = fp16 [1048576,16,256]", PAGED_D,
     "key = fp16 [524287,16,256]\nvalue = fp16 [524287,16,256]"},
    {"PAGED-018", PAGED_D, "kv_padding_size = int64 [1]", PAGED_D,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [1,1]"},
    {"NM-007", TND, "query_padding_size = int64 [1]", TND,
     "query_padding_size = int64 [0]"},
    {"NM-007", LIST3,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [9,9,9]", LIST3,
     "kv_padding_size = int64 [1]"},
    {"PAD-N01", PREFILL, "query_padding_size = int64 [1]", PREFILL,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [8]"},
    {"PAD-N02", DECODE, "kv_padding_size = int64 [1]", DECODE,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20,9]"},
    {"PAD-N03", LIST3,
     "query = fp16 [3,2,1,64]\nkv_padding_size = int64 [1]\n"
     "actual_seq_lengths_kv = [9,9,9]",
     LIST3, "query = fp16 [3,2,1,64]\nkv_padding_size = int64 [1]"},
    {"PAD-N04", PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "atten_mask = bool [16,32]",
     PREFILL, "atten_mask = bool [16,32]\nactual_seq_lengths_kv = [20]"},
    {"PAD-N05", PREFILL, "kv_padding_size = int64 [0]", PREFILL,
     "kv_padding_size = int64 [1]"},
    /* left padding: a padding tensor with its lengths */
    {"PAD-X01", PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "key = int4 [1,2,32,64]\nvalue = int4 [1,2,32,64]",
     PREFILL,
     "kv_padding_size = int64 [1]\nkey = int4 [1,2,32,64]\n"
     "value = int4 [1,2,32,64]"},
    {"PAD-X02", PREFILL,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [8]\n"
     "key_shared_prefix = fp16 [1,2,8,64]\n"
     "value_shared_prefix = fp16 [1,2,8,64]",
     DECODE,
     "query_padding_size = int64 [1]\nactual_seq_lengths = [1]\n"
     "key_shared_prefix = fp16 [1,2,8,64]\n"
     "value_shared_prefix = fp16 [1,2,8,64]"},
    {"PAD-X03", DECODE,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20,9]\n"
     "key_antiquant_scale = fp32 [2,32]\nvalue_antiquant_scale = fp32 [2,32]",
     DECODE,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20,9]\n"},
    {"PAD-X04", PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "quant_scale2 = fp32 [2,64]",
     PREFILL,
     "kv_padding_size = int64 [1]\nactual_seq_lengths_kv = [20]\n"
     "quant_scale2 = fp32 [1]"},
    {"NM-008", PREFILL, "actual_shared_prefix_len = [4]", PREFILL,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "actual_shared_prefix_len = [4]"},
    {"NM-008", DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "atten_mask = bool [2,1,1,32]",
     DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "atten_mask = bool [2,1,1,0]"},
    {"NM-008", DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "pse_shift = fp16 [2,2,1,32]",
     DECODE,
     "key_shared_prefix = fp16 [1,2,8,64]\nvalue_shared_prefix = fp16 [1,2,8,64]\n"
     "pse_shift = fp16 [2,2,1,40]"},
    {"NM-008", TND,
     "key_shared_prefix = bf16 [1,8,2,128]\nvalue_shared_prefix = bf16 [1,8,2,128]",
     TND, ""},
    /* key/value tensor lists: B = 3, tensors of S 32, 20, 9 */
    {"LIST-001", LIST3, "key_shared_prefix = fp16 [1,2,8,64]\n"
     "value_shared_prefix = fp16 [1,2,8,64]", LIST3, ""},
    {"LIST-002", LIST3, "key_antiquant_scale = fp32 [3,32]\n"
     "value_antiquant_scale = fp32 [3,32]", LIST3, ""},
    {"LIST-003", LIST3, "query = fp16 [257,2,16,64]", LIST3, ""},
    {"LIST-004", LIST3, "query = fp16 [2,2,16,64]", PREFILL, ""},
    {"LIST-005", LIST3,
     "key = fp16 [1,2,32,64]; fp16 [2,2,20,64]; fp16 [1,2,9,64]\n"
     "value = fp16 [1,2,32,64]; fp16 [2,2,20,64]; fp16 [1,2,9,64]",
     LIST3, ""},
    {"LIST-006", LIST3,
     "key = fp16 [1,2,32,64]; fp16 [1,2,20,32]; fp16 [1,2,9,64]\n"
     "value = fp16 [1,2,32,64]; fp16 [1,2,20,32]; fp16 [1,2,9,64]",
     LIST3, ""},
    {"LIST-007", LIST3, "actual_seq_lengths_kv = [32,21,9]", LIST3,
     "actual_seq_lengths_kv = [32,20,0]"},
    {"MLA-001", MLA_D, "key_rope = null", MLA_D, ""},
    {"MLA-002", MLA_D, "query_rope = fp16 [2,1,2048]", MLA_P, ""},
    {"MLA-003", PREFILL,
     "query_rope = fp16 [1,2,16,64]\nkey_rope = fp16 [1,2,32,64]", MLA_T,
     ""},
    {"MLA-004", MLA_D, "query_rope = bf16 [2,1,1024]", MLA_P, ""},
    {"MLA-005", MLA_D, "key_rope = bf16 [6,16,32]", MLA_P, ""},
    {"MLA-005", MLA_P, "key_rope = bf16 [2,128,64]", MLA_T, ""},
    {"MLA-010", MLA_P, "query = bf16 [1,32,17,512]\n"
     "query_rope = bf16 [1,32,17,64]", MLA_P, ""},
    {"MLA-011", MLA_D, "num_heads = 16\nquery = bf16 [2,1,8192]\n"
     "query_rope = bf16 [2,1,1024]", MLA_D, "num_heads = 128\n"
     "query = bf16 [2,1,65536]\nquery_rope = bf16 [2,1,8192]"},
    {"MLA-017", MLA_D, "num_heads = 12\nquery = bf16 [2,1,6144]\n"
     "query_rope = bf16 [2,1,768]", MLA_D, "num_heads = 16\n"
     "query = bf16 [2,1,8192]\nquery_rope = bf16 [2,1,1024]"},
    {"MLA-012", MLA_D, "num_key_value_heads = 2\nkey = bf16 [6,16,1024]\n"
     "value = bf16 [6,16,1024]\nkey_rope = bf16 [6,16,128]", MLA_P, ""},
    {"MLA-013", MLA_D, "sparse_mode = 3", MLA_D, ""},
    {"MLA-013", MLA_P, "sparse_mode = 0\natten_mask = null", MLA_P, ""},
    {"MLA-014", MLA_P, "input_layout = BNSD_BSND", MLA_P, ""},
    {"MLA-015", MLA_D, "block_table = null", MLA_D, ""},
    {"MLA-016", MLA_D, "block_size = 32\nkey = bf16 [6,32,512]\n"
     "value = bf16 [6,32,512]\nkey_rope = bf16 [6,32,64]\n"
     "block_table = int32 [2,2]", MLA_P, ""},
    {"MLA-X01", MLA_D, "softmax_lse_flag = true", MLA_D, ""},
    {"MLA-020", MLA_T, "input_layout = TND_NTD", MLA_T,
     "input_layout = NTD_TND\nquery = bf16 [4,17,128]\n"
     "key = bf16 [2,43,128]\nvalue = bf16 [2,43,128]\n"
     "query_rope = bf16 [4,17,64]\nkey_rope = bf16 [2,43,64]"},
    {"MLA-X02", MLA_T, "pse_shift = bf16 [3,4,12,30]", MLA_T, ""},
    {"MLA-022", MLA_T, "value = bf16 [43,2,64]", MLA_T, ""},
    /* full quantization (MLA-05x, MLA-X03, QQ-*, NM-010) */
    {"MLA-002", MLA_FQ, "query_rope = fp16 [2,1,2048]", MLA_FQ, ""},
    {"MLA-002", MLA_FQ, "key_rope = fp16 [6,16,64]", MLA_FQZ, ""},
    {"MLA-050", MLA_FQ, "key = bf16 [6,16,512]\nvalue = bf16 [6,16,512]",
     MLA_FQ, ""},
    {"MLA-051", MLA_FQ, "attention_out = fp16 [2,1,16384]", MLA_FQ, ""},
    {"MLA-051", MLA_FQZ, "attention_out = int8 [1,4,32,512]", MLA_FQZ, ""},
    {"MLA-052", MLA_FQ, "value_antiquant_scale = null", MLA_FQ, ""},
    {"MLA-052", MLA_FQZ, "dequant_scale_query = null", MLA_FQZ, ""},
    {"MLA-053", MLA_FQ, "key_antiquant_scale = bf16 [1]", MLA_FQ, ""},
    {"MLA-054", MLA_FQ, "key_antiquant_mode = 1\nvalue_antiquant_mode = 1",
     MLA_FQ, ""},
    {"MLA-055", MLA_FQ, "value_antiquant_scale = fp32 [512]", MLA_FQ, ""},
    {"MLA-055", MLA_FQZ, "key_antiquant_scale = fp32 [1,1]", MLA_FQZ, ""},
    {"MLA-X03", MLA_FQ, "key_antiquant_offset = fp32 [1]", MLA_FQ, ""},
    {"MLA-X03", MLA_FQZ, "quant_scale2 = fp32 [1]", MLA_FQZ, ""},
    {"NM-010", MLA_FQ, "dequant_scale1 = fp32 [1]", MLA_FQ, ""},
    {"QQ-001", PREFILL, "query_quant_mode = 2", PREFILL,
     "query_quant_mode = 0"},
    {"QQ-002", MLA_FQ, "query_quant_mode = 0", MLA_FQZ, ""},
    {"QQ-003", MLA_FQ, "dequant_scale_query = fp32 [2,32,1]", MLA_FQZ, ""},
    {"QQ-003", MLA_FQZ, "dequant_scale_query = fp32 [1,4,32,1]", MLA_FQ,
     ""},
    {"QQ-003", MLA_FQZ, "input_layout = BNSD\nkey = int8 [2,1,128,512]\n"
     "value = int8 [2,1,128,512]\nkey_rope = bf16 [2,1,128,64]\n"
     "query = int8 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "attention_out = bf16 [1,32,4,512]", MLA_FQZ,
     "input_layout = BNSD\nkey = int8 [2,1,128,512]\n"
     "value = int8 [2,1,128,512]\nkey_rope = bf16 [2,1,128,64]\n"
     "query = int8 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "attention_out = bf16 [1,32,4,512]\n"
     "dequant_scale_query = fp32 [1,32,4]"},
    /* the *_NBSD outputs (MLA) */
    {"MLA-030", MLA_NBSD, "query_rope = null\nkey_rope = null", MLA_NBSD,
     ""},
    {"NM-016", MLA_NBSD, "query_rope = null\nkey_rope = null", MLA_NBSD,
     ""},
    /* 004's out_dtype: read, and refused once every rule has judged */
    {"NM-017", PREFILL, "out_dtype = 1", PREFILL, "out_dtype = null"},
    {"NM-019", DECODE, "pse_shift = fp16 [1,1,1,32]", DECODE,
     "pse_shift = fp16 [1,2,1,32]"},
    {"NM-018", PREFILL, "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
     "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]", PREFILL,
     ""},
    {"MLA-031", MLA_NBSD, "query = bf16 [1,1,16384]\n"
     "query_rope = bf16 [1,1,2048]\nattention_out = bf16 [32,1,1,512]\n"
     "sparse_mode = 0\natten_mask = null", MLA_NBSD,
     "query = bf16 [1,16,16384]\nquery_rope = bf16 [1,16,2048]\n"
     "attention_out = bf16 [32,1,16,512]"},
    {"MLA-031", MLA_NBSD, "query = bf16 [1,17,16384]\n"
     "query_rope = bf16 [1,17,2048]\nattention_out = bf16 [32,1,17,512]",
     MLA_NBSD, "query = bf16 [1,2,16384]\nquery_rope = bf16 [1,2,2048]\n"
     "attention_out = bf16 [32,1,2,512]"},
    {"OUT-003", MLA_NBSD, "attention_out = bf16 [1,4,16384]", MLA_NBSD,
     ""},
    {"OUT-003", MLA_NBSD, "attention_out = bf16 [1,32,4,512]", MLA_NBSD,
     "input_layout = BSND_NBSD\nquery = bf16 [1,4,32,512]\n"
     "query_rope = bf16 [1,4,32,64]"},
    {"MLA-014", MLA_NBSD, "input_layout = BNSD_BSND\n"
     "query = bf16 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]",
     MLA_NBSD, "input_layout = BNSD_NBSD\nquery = bf16 [1,32,4,512]\n"
     "query_rope = bf16 [1,32,4,64]\nkey = bf16 [2,1,128,512]\n"
     "value = bf16 [2,1,128,512]\nkey_rope = bf16 [2,1,128,64]"},
    /* the NZ cache (MLA, D = 512) */
    {"PAGED-010", MLA_NZ, "query_rope = null\nkey_rope = null", MLA_NZ,
     ""},
    {"MLA-040", MLA_NZ, "key = bf16 [2,1,16,128,32]\n"
     "value = bf16 [2,1,16,128,32]", MLA_NZ, ""},
    {"MLA-040", MLA_NZ, "key = bf16 [2,1,32,16,16]\n"
     "value = bf16 [2,1,32,16,16]", MLA_NZ, ""},
    {"MLA-005", MLA_NZ, "key_rope = bf16 [2,1,2,128,32]", MLA_NZ, ""},
    {"MLA-041", MLA_NZ, "input_layout = BNSD\nquery = bf16 [1,32,4,512]\n"
     "query_rope = bf16 [1,32,4,64]", MLA_NZ,
     "input_layout = BSND\nquery = bf16 [1,4,32,512]\n"
     "query_rope = bf16 [1,4,32,64]"},
    {"MLA-041", MLA_NZ, "input_layout = BNSD_NBSD\n"
     "query = bf16 [1,32,4,512]\nquery_rope = bf16 [1,32,4,64]\n"
     "attention_out = bf16 [32,1,4,512]", MLA_NZ,
     "input_layout = BSH_NBSD\nattention_out = bf16 [32,1,4,512]"},
    {"MLA-042", MLA_NZ, "block_size = 16\nkey = bf16 [10,1,32,16,16]\n"
     "value = bf16 [10,1,32,16,16]\nkey_rope = bf16 [10,1,4,16,16]\n"
     "block_table = int32 [1,10]", MLA_NZ, ""},
    /* int8 NZ (tiles of 32): full quantization's */
    {"MLA-043", MLA_FQZ, "key = int8 [2,1,32,128,16]\n"
     "value = int8 [2,1,32,128,16]", MLA_FQZ, ""},
    {"MLA-043", MLA_FQZ, "key = int8 [2,1,16,16,32]\n"
     "value = int8 [2,1,16,16,32]", MLA_NZ, ""},
    {"NM-011", PREFILL, "query_quant_mode = 3", PREFILL, ""},
    {"NM-011", MLA_D, "dequant_scale_query = fp32 [2,1,32]", MLA_FQ, ""},
    /* learnable_sink (rules_sink.c): bf16 [N] */
    {"SINK-001", PREFILL, "learnable_sink = fp16 [2]", PREFILL,
     "learnable_sink = bf16 [2]"},
    {"SINK-001", TND, "learnable_sink = fp32 [4]", TND,
     "learnable_sink = bf16 [4]"},
    {"SINK-001", Q8_P, "learnable_sink = fp16 [2]", DECODE,
     "learnable_sink = bf16 [2]"},
    {"SINK-002", PREFILL, "learnable_sink = bf16 [0]", PREFILL,
     "learnable_sink = bf16 [2]"},
    {"SINK-002", DECODE, "learnable_sink = bf16 [1,2]", DECODE,
     "learnable_sink = bf16 [2]"},
    {"SINK-002", TND, "learnable_sink = bf16 [2]", TND,
     "learnable_sink = bf16 [4]"},
    {"SINK-002", MLA_D, "learnable_sink = bf16 [1]", PAGED_D,
     "learnable_sink = bf16 [32]"},
    /* narrowed: 002's full int8 (an int8 query without rope); a late row,
     * after every rule.  With MLA (D 512, D 128, its full quantization)
     * the sink is modeled: those calls obey it. */
    {"NM-015", Q8_P, "learnable_sink = bf16 [2]", PREFILL,
     "learnable_sink = bf16 [2]"},
    {"NM-015", Q8_P, "learnable_sink = bf16 [2]", MLA_D,
     "learnable_sink = bf16 [32]"},
    {"NM-015", Q8_P, "learnable_sink = bf16 [2]", MLA_FQ,
     "learnable_sink = bf16 [32]"},
    {"NM-015", Q8_P, "learnable_sink = bf16 [2]", MLA_FQZ,
     "learnable_sink = bf16 [32]"},
    {"NM-015", Q8_P, "learnable_sink = bf16 [2]", MLA_T,
     "learnable_sink = bf16 [4]"},
    /* 003 / 004's reserved *_dtype (rules_reserved.c): applies when one
     * is given, the call accepted as with None */
    {"RSV-N01", V2_PREFILL("torch_npu_v2"), "query_dtype = 5",
     V2_PREFILL("torch_npu_v2"), "query_dtype = null"},
    {"RSV-N01", V2_PREFILL("torchair_v2"),
     "dequant_scale_key_rope_dtype = -1", V2_PREFILL("torchair_v2"), ""},
    /* 001's inference card (rules_product.c) */
    {"PROD-001", CARD, "query = bf16 [2,2,1,64]\nkey = bf16 [2,2,32,64]\n"
     "value = bf16 [2,2,32,64]", A2_IFA, "query = bf16 [2,2,1,64]\n"
     "key = bf16 [2,2,32,64]\nvalue = bf16 [2,2,32,64]"},
    {"PROD-002", CARD, "value = bf16 [2,2,32,64]", CARD,
     "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
     "antiquant_scale = fp16 [2,2,1,64]"},
    {"PROD-003", CARD, "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
     "antiquant_scale = fp32 [2,2,1,64]", CARD,
     "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
     "antiquant_scale = fp16 [2,2,1,64]\nantiquant_offset = fp16 [2,2,1,64]"},
    {"PROD-004", CARD, "pse_shift = fp16 [2,2,1,32]", CARD,
     "pse_shift = fp16 [2,2,1,0]"},
    {"PROD-005", CARD, "quant_scale2 = fp32 [1]", A2_IFA,
     "quant_scale2 = fp32 [1]"},
    {"PROD-006", CARD, "query = fp16 [257,2,1,64]\nkey = fp16 [257,2,32,64]\n"
     "value = fp16 [257,2,32,64]", CARD, "query = fp16 [256,2,1,64]\n"
     "key = fp16 [256,2,32,64]\nvalue = fp16 [256,2,32,64]"},
    {"PROD-007", CARD, "key = fp16 [2,2,65537,64]\nvalue = fp16 [2,2,65537,64]",
     CARD, "key = fp16 [2,2,65536,64]\nvalue = fp16 [2,2,65536,64]"},
    {"TND-001", TND, "query = bf16 [1,17,4,128]", TND, ""},
    {"TND-002", TND, "key = bf16 [1,43,2,128]\nvalue = bf16 [1,43,2,128]",
     TND, ""},
    {"TND-003", TND, "query = bf16 [17,8,128]", TND, ""},
    {"TND-004", TND, "value = bf16 [43,4,128]", TND, ""},
    {"TND-005", TND, "value = bf16 [40,2,128]", TND, ""},
    {"TND-006", TND, "actual_seq_lengths = null", TND, ""},
    {"TND-007", TND, "actual_seq_lengths_kv = null", TND, ""},
    {"TND-008", TND, "actual_seq_lengths_kv = [13,43]", TND, ""},
    {"TND-009", TND,
     "actual_seq_lengths = [" C4096("17,") "17]\n"
     "actual_seq_lengths_kv = [" C4096("43,") "43]",
     TND, ""},
    {"TND-010", TND, "actual_seq_lengths = [5,4,17]", TND, ""},
    {"TND-011", TND, "actual_seq_lengths_kv = [-9,13,43]", TND, ""},
    {"TND-012", TND, "actual_seq_lengths = [5,5,16]", TND, ""},
    {"TND-013", TND, "actual_seq_lengths_kv = [9,13,42]", TND, ""},
    {"TND-014", TND,
     "query = bf16 [1048577,4,128]\nactual_seq_lengths = [5,5,1048577]",
     TND, ""},
    {"TND-015", TND,
     "query = fp16 [17,4,128]\nkey = fp16 [43,2,128]\n"
     "value = fp16 [43,2,128]",
     TND, ""},
    {"TND-016", TND,
     "query = bf16 [17,4,64]\nkey = bf16 [43,2,64]\nvalue = bf16 [43,2,64]",
     TND, ""},
    {"TND-017", TND,
     "query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
     "value = bf16 [43,2,192]",
     TND, ""},
    {"TND-018", TND, "sparse_mode = 4\natten_mask = bool [2048,2048]", TND,
     "sparse_mode = 3\natten_mask = bool [2048,2048]"},
    {"TND-019", TND, "atten_mask = bool [17,43]", TND, ""},
    {"TND-020", TND, "sparse_mode = 3", TND,
     "sparse_mode = 3\natten_mask = bool [2048,2048]"},
    {"TND-021", TND, "sparse_mode = 3\natten_mask = bool [17,43]", TND,
     "sparse_mode = 3\natten_mask = bool [1,1,2048,2048]"},
    {"TND-022", TND,
     "sparse_mode = 3\natten_mask = bool [2048,2048]\n"
     "actual_seq_lengths = [9,9,17]",
     TND, "sparse_mode = 3\natten_mask = bool [2048,2048]"},
    {"TND-023", TND, "input_layout = TND_NTD", TND, ""},
    {"TND-024", TND,
     "input_layout = NTD\nquery = bf16 [4,17,128]\nkey = bf16 [2,43,128]\n"
     "value = bf16 [2,43,128]",
     TND, ""},
    {"TND-025", TND, "attention_out = bf16 [4,17,128]", TND,
     "attention_out = bf16 [17,4,128]"},
    /* value narrower than the query: the output takes value's D */
    {"TND-025", TND,
     "query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
     "value = bf16 [43,2,128]\nattention_out = bf16 [17,4,192]",
     TND,
     "query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
     "value = bf16 [43,2,128]\nattention_out = bf16 [17,4,128]"},
    {"TND-026", TND, "softmax_lse_flag = true\nsoftmax_lse = fp32 [3,4,17,1]",
     TND, "softmax_lse_flag = true\nsoftmax_lse = fp32 [17,4,1]"},
    {"TND-X01", TND,
     "key = bf16 [9,2,128]; bf16 [4,2,128]; bf16 [30,2,128]\n"
     "value = bf16 [9,2,128]; bf16 [4,2,128]; bf16 [30,2,128]",
     TND, ""},
    {"TND-X02", TND, "pse_shift = bf16 [1,4,17,43]", TND, ""},
    {"TND-X03", TND,
     "key = bf16 [4,128,256]\nvalue = bf16 [4,128,256]\nblock_size = 128\n"
     "block_table = int32 [3,1]",
     TND, ""},
    {"TND-X04", TND, "key_antiquant_scale = bf16 [2,128]", TND, ""},
    {"TND-X05", TND, "dequant_scale_query = fp32 [17,4,1]", TND, ""},
    {"TND-X06", TND, "quant_offset2 = bf16 [1]", TND, ""},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static void test_rule_cases(void)
{
    static const fia_profile profiles[] = {FIA_PROFILE_DOC, FIA_PROFILE_CANN};
    for (size_t i = 0; i < N_CASES; i++) {
        const rule_case *rc = &cases[i];
        const fia_rule *r = fia_rule_find(rc->id);
        CHECK_MSG(r != NULL, "rule %s not in the catalogue", rc->id);
        if (!r)
            continue;
        char *brk = mk(rc->base_break, rc->over_break);
        char *oby = mk(rc->base_obey, rc->over_obey);
        for (int k = 0; k < 2; k++) {
            fia_oracle_verdict v;
            /* a row of profile cann only is not evaluated in doc */
            if (r->cann_only && profiles[k] != FIA_PROFILE_CANN)
                continue;
            int rc1 = eval(brk, profiles[k], &v);
            CHECK_MSG(rc1 == 0, "%s: break case did not evaluate", rc->id);
            if (rc1 == 0) {
                CHECK_MSG(rule_in_verdict(&v, rc->id),
                          "%s (%s): break case does not fire it", rc->id,
                          fia_profile_name(profiles[k]));
                fia_status want = expected_for(r, profiles[k]);
                /* a rejection of the other profile only (MLA-030: the
                 * released code's), or a late not-modeled row another
                 * rule's rejection decides in this profile (NM-016 in
                 * cann): fired, the status another row's */
                const int other =
                    (r->kind != FIA_RULE_NORMALIZE && want == FIA_OK) ||
                    (r->kind == FIA_RULE_NOT_MODELED &&
                     r->layer == FIA_LAYER_ARITHMETIC &&
                     decided_by_reject(&v, profiles[k]));
                CHECK_MSG(other || v.expected == want,
                          "%s (%s): break case expects %d, want %d", rc->id,
                          fia_profile_name(profiles[k]), (int)v.expected,
                          (int)want);
                CHECK_MSG(other || v.accept == (want == FIA_OK),
                          "%s: accept flag", rc->id);
                CHECK_MSG(other ||
                              v.not_modeled == (want == FIA_ERR_NOT_MODELED),
                          "%s: not_modeled flag", rc->id);
            }
            int rc2 = eval(oby, profiles[k], &v);
            CHECK_MSG(rc2 == 0, "%s: obey case did not evaluate", rc->id);
            if (rc2 == 0)
                CHECK_MSG(!rule_in_verdict(&v, rc->id),
                          "%s (%s): obey case fires it", rc->id,
                          fia_profile_name(profiles[k]));
        }
        free(brk);
        free(oby);
    }
}

/* Every catalogue row has a test case above. */
static void test_coverage(void)
{
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        int found = 0;
        for (size_t j = 0; j < N_CASES; j++)
            if (strcmp(cases[j].id, r->id) == 0)
                found = 1;
        CHECK_MSG(found, "rule %s has no break/obey test", r->id);
    }
}

static void test_catalogue(void)
{
    size_t n = fia_rule_count();
    CHECK(n > 50);
    /* a verdict lists each rule at most once in one of its lists */
    CHECK_MSG(n <= FIA_ORACLE_MAX_RULES, "the catalogue has %zu rules, more "
              "than FIA_ORACLE_MAX_RULES (%d): raise it in "
              "include/fia/oracle.h", n, FIA_ORACLE_MAX_RULES);
    CHECK(fia_rule_at(n) == NULL);
    CHECK(fia_rule_find("NO-SUCH-RULE") == NULL);
    CHECK(fia_rule_find(NULL) == NULL);
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        CHECK(r != NULL);
        if (!r)
            continue;
        CHECK_MSG(r->id && *r->id, "row %zu: no id", i);
        CHECK_MSG(r->feature && *r->feature, "%s: no feature", r->id);
        /* one list of feature names: include/fia/feature.h */
        CHECK_MSG(r->feature && fia_feature_from_name(r->feature) >= 0,
                  "%s: feature '%s' is not a name of include/fia/feature.h",
                  r->id, r->feature ? r->feature : "(null)");
        CHECK_MSG(r->citation && strlen(r->citation) > 4, "%s: no citation",
                  r->id);
        CHECK_MSG(r->summary && strlen(r->summary) > 10, "%s: no summary",
                  r->id);
        CHECK_MSG(r->fires != NULL, "%s: no predicate", r->id);
        CHECK_MSG(fia_rule_find(r->id) == r, "%s: id not unique", r->id);
        CHECK_MSG(r->layer >= FIA_LAYER_NULLPTR &&
                      (r->layer <= FIA_LAYER_SEMANTIC ||
                       (r->layer == FIA_LAYER_ARITHMETIC &&
                        r->kind == FIA_RULE_NOT_MODELED)),
                  "%s: layer", r->id);
        /* citation starts with a document prefix or RELEASED */
        CHECK_MSG(strncmp(r->citation, "00", 2) == 0 ||
                      strncmp(r->citation, "RELEASED", 8) == 0,
                  "%s: citation '%s'", r->id, r->citation);
        switch (r->kind) {
        case FIA_RULE_REJECT:
            /* a rule of one profile only accepts in the other, with its
             * disagreement note */
            CHECK_MSG(r->doc_status != FIA_OK || r->cann_status != FIA_OK,
                      "%s: no status", r->id);
            CHECK_MSG(r->doc_status == FIA_ERR_PARAM_NULLPTR ||
                          r->doc_status == FIA_ERR_PARAM_INVALID ||
                          (r->doc_status == FIA_OK && r->disagreement),
                      "%s: doc status %d", r->id, (int)r->doc_status);
            CHECK_MSG(r->cann_status == FIA_ERR_PARAM_NULLPTR ||
                          r->cann_status == FIA_ERR_PARAM_INVALID ||
                          r->cann_status == FIA_ERR_INNER_TILING_ERROR ||
                          (r->cann_status == FIA_OK && r->disagreement),
                      "%s: cann status %d", r->id, (int)r->cann_status);
            if (r->layer == FIA_LAYER_NULLPTR)
                CHECK_MSG(r->doc_status == FIA_ERR_PARAM_NULLPTR, "%s",
                          r->id);
            if (r->layer == FIA_LAYER_DTYPE)
                CHECK_MSG(r->doc_status == FIA_ERR_PARAM_INVALID &&
                              r->cann_status == FIA_ERR_PARAM_INVALID,
                          "%s", r->id);
            if (r->layer == FIA_LAYER_SEMANTIC && r->cann_status != FIA_OK &&
                r->doc_status != FIA_OK)
                CHECK_MSG(r->doc_status == FIA_ERR_PARAM_INVALID &&
                              r->cann_status == FIA_ERR_INNER_TILING_ERROR,
                          "%s", r->id);
            break;
        case FIA_RULE_NOT_MODELED:
            /* both profiles, or one of them (FIA_OK in the other, with
             * the reason) */
            CHECK_MSG((r->doc_status == FIA_ERR_NOT_MODELED ||
                       (r->doc_status == FIA_OK && r->disagreement)) &&
                          (r->cann_status == FIA_ERR_NOT_MODELED ||
                           (r->cann_status == FIA_OK && r->disagreement)),
                      "%s", r->id);
            break;
        case FIA_RULE_NORMALIZE:
            CHECK_MSG(r->doc_status == FIA_OK && r->cann_status == FIA_OK,
                      "%s", r->id);
            break;
        }
    }
}

static void expect_both(const char *text, fia_status doc, fia_status cann,
                        const char *what)
{
    fia_oracle_verdict v;
    CHECK_MSG(eval(text, FIA_PROFILE_DOC, &v) == 0, "%s: eval", what);
    CHECK_MSG(v.expected == doc, "%s: doc %d want %d", what, (int)v.expected,
              (int)doc);
    CHECK_MSG(eval(text, FIA_PROFILE_CANN, &v) == 0, "%s: eval", what);
    CHECK_MSG(v.expected == cann, "%s: cann %d want %d", what,
              (int)v.expected, (int)cann);
}

/* fiacheck rules --profiles-differ: the rows the released code reads
 * otherwise are listed, each with its reason; rows whose profiles agree
 * are not. */
static void test_profiles_differ(void)
{
    static const char *const differ[] = {
        "LAYOUT-002", "LAYOUT-006", "LAYOUT-014", "OUT-003", "OUT-005",
        "MLA-011", "MLA-017", "NM-018", "MLA-030", "PSE-003", "PSE-006",
        "NM-019"};
    for (size_t i = 0; i < sizeof differ / sizeof differ[0]; i++) {
        const fia_rule *r = fia_rule_find(differ[i]);
        CHECK_MSG(r && fia_rule_profiles_differ(r), "%s not listed",
                  differ[i]);
    }
    static const char *const agree[] = {"LAYOUT-001", "LAYOUT-013",
                                        "OUT-001", "MLA-012", "NM-017",
                                        "LAYOUT-N01"};
    for (size_t i = 0; i < sizeof agree / sizeof agree[0]; i++)
        CHECK_MSG(!fia_rule_profiles_differ(fia_rule_find(agree[i])),
                  "%s listed", agree[i]);
    size_t n = fia_rule_count();
    for (size_t i = 0; i < n; i++) {
        const fia_rule *r = fia_rule_at(i);
        CHECK_MSG(!r->cann_only || r->doc_status == FIA_OK,
                  "%s: a cann-only row with a doc status", r->id);
        if (!fia_rule_profiles_differ(r))
            continue;
        CHECK_MSG(r->disagreement != NULL, "%s differs without a reason",
                  r->id);
        CHECK_MSG(r->kind != FIA_RULE_NORMALIZE, "%s", r->id);
        const int doc_ok = r->doc_status == FIA_OK,
                  cann_ok = r->cann_status == FIA_OK;
        CHECK_MSG(doc_ok != cann_ok ||
                      (r->doc_status == FIA_ERR_NOT_MODELED) !=
                          (r->cann_status == FIA_ERR_NOT_MODELED),
                  "%s: the outcomes agree", r->id);
    }
}

/* The released code's tiling tests (issue 33): what profile cann accepts
 * where the documents reject, and what both still reject. */
static void test_vendor_readings(void)
{
    static const struct {
        const char *base, *over;
        fia_status doc, cann;
        const char *what;
    } vt[] = {
        /* tCrossover_BNSD_BSND_success: BNSD_BSND at Q_S = 1 */
        {DECODE, "input_layout = BNSD_BSND\nattention_out = fp16 [2,1,2,64]",
         FIA_ERR_PARAM_INVALID, FIA_OK, "BNSD_BSND decode (LAYOUT-002)"},
        /* tMLA_G16_FP16_BSH, tMLA_TND_FP16: 16 and 1 heads at D 512 */
        {MLA_D, "num_heads = 16\nquery = bf16 [2,1,8192]\n"
         "query_rope = bf16 [2,1,1024]", FIA_ERR_PARAM_INVALID, FIA_OK,
         "MLA 16 heads (MLA-011)"},
        {MLA_D, "num_heads = 1\nquery = bf16 [2,1,512]\n"
         "query_rope = bf16 [2,1,64]", FIA_ERR_PARAM_INVALID, FIA_OK,
         "MLA 1 head (MLA-011)"},
        /* tMLA_RopeCombine_*: value D 128 beside 192, out of value's D,
         * not computed in cann (NM-018) */
        {PREFILL, "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
         "value = fp16 [1,2,32,128]\nattention_out = fp16 [1,2,16,128]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_NOT_MODELED, "value D 128 prefill"},
        /* tErr_value_D_neq_out_D: out of the query's D at Q_S > 1 */
        {PREFILL, "query = fp16 [1,2,16,192]\nkey = fp16 [1,2,32,192]\n"
         "value = fp16 [1,2,32,128]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "value D 128, out 192 prefill"},
        /* tErr_PA_value_D_neq_vHeadDim: decode keeps the query's D */
        {DECODE, "query = fp16 [2,2,1,192]\nkey = fp16 [2,2,32,192]\n"
         "value = fp16 [2,2,32,128]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_NOT_MODELED, "value D 128 decode"},
        /* tErr_PA_4D_kv_D_mismatch: 128 / 64 stays a rejection */
        {DECODE, "query = fp16 [2,2,1,128]\nkey = fp16 [2,2,32,128]\n"
         "value = fp16 [2,2,32,64]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "value D 64 beside 128"},
        /* not a power of two: both reject (MLA-011 / MLA-017) */
        {MLA_D, "num_heads = 12\nquery = bf16 [2,1,6144]\n"
         "query_rope = bf16 [2,1,768]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "MLA 12 heads (MLA-017)"},
        {MLA_D, "num_heads = 256\nquery = bf16 [2,1,131072]\n"
         "query_rope = bf16 [2,1,16384]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR, "MLA 256 heads (MLA-017)"},
    };
    for (size_t i = 0; i < sizeof vt / sizeof vt[0]; i++) {
        char *t = mk(vt[i].base, vt[i].over);
        expect_both(t, vt[i].doc, vt[i].cann, vt[i].what);
        free(t);
    }
}

static void test_baselines(void)
{
    expect_both(PREFILL, FIA_OK, FIA_OK, "prefill base");
    expect_both(PREFILL3, FIA_OK, FIA_OK, "prefill3 base");
    expect_both(DECODE, FIA_OK, FIA_OK, "decode base");
    expect_both(BSH, FIA_OK, FIA_OK, "bsh base");
    expect_both(MLA_NBSD, FIA_OK, FIA_OK, "MLA BSH_NBSD base");
    expect_both(MLA_NZ, FIA_OK, FIA_OK, "MLA NZ cache base");
    expect_both(MLA_FQ, FIA_OK, FIA_OK, "MLA full quantization base");
    expect_both(MLA_FQZ, FIA_OK, FIA_OK, "MLA full quantization NZ base");
    char *t;
    /* learnable_sink with MLA (NM-015 narrowed): accepted, computed */
    static const struct {
        const char *base, *over, *what;
    } sk[] = {
        {MLA_D, "learnable_sink = bf16 [32]", "MLA decode + sink"},
        {MLA_P, "learnable_sink = bf16 [32]", "MLA Q_S 4 sparse 3 + sink"},
        {MLA_NZ, "learnable_sink = bf16 [32]", "MLA NZ + sink"},
        {MLA_T, "learnable_sink = bf16 [4]", "MLA D 128 TND + sink"},
        {MLA_FQ, "learnable_sink = bf16 [32]", "MLA full quant + sink"},
        {MLA_FQZ, "learnable_sink = bf16 [32]", "MLA full quant NZ + sink"},
    };
    for (size_t i = 0; i < sizeof sk / sizeof sk[0]; i++) {
        t = mk(sk[i].base, sk[i].over);
        expect_both(t, FIA_OK, FIA_OK, sk[i].what);
        free(t);
    }
    /* value's D below the query's (003 TND list; RELEASED head dims):
     * computed, attention_out of value's D; 192/192 is 003's only, 128/192
     * and NTD_TND's 192/192 nobody's */
    static const struct {
        const char *over;
        fia_status doc, cann;
    } vd[] = {
        {"query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
         "value = bf16 [43,2,128]", FIA_OK, FIA_OK},
        {"query = bf16 [17,4,192]\nkey = bf16 [43,2,192]\n"
         "value = bf16 [43,2,192]\nattention_out = bf16 [17,4,192]", FIA_OK,
         FIA_ERR_INNER_TILING_ERROR},
        {"query = bf16 [17,4,128]\nkey = bf16 [43,2,128]\n"
         "value = bf16 [43,2,192]\nattention_out = bf16 [17,4,192]",
         FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR},
        {"input_layout = NTD_TND\nquery = bf16 [4,17,192]\n"
         "key = bf16 [2,43,192]\nvalue = bf16 [2,43,128]", FIA_OK, FIA_OK},
        {"input_layout = NTD_TND\nquery = bf16 [4,17,192]\n"
         "key = bf16 [2,43,192]\nvalue = bf16 [2,43,192]\n"
         "attention_out = bf16 [17,4,192]", FIA_ERR_PARAM_INVALID,
         FIA_ERR_INNER_TILING_ERROR},
    };
    for (size_t i = 0; i < sizeof vd / sizeof vd[0]; i++) {
        t = mk(TND, vd[i].over);
        expect_both(t, vd[i].doc, vd[i].cann, vd[i].over);
        free(t);
    }
    /* a richer valid case: GQA, BSND, mask, seq lengths, lse, precise */
    expect_both("query = bf16 [2,16,8,64]\nkey = bf16 [2,40,2,64]\n"
                "value = bf16 [2,40,2,64]\nnum_heads = 8\n"
                "num_key_value_heads = 2\ninput_layout = BSND\n"
                "atten_mask = uint8 [2,1,16,48]\nactual_seq_lengths = [9,16]\n"
                "actual_seq_lengths_kv = [40]\nsoftmax_lse_flag = true\n"
                "inner_precise = 2\npre_tokens = 3\nnext_tokens = 0\n"
                "scale = 0.125\n",
                FIA_OK, FIA_OK, "rich prefill");
    expect_both("query = fp16 [3,1,256]\nkey = fp16 [3,100,64]\n"
                "value = fp16 [3,100,64]\nnum_heads = 4\n"
                "num_key_value_heads = 1\ninput_layout = BSH\n"
                "atten_mask = bool [3,1,1,100]\n"
                "actual_seq_lengths_kv = [0,50,100]\ninner_precise = 0\n"
                "softmax_lse_flag = true\n",
                FIA_OK, FIA_OK, "rich decode");
    /* the v verdict lists the obeyed rules */
    fia_oracle_verdict v;
    t = mk(PREFILL, "atten_mask = bool [16,32]");
    CHECK(eval(t, FIA_PROFILE_DOC, &v) == 0);
    CHECK(v.accept && v.n_fired == 0 && v.n_obeyed > 10);
    CHECK(in_list(v.obeyed, v.n_obeyed, "MASK-005"));
    CHECK(!in_list(v.obeyed, v.n_obeyed, "MASK-008")); /* decode only */
    free(t);
}

/* Layer precedence: nullptr < dtype < not modeled < semantic. */
static void test_precedence(void)
{
    char *t;
    t = mk(PREFILL, "key = null\nvalue = fp32 [1,2,32,64]\nsparse_mode = 9");
    expect_both(t, FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR,
                "null beats dtype");
    free(t);
    t = mk(PREFILL, "pse_shift = fp16 [1,2,16,32]\nkey = null");
    expect_both(t, FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR,
                "null beats not modeled");
    free(t);
    t = mk(PREFILL, "pse_shift = fp16 [1,2,16,32]\natten_mask = fp32 [16,32]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID,
                "dtype beats not modeled");
    free(t);
    t = mk(TND, "query_padding_size = int64 [1]\nsparse_mode = 9");
    expect_both(t, FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED,
                "not modeled beats semantic");
    free(t);
    /* a late row (NM-011: dequant_scale_query outside MLA full
     * quantization) is decided after every documented rejection */
    t = mk(PREFILL, "dequant_scale_query = fp32 [1,2,16]\nsparse_mode = 9");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "semantic beats a late not modeled");
    free(t);
    /* the prefix's refusal is in the last layer: its own rules and every
     * other semantic rule come first */
    t = mk(DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
                   "value_shared_prefix = fp16 [1,2,8,64]\n"
                   "pse_shift = fp16 [2,2,1,32]\nnum_heads = 3");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "semantic beats the prefix's late not modeled");
    free(t);
    t = mk(DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
                   "value_shared_prefix = fp16 [1,2,8,64]\n"
                   "pse_shift = fp16 [2,2,1,31]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "pse's shape rule beats the prefix's not modeled");
    free(t);
    t = mk(DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
                   "value_shared_prefix = fp16 [1,2,8,64]\n"
                   "pse_shift = fp16 [2,2,1,32]");
    expect_both(t, FIA_ERR_NOT_MODELED, FIA_ERR_NOT_MODELED,
                "decode prefix with a narrow pse: not modeled");
    free(t);
    t = mk(DECODE, "key_shared_prefix = fp16 [1,2,8,64]\n"
                   "value_shared_prefix = fp16 [1,2,8,64]\n"
                   "pse_shift = fp16 [2,2,1,40]");
    expect_both(t, FIA_OK, FIA_OK, "decode prefix with a pse of P + KV_S");
    free(t);
    /* the sink's not-modeled row (full int8, rope) is late: a wrong sink
     * and MLA's own rules come first; a valid sink elsewhere computes */
    t = mk(MLA_D, "learnable_sink = bf16 [32]\nkey_rope = null");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "an MLA rule beats the sink's late not modeled");
    free(t);
    t = mk(MLA_D, "learnable_sink = fp16 [32]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "the sink's dtype beats its late not modeled");
    free(t);
    t = mk(PAGED_D, "learnable_sink = bf16 [32]");
    expect_both(t, FIA_OK, FIA_OK, "a bf16 [N] sink is accepted");
    free(t);
    t = mk(PREFILL, "query = fp32 [1,2,16,64]\nsparse_mode = 9");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID,
                "dtype beats semantic");
    free(t);
    t = mk(PREFILL, "softmax_lse_flag = true\nsoftmax_lse = null\n"
                    "sparse_mode = 9");
    expect_both(t, FIA_ERR_PARAM_NULLPTR, FIA_ERR_PARAM_NULLPTR,
                "lse null beats semantic");
    free(t);
    /* the empty-query shortcut does not skip the nullptr/dtype layers */
    t = mk(PREFILL, "query = fp16 [1,2,0,64]\natten_mask = fp32 [16,32]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_PARAM_INVALID,
                "empty query still checks dtypes");
    free(t);
    /* GQA-003 fires in both profiles but rejects only in doc */
    t = mk(PREFILL, "query = fp16 [1,130,2,16]\nnum_heads = 130\n"
                    "num_key_value_heads = 2\nkey = fp16 [1,2,4,16]\n"
                    "value = fp16 [1,2,4,16]");
    fia_oracle_verdict v;
    CHECK(eval(t, FIA_PROFILE_CANN, &v) == 0);
    CHECK(v.accept && v.expected == FIA_OK);
    CHECK(in_list(v.fired, v.n_fired, "GQA-003"));
    free(t);
}

/* Malformed shapes must not crash or read out of bounds (run under ASan). */
/* The released code's early return for a call that reads no key (profile
 * cann, oracle/order.c): the rules of its later stage do not apply there,
 * those before it do, and the doc profile applies every rule. */
static void test_order(void)
{
    for (size_t i = 0; orc_after_empty_kv_id(i) != NULL; i++)
        CHECK_MSG(fia_rule_find(orc_after_empty_kv_id(i)) != NULL,
                  "order.c names %s, no rule", orc_after_empty_kv_id(i));
    char *t;
    /* PREC-002 (inner_precise 3 at Q_S = 1), every length 0 */
    t = mk(DECODE, "inner_precise = 3\nactual_seq_lengths_kv = [0,0]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_OK, "late stage, no key read");
    free(t);
    /* one batch reads keys: no early return */
    t = mk(DECODE, "inner_precise = 3\nactual_seq_lengths_kv = [0,4]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "late stage, keys read");
    free(t);
    /* a key of S 0 without lengths; LAYOUT-011 (key N 1, KV_N 2) */
    t = mk(DECODE, "key = fp16 [2,1,0,64]\nvalue = fp16 [2,1,0,64]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_OK, "key S 0, head count");
    free(t);
    /* before the return: the lengths' own checks (SEQ-014) */
    t = mk(DECODE, "inner_precise = 3\nactual_seq_lengths_kv = [0,-1]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "a negative length is no empty key");
    free(t);
    /* before the return: the shared prefix's shape (PREFIX-004) */
    t = mk(PREFILL, "actual_seq_lengths_kv = [0]\n"
                    "key_shared_prefix = fp16 [1,1,8,64]\n"
                    "value_shared_prefix = fp16 [1,1,8,64]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_ERR_INNER_TILING_ERROR,
                "prefix shape before the return");
    free(t);
    /* after it: the prefix length beyond the prefix (PREFIX-007) */
    t = mk(PREFILL, "actual_seq_lengths_kv = [0]\n"
                    "key_shared_prefix = fp16 [1,2,8,64]\n"
                    "value_shared_prefix = fp16 [1,2,8,64]\n"
                    "actual_shared_prefix_len = [9]");
    expect_both(t, FIA_ERR_PARAM_INVALID, FIA_OK, "prefix length after it");
    free(t);
}

static void test_robustness(void)
{
    static const char *const overs[] = {
        "query = fp16 []",
        "query = fp16 [0]",
        "key = fp16 []\nvalue = fp16 []",
        "query = fp16 [1,2,3,4,5,6,7,8]",
        "atten_mask = bool []",
        "atten_mask = bool [5]",
        "atten_mask = bool [1,2,3,4,5,6,7,8]",
        "softmax_lse_flag = true\nsoftmax_lse = fp32 []",
        "attention_out = fp16 []",
        "actual_seq_lengths = [1,2,3,4,5,6,7,8,9,10]",
        "actual_seq_lengths_kv = [9223372036854775807]",
        "num_heads = -9223372036854775808",
        "num_key_value_heads = -9223372036854775808",
        "num_heads = 9223372036854775807",
        "query = fp16 [9223372036854775807,9223372036854775807,2,2]",
        "input_layout = BSH",
        "input_layout = BNSD_BSND\nquery = fp16 [1,2,1]",
        "input_layout = BSH\nnum_heads = 0",
        ("sparse_mode = 3\natten_mask = bool []\n"
         "actual_seq_lengths_kv = [1,2,3]"),
        "inner_precise = -9223372036854775808",
        "scale = nan",
        "key = fp16 [1,2,32,64]; fp16 [1]\nvalue = fp16 [1]",
    };
    static const char *const bases[] = {PREFILL, DECODE, BSH};
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        for (size_t i = 0; i < sizeof overs / sizeof overs[0]; i++) {
            char *t = mk(bases[b], overs[i]);
            fia_oracle_verdict v;
            fia_case c;
            fia_error err;
            if (fia_case_parse_string(t, "<robust>", &c, &err) == 0) {
                CHECK(fia_oracle_evaluate(&c, FIA_PROFILE_DOC, &v, NULL) ==
                      FIA_OK);
                CHECK(fia_oracle_evaluate(&c, FIA_PROFILE_CANN, &v, NULL) ==
                      FIA_OK);
                fia_case_free(&c);
            }
            free(t);
        }
    }
    fia_error err;
    fia_oracle_verdict v;
    CHECK(fia_oracle_evaluate(NULL, FIA_PROFILE_DOC, NULL, NULL) ==
          FIA_ERR_BAD_INPUT);
    CHECK(fia_oracle_evaluate(NULL, FIA_PROFILE_DOC, &v, &err) ==
          FIA_ERR_BAD_INPUT);
    CHECK(err.code == FIA_ERR_BAD_INPUT && err.msg[0] != '\0');
    CHECK(v.accept && v.n_fired == 0);
}

static void test_print(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    fia_rules_print(f, 1);
    fclose(f);
    /* one JSON object per line, one line per rule */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    CHECK_EQ_INT(lines, fia_rule_count());
    CHECK(strncmp(buf, "{\"id\":\"TENS-001\"", 16) == 0);
    CHECK(strstr(buf, "\"disagreement\":null") != NULL);
    CHECK(strstr(buf, "'\xe5\xbb\xba\xe8\xae\xae") != NULL); /* UTF-8 kept */
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    fia_rules_print(f, 0);
    fclose(f);
    CHECK(strstr(buf, "MASK-002") != NULL);
    CHECK(strstr(buf, "disagreement:") != NULL);
    CHECK(strstr(buf, "561002") != NULL);
    free(buf);
}

/* One rules file per feature: every feature of include/fia/feature.h has
 * one (oracle/rules_<name>.c), and its rows carry its name. */
static void test_rule_files(void)
{
    static const char *const files[] = {
#define FILE_NAME(g) #g,
        ORC_RULE_FILES(FILE_NAME)
#undef FILE_NAME
    };
    const size_t nfiles = sizeof files / sizeof files[0];
    for (int f = 0; f < FIA_FEATURE_COUNT; f++) {
        int found = 0;
        for (size_t i = 0; i < nfiles; i++)
            found |= strcmp(files[i], fia_feature_name((fia_feature)f)) == 0;
        CHECK_MSG(found, "feature %s has no oracle/rules_%s.c in "
                  "ORC_RULE_FILES", fia_feature_name((fia_feature)f),
                  fia_feature_name((fia_feature)f));
    }
#define ROWS(g)                                                              \
    for (size_t i = 0; i < orc_rules_##g##_count; i++)                       \
        CHECK_MSG(strcmp(orc_rules_##g[i].feature, #g) == 0,                 \
                  "%s in rules_%s.c has feature %s", orc_rules_##g[i].id, #g, \
                  orc_rules_##g[i].feature);
    ORC_RULE_FILES(ROWS)
#undef ROWS
}

int main(void)
{
    test_catalogue();
    test_rule_files();
    test_coverage();
    test_rule_cases();
    test_baselines();
    test_vendor_readings();
    test_profiles_differ();
    test_precedence();
    test_order();
    test_robustness();
    test_print();
    return check_summary();
}
