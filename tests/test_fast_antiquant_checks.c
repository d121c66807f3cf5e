/* fast/'s phase one on int8 / int4 key/value (docs/features/antiquant.md,
 * Rules): for every ANTI row a call that breaks it (the status in both
 * profiles and the row's id at the start of fastLastError()) and one that
 * obeys it (accepted: status 0, the antiquant description filled); the
 * normalisations
 * (ANTI-N01..N03); the not-modeled list (layer 6, so a documented
 * rejection wins over it); the exclusions of the other features still
 * first; absurd shapes of the antiquant tensors and of an int32 key (rank
 * 0..9, negative and huge dims: no overflow, no read past the rank).
 * Status-only: the calls are cases materialized without data.
 *
 * With file arguments it prints fast/'s status and message for each case
 * in both profiles (a check of hand-written corpus cases). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fia/case.h"
#include "fia/check.h"
#include "fia/fast.h"

/* ---- one call ------------------------------------------------------------ */
/* Changes the materialized tensors before the call (shapes a case file
 * cannot write: negative dims, ranks above 8). */
typedef void (*mutate_fn)(fia_case_data *d);

/* fast/'s phase-one status of a case in a profile, its message into msg.
 * -1 when the text is not a case. */
static int status_of(const char *text, const char *name, fia_profile prof,
                     mutate_fn mutate, char *msg, size_t n)
{
    fia_case c;
    fia_case_data d;
    fia_error err;
    memset(&d, 0, sizeof d);
    if (fia_case_parse_string(text, name, &c, &err) != FIA_OK) {
        snprintf(msg, n, "line %d: %.400s", err.line, err.msg);
        return -1;
    }
    int st = (int)fia_case_materialize(&c, 0, &d, &err);
    if (st == FIA_OK) {
        if (mutate)
            mutate(&d);
        st = (int)fia_call_sut(&c, &d, prof, 0, &err);
        snprintf(msg, n, "%.480s", st == FIA_OK ? "" : err.msg);
        fia_case_data_free(&d);
    } else {
        snprintf(msg, n, "materialize: %.400s", err.msg);
        st = -1;
    }
    fia_case_free(&c);
    return st;
}

enum {
    ACCEPT,   /* 0 */
    REJECT,   /* semantic: 161002 doc, 561002 cann */
    DOC_ONLY, /* semantic in doc, accepted in cann */
    NOTMOD,   /* not modeled, both profiles */
    BADTYPE   /* 161002 in both (layer 2) */
};

/* The expectation for one profile: the status, and the message starts
 * with id (NULL: any message). */
static void expect_in(const char *text, int kind, const char *id,
                      const char *cann_id, mutate_fn mutate, int line)
{
    for (int prof = 0; prof < 2; prof++) {
        char msg[512];
        const int st = status_of(text, "<antiquant>", prof ? FIA_PROFILE_CANN
                                                           : FIA_PROFILE_DOC,
                                 mutate, msg, sizeof msg);
        const char *want_id = prof && cann_id ? cann_id : id;
        const char *pn = prof ? "cann" : "doc";
        bool ok;
        switch (kind) {
        case ACCEPT:
            ok = st == FIA_OK;
            want_id = NULL;
            break;
        case REJECT:
            ok = st == (prof ? FIA_ERR_INNER_TILING_ERROR
                             : FIA_ERR_PARAM_INVALID);
            break;
        case DOC_ONLY:
            ok = prof ? st == FIA_OK : st == FIA_ERR_PARAM_INVALID;
            if (prof)
                want_id = NULL;
            break;
        case NOTMOD:
            ok = st == FIA_ERR_NOT_MODELED;
            break;
        default:
            ok = st == FIA_ERR_PARAM_INVALID;
            break;
        }
        CHECK_MSG(ok, "line %d (%s): status %d: %s", line, pn, st, msg);
        if (ok && want_id != NULL)
            CHECK_MSG(strncmp(msg, want_id, strlen(want_id)) == 0,
                      "line %d (%s): \"%s\" does not name %s", line, pn, msg,
                      want_id);
    }
}

#define BREAKS(id, text) expect_in(text, REJECT, id, NULL, NULL, __LINE__)
#define OBEYS(text) expect_in(text, ACCEPT, NULL, NULL, NULL, __LINE__)
#define REFUSED(id, text) expect_in(text, NOTMOD, id, NULL, NULL, __LINE__)

/* ---- the calls ------------------------------------------------------------ */
/* Decode (Q_S = 1): B 2, N = KV_N 2, KV_S 32, D 64. */
#define DEC "input_layout = BNSD\nnum_heads = 2\n"
#define Q16 "query = fp16 [2,2,1,64]\n"
#define QB16 "query = bf16 [2,2,1,64]\n"
#define KV8 "key = int8 [2,2,32,64]\nvalue = int8 [2,2,32,64]\n"
#define KV4 "key = int4 [2,2,32,64]\nvalue = int4 [2,2,32,64]\n"
#define KV32 "key = int32 [2,2,32,8]\nvalue = int32 [2,2,32,8]\n"
/* Prefill (Q_S = 16), bf16 query for the separate set, fp16 for the
 * combined one. */
#define PRE_B "input_layout = BNSD\nnum_heads = 2\nquery = bf16 [2,2,16,64]\n"
#define PRE_H "input_layout = BNSD\nnum_heads = 2\nquery = fp16 [2,2,16,64]\n"
/* Separate scales of each mode (decode). */
#define SEP(kdt, kshape, vdt, vshape)                                        \
    "key_antiquant_scale = " kdt " " kshape "\n"                             \
    "value_antiquant_scale = " vdt " " vshape "\n"
#define MODES(k, v) "key_antiquant_mode = " #k "\nvalue_antiquant_mode = " #v "\n"
#define CHAN16 SEP("fp16", "[1,2,1,64]", "fp16", "[1,2,1,64]")
#define CHANB16 SEP("bf16", "[1,2,1,64]", "bf16", "[1,2,1,64]")
#define TOKEN SEP("fp32", "[1,2,32]", "fp32", "[1,2,32]") MODES(1, 1)
/* Page attention: cache (blocknum 4, block_size 32, H 128), 2 blocks per
 * batch at most. */
#define PAGED                                                                \
    "input_layout = BNSD\nnum_heads = 2\nblock_size = 32\n" Q16             \
    "key = int8 [4,32,128]\nvalue = int8 [4,32,128]\n"                      \
    "block_table = int32 [2,2]\nactual_seq_lengths_kv = [40,10]\n"

/* Which set, which mode (ANTI-001..004, 009). */
static void modes(void)
{
    BREAKS("ANTI-001", DEC Q16 KV8 "antiquant_scale = fp16 [2]\n"
                                   "antiquant_mode = 3\n");
    BREAKS("ANTI-001", DEC Q16 KV8 "antiquant_scale = fp16 [2]\n"
                                   "antiquant_mode = -1\n");
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp32 [2,2,32]\nantiquant_mode = 1\n");
    /* ANTI-N02: at Q_S > 1 antiquant_mode is ignored (mode 0's forms) */
    OBEYS(PRE_H KV8 "antiquant_scale = fp16 [2]\nantiquant_mode = 3\n");
    BREAKS("ANTI-007", PRE_H KV8 "antiquant_scale = fp32 [2,2,32]\n"
                                 "antiquant_mode = 1\n");

    BREAKS("ANTI-002", DEC Q16 KV8 CHAN16 MODES(6, 6));
    BREAKS("ANTI-002", DEC Q16 KV8 CHAN16 MODES(0, -1));
    OBEYS(DEC Q16 KV8 SEP("fp16", "[2]", "fp16", "[2]") MODES(2, 2));
    /* ANTI-N01: the separate set in use, antiquant_mode is ignored */
    OBEYS(DEC Q16 KV8 CHAN16 "antiquant_mode = 9\n");

    BREAKS("ANTI-003", PRE_B KV8 SEP("bf16", "[2]", "bf16", "[2]")
                           MODES(2, 2));
    BREAKS("ANTI-003", PRE_B KV8 SEP("fp32", "[2,2,32]", "fp32", "[2,2,32]")
                           MODES(3, 3));
    OBEYS(PRE_B KV8 SEP("fp32", "[2,32]", "fp32", "[2,32]") MODES(1, 1));

    BREAKS("ANTI-004", DEC Q16 KV8 SEP("fp32", "[1,2,32]", "fp16",
                                       "[1,2,1,64]") MODES(1, 0));
    BREAKS("ANTI-004", DEC Q16 KV8 SEP("fp32", "[2,2,32]", "fp32",
                                       "[1,2,32]") MODES(3, 1));
    BREAKS("ANTI-004", PRE_B KV8 SEP("bf16", "[2,64]", "fp32", "[2,32]")
                           MODES(0, 1));
    OBEYS(DEC Q16 KV8 SEP("fp16", "[1,2,64]", "fp32", "[1,2,32]")
              MODES(0, 1));

    BREAKS("ANTI-009", DEC Q16 KV8 "key_antiquant_scale = fp16 [1,2,1,64]\n");
    BREAKS("ANTI-009", DEC Q16 KV8 "value_antiquant_scale = fp16 [1,128]\n");
    BREAKS("ANTI-009", DEC Q16 KV8 CHAN16
                           "key_antiquant_offset = fp16 [1,2,1,64]\n");
    OBEYS(DEC Q16 KV8 CHAN16 "key_antiquant_offset = fp16 [1,2,1,64]\n"
                             "value_antiquant_offset = fp16 [1,2,1,64]\n");
}

/* The combined set's tensors (ANTI-005..008, 016, 017). */
static void combined(void)
{
    BREAKS("ANTI-005", DEC Q16 KV8 "antiquant_offset = fp16 [2]\n");
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2]\n"
                      "antiquant_offset = fp16 [2]\n");
    /* ANTI-N03: no offset, symmetric */
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2]\n");

    BREAKS("ANTI-006", DEC Q16 KV8 "antiquant_scale = fp16 [2]\n"
                                   "antiquant_offset = fp16 [2,2,64]\n");
    BREAKS("ANTI-006", DEC Q16 KV8 "antiquant_scale = fp16 [2,128]\n"
                                   "antiquant_offset = bf16 [2,128]\n");
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2,128]\n"
                      "antiquant_offset = fp16 [2,128]\n");

    BREAKS("ANTI-007", DEC Q16 KV8 "antiquant_scale = fp16 [2,2,64,1]\n");
    BREAKS("ANTI-007", DEC Q16 KV8 "antiquant_scale = fp16 [1]\n");
    BREAKS("ANTI-007", DEC Q16 KV8 "antiquant_scale = fp16 []\n");
    BREAKS("ANTI-007", DEC Q16 KV8 "antiquant_scale = fp16 [2,2,32]\n");
    BREAKS("ANTI-007", DEC Q16 KV8 "antiquant_scale = fp32 [2,3,32]\n"
                                   "antiquant_mode = 1\n");
    BREAKS("ANTI-007", DEC Q16 KV8 "antiquant_scale = fp32 [2,2,32,1]\n"
                                   "antiquant_mode = 1\n");
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2,2,1,64]\n");
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2,2,64]\n");
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2,128]\n");
    OBEYS(PRE_H KV8 "antiquant_scale = fp16 [2,2,1,64]\n");

    BREAKS("ANTI-008", DEC Q16 KV8 "antiquant_scale = fp32 [2,2,1,64]\n");
    BREAKS("ANTI-008", DEC Q16 KV8 "antiquant_scale = fp16 [2,2,32]\n"
                                   "antiquant_mode = 1\n");
    BREAKS("ANTI-008", PRE_H KV8 "antiquant_scale = bf16 [2]\n");
    BREAKS("ANTI-008", DEC QB16 KV8 "antiquant_scale = fp16 [2]\n");
    OBEYS(DEC QB16 KV8 "antiquant_scale = bf16 [2]\n");

    BREAKS("ANTI-016", PRE_B KV8 "antiquant_scale = bf16 [2]\n");
    OBEYS(PRE_H KV8 "antiquant_scale = fp16 [2]\n");

    BREAKS("ANTI-017", DEC Q16 KV4 "antiquant_scale = fp16 [2,2,1,64]\n");
    BREAKS("ANTI-017", DEC Q16 KV32 "antiquant_scale = fp16 [2,2,1,64]\n");
    OBEYS(DEC Q16 KV4 CHAN16);
}

/* The separate set's tensors (ANTI-010..015, 018, 021, 022). */
static void separate(void)
{
    BREAKS("ANTI-010", DEC Q16 KV8 SEP("fp16", "[1,2,1,64]", "fp16",
                                       "[1,2,64]"));
    BREAKS("ANTI-010", DEC Q16 KV8 CHAN16
                           "key_antiquant_offset = fp16 [1,2,1,64]\n"
                           "value_antiquant_offset = fp16 [1,2,64]\n");
    /* key 0 + value 1: the shapes differ by the table */
    OBEYS(DEC Q16 KV8 SEP("fp16", "[1,128]", "fp32", "[1,2,32]") MODES(0, 1)
              "key_antiquant_offset = fp16 [1,128]\n"
              "value_antiquant_offset = fp32 [1,2,32]\n");

    BREAKS("ANTI-011", DEC Q16 KV8 "antiquant_scale = fp16 [2]\n"
                                   "key_antiquant_offset = fp16 [1]\n"
                                   "value_antiquant_offset = fp16 [1]\n");
    BREAKS("ANTI-011", DEC Q16 KV8 CHAN16
                           "key_antiquant_offset = bf16 [1,2,1,64]\n"
                           "value_antiquant_offset = bf16 [1,2,1,64]\n");
    BREAKS("ANTI-011", DEC Q16 KV8 SEP("fp16", "[1,128]", "fp32", "[1,2,32]")
                           MODES(0, 1)
                           "key_antiquant_offset = fp16 [1,128]\n"
                           "value_antiquant_offset = fp32 [1,2,40]\n");
    OBEYS(DEC Q16 KV8 SEP("fp16", "[1]", "fp16", "[1]")
              "key_antiquant_offset = fp16 [1]\n"
              "value_antiquant_offset = fp16 [1]\n");

    BREAKS("ANTI-012", DEC Q16 KV8 SEP("fp16", "[2,64]", "fp16", "[2,64]"));
    BREAKS("ANTI-012", DEC Q16 KV8 SEP("fp16", "[3]", "fp16", "[3]")
                           MODES(2, 2));
    BREAKS("ANTI-012", DEC Q16 KV8 SEP("fp32", "[2,2]", "fp32", "[2,2]")
                           MODES(3, 3));
    BREAKS("ANTI-012", DEC Q16 KV8 SEP("fp32", "[2,32]", "fp32", "[2,32]")
                           MODES(1, 1));
    BREAKS("ANTI-012", PRE_B KV8 SEP("fp32", "[1,2,32]", "fp32", "[1,2,32]")
                           MODES(1, 1));
    BREAKS("ANTI-012", PRE_B KV8 SEP("bf16", "[1]", "bf16", "[1]"));
    /* key 0 + value 1: the key per-channel only */
    BREAKS("ANTI-012", DEC Q16 KV8 SEP("fp16", "[1]", "fp32", "[1,2,32]")
                           MODES(0, 1));
    BREAKS("ANTI-012", PAGED SEP("fp32", "[3,32]", "fp32", "[3,32]")
                           MODES(4, 4));
    BREAKS("ANTI-012", PAGED SEP("fp32", "[4,2,16]", "fp32", "[4,2,16]")
                           MODES(5, 5));
    OBEYS(DEC Q16 KV8 SEP("fp16", "[1,2,64]", "fp16", "[1,2,64]"));
    OBEYS(DEC Q16 KV8 SEP("fp16", "[1,128]", "fp16", "[1,128]"));
    OBEYS(DEC Q16 KV8 TOKEN);
    OBEYS(DEC Q16 KV8 SEP("fp32", "[2,2,32]", "fp32", "[2,2,32]")
              MODES(3, 3));
    /* Q_S > 1: 002's shapes without the leading 1, 003's with it */
    OBEYS(PRE_B KV8 SEP("bf16", "[2,1,64]", "bf16", "[2,1,64]"));
    OBEYS(PRE_B KV8 SEP("bf16", "[2,64]", "bf16", "[2,64]"));
    OBEYS(PRE_B KV8 SEP("bf16", "[128]", "bf16", "[128]"));
    OBEYS(PRE_B KV8 SEP("bf16", "[1,2,1,64]", "bf16", "[1,2,1,64]"));
    OBEYS(PRE_B KV8 SEP("bf16", "[1,128]", "bf16", "[1,128]"));
    OBEYS(PAGED SEP("fp32", "[4,32]", "fp32", "[4,32]") MODES(4, 4));
    OBEYS(PAGED SEP("fp32", "[4,2,32]", "fp32", "[4,2,32]") MODES(5, 5));

    BREAKS("ANTI-013", DEC Q16 KV8 SEP("fp16", "[1,2,32]", "fp16",
                                       "[1,2,32]") MODES(1, 1));
    BREAKS("ANTI-013", DEC Q16 KV8 CHANB16);
    BREAKS("ANTI-013", DEC Q16 KV8 SEP("fp32", "[2]", "fp32", "[2]")
                           MODES(2, 2));
    BREAKS("ANTI-013", PRE_B KV8 SEP("fp16", "[2,64]", "fp16", "[2,64]"));
    BREAKS("ANTI-013", DEC Q16 KV8 SEP("fp16", "[1,128]", "fp16", "[1,2,32]")
                           MODES(0, 1));
    OBEYS(DEC QB16 KV8 CHANB16);

    BREAKS("ANTI-014", "input_layout = BNSD\nnum_heads = 2\n"
                       "query = bf16 [2,2,17,64]\n" KV8
                       SEP("bf16", "[2,64]", "bf16", "[2,64]"));
    OBEYS(PRE_B KV8 SEP("bf16", "[2,64]", "bf16", "[2,64]"));

    BREAKS("ANTI-015", PRE_H KV8 SEP("fp16", "[2,64]", "fp16", "[2,64]"));
    BREAKS("ANTI-015", PRE_B "key = int4 [2,2,32,64]\n"
                       "value = int4 [2,2,32,64]\n"
                       SEP("bf16", "[2,64]", "bf16", "[2,64]"));
    /* attention_out fp16 with a bf16 query: the output's own rule (the
     * query's dtype) fires first, the same status */
    expect_in(PRE_B KV8 SEP("bf16", "[2,64]", "bf16", "[2,64]")
              "attention_out = fp16 [2,2,16,64]\n",
              REJECT, NULL, NULL, NULL, __LINE__);

    BREAKS("ANTI-018", DEC Q16 KV4 SEP("fp16", "[1]", "fp16", "[1]"));
    BREAKS("ANTI-018", DEC Q16 KV4 SEP("fp16", "[2]", "fp16", "[2]")
                           MODES(2, 2));
    BREAKS("ANTI-018", DEC Q16 KV32 SEP("fp32", "[4,32]", "fp32", "[4,32]")
                           MODES(4, 4));
    OBEYS(DEC Q16 KV4 TOKEN);
    OBEYS(DEC Q16 KV4 SEP("fp32", "[2,2,32]", "fp32", "[2,2,32]")
              MODES(3, 3));
    OBEYS(DEC Q16 KV32 SEP("fp16", "[1,2,64]", "fp32", "[1,2,32]")
              MODES(0, 1));

    BREAKS("ANTI-021", DEC Q16 KV8 SEP("fp32", "[4,32]", "fp32", "[4,32]")
                           MODES(4, 4));
    BREAKS("ANTI-021", DEC Q16 KV8 SEP("fp32", "[4,2,32]", "fp32", "[4,2,32]")
                           MODES(5, 5));
    /* (obeyed: the paged modes 4 / 5 above) */

    BREAKS("ANTI-022", DEC QB16 KV8 SEP("bf16", "[1,2,64]", "fp32",
                                        "[1,2,32]") MODES(0, 1));
    /* int4 key 0 + value 1 takes a bf16 query (the rule is int8's) */
    OBEYS(DEC QB16 KV4 SEP("bf16", "[1,2,64]", "fp32", "[1,2,32]")
              MODES(0, 1));
}

/* D, S', the path's dtypes and the rows of other files (ANTI-019, 020,
 * 023..028). */
static void dims_and_paths(void)
{
    BREAKS("ANTI-019", DEC "query = fp16 [2,2,1,32]\n"
                       "key = int4 [2,2,32,32]\nvalue = int4 [2,2,32,32]\n"
                       SEP("fp16", "[1,2,1,32]", "fp16", "[1,2,1,32]"));
    BREAKS("ANTI-019", DEC "query = fp16 [2,2,1,32]\n"
                       "key = int32 [2,2,32,4]\nvalue = int32 [2,2,32,4]\n"
                       SEP("fp16", "[1,2,1,32]", "fp16", "[1,2,1,32]"));
    OBEYS(DEC Q16 KV32 CHAN16);
    /* an int32 key's last dim is an eighth of D (BSH: of H) */
    OBEYS("input_layout = BSH\nnum_heads = 2\nquery = fp16 [2,1,128]\n"
          "key = int32 [2,32,16]\nvalue = int32 [2,32,16]\n"
          SEP("fp16", "[1,128]", "fp16", "[1,128]"));
    OBEYS("input_layout = BSND\nnum_heads = 2\nquery = fp16 [2,1,2,64]\n"
          "key = int32 [2,32,2,8]\nvalue = int32 [2,32,2,8]\n"
          SEP("fp16", "[1,2,64]", "fp16", "[1,2,64]"));
    BREAKS("S_KV_D", DEC Q16 "key = int32 [2,2,32,64]\n"
                     "value = int32 [2,2,32,64]\n" CHAN16);
    BREAKS("S_KV_HEADS", "input_layout = BSH\nnum_heads = 2\n"
                         "query = fp16 [2,1,128]\n"
                         "key = int32 [2,32,128]\nvalue = int32 [2,32,128]\n"
                         "num_key_value_heads = 3\n"
                         SEP("fp16", "[1,128]", "fp16", "[1,128]"));

    BREAKS("ANTI-020", "input_layout = BNSD\nnum_heads = 2\n"
                       "query = fp16 [2,2,16,48]\n"
                       "key = int8 [2,2,32,48]\nvalue = int8 [2,2,32,48]\n"
                       "antiquant_scale = fp16 [2]\n");
    OBEYS(DEC "query = fp16 [2,2,1,48]\n"
              "key = int8 [2,2,32,48]\nvalue = int8 [2,2,32,48]\n"
              "antiquant_scale = fp16 [2]\n");

    BREAKS("ANTI-023", DEC Q16 KV8 "antiquant_scale = fp32 [2,2,16]\n"
                                   "antiquant_mode = 1\n");
    BREAKS("ANTI-023", DEC Q16 KV8 SEP("fp32", "[1,2,16]", "fp32",
                                       "[1,2,16]") MODES(1, 1));
    BREAKS("ANTI-023", DEC Q16 KV8 SEP("fp32", "[2,2,31]", "fp32",
                                       "[2,2,31]") MODES(3, 3));
    BREAKS("ANTI-023", DEC Q16 KV8 SEP("fp16", "[1,128]", "fp32", "[1,2,16]")
                           MODES(0, 1));
    BREAKS("ANTI-023", PRE_B KV8 SEP("fp32", "[2,16]", "fp32", "[2,16]")
                           MODES(1, 1));
    /* page attention: maxBlockNumPerSeq (2) x block_size (32), not the
     * longest length (40) */
    BREAKS("ANTI-023", PAGED "antiquant_scale = fp32 [2,2,40]\n"
                             "antiquant_mode = 1\n");
    OBEYS(PAGED "antiquant_scale = fp32 [2,2,64]\nantiquant_mode = 1\n");
    OBEYS(PAGED SEP("fp32", "[1,2,64]", "fp32", "[1,2,64]") MODES(1, 1));
    /* wider than the key's S: read at its first KV_S columns */
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp32 [2,2,48]\nantiquant_mode = 1\n");

    BREAKS("ANTI-024", DEC Q16 KV4 CHAN16 "attention_out = int8 [2,2,1,64]\n"
                       "quant_scale2 = fp32 [1]\n");

    BREAKS("ANTI-025", DEC Q16 "key = int8 [2,2,32,64]\n"
                       "value = int4 [2,2,32,64]\n" CHAN16);
    BREAKS("ANTI-025", DEC Q16 "key = fp16 [2,2,32,64]\n"
                       "value = int8 [2,2,32,64]\n" CHAN16);
    BREAKS("ANTI-025", DEC Q16 "key = int8 [2,2,32,64]\n"
                       "value = fp16 [2,2,32,64]\n" CHAN16);
    BREAKS("S_KV_DTYPE", DEC Q16 "key = bf16 [2,2,32,64]\n"
                         "value = bf16 [2,2,32,64]\n");

    BREAKS("ANTI-026", DEC Q16 KV8);
    BREAKS("ANTI-026", DEC Q16 KV4);
    BREAKS("ANTI-026", PRE_H KV8);
    BREAKS("ANTI-026", DEC Q16 KV8 "antiquant_mode = 1\n");

    BREAKS("ANTI-027", DEC "query = int8 [2,2,1,64]\n" KV8
                       "attention_out = fp16 [2,2,1,64]\n"
                       "dequant_scale1 = fp32 [1]\nquant_scale1 = fp32 [1]\n"
                       "dequant_scale2 = fp32 [1]\n");

#define GQA(n, kd)                                                           \
    "input_layout = BNSD\nnum_heads = " #n "\nnum_key_value_heads = 2\n"   \
    "query = fp16 [1," #n ",1,64]\nkey = " kd " [1,2,32,64]\n"             \
    "value = " kd " [1,2,32,64]\n"
    expect_in(GQA(130, "int8") "antiquant_scale = fp16 [2,2,1,64]\n",
              REJECT, "ANTI-028", "ANTI-028", NULL, __LINE__);
    expect_in(GQA(130, "int4") SEP("fp16", "[1,2,1,64]", "fp16",
                                   "[1,2,1,64]"),
              REJECT, "ANTI-028", "ANTI-028", NULL, __LINE__);
    /* the non-quantized path: accepted in cann */
    expect_in(GQA(130, "fp16"), DOC_ONLY, "S_GQA_RATIO", NULL, NULL,
              __LINE__);
    OBEYS(GQA(128, "int8") "antiquant_scale = fp16 [2,2,1,64]\n");
#undef GQA
}

/* Layer 6 (NM-003): only calls every rule accepts; a documented rejection
 * wins. */
static void not_modeled(void)
{
#define KV16 "key = fp16 [2,2,32,64]\nvalue = fp16 [2,2,32,64]\n"
    REFUSED("M_OPTIONAL:", DEC Q16 KV16 "antiquant_scale = fp16 [2]\n");
    REFUSED("M_OPTIONAL:", DEC Q16 KV16 "antiquant_offset = fp16 [2]\n");
    REFUSED("M_OPTIONAL:", PRE_H KV16 CHAN16);
    REFUSED("M_OPTIONAL:", DEC QB16 "key = bf16 [2,2,32,64]\n"
                                     "value = bf16 [2,2,32,64]\n"
                                     "value_antiquant_offset = fp32 [0]\n");
    REFUSED("M_ANTIQUANT_MODE", DEC Q16 KV16 "antiquant_mode = 1\n");
    REFUSED("M_ANTIQUANT_MODE", DEC Q16 KV16 "key_antiquant_mode = 2\n");
    REFUSED("M_ANTIQUANT_MODE", DEC Q16 KV16 "value_antiquant_mode = -1\n");
    BREAKS("S_OUT_DTYPE", DEC Q16 KV16 "antiquant_scale = fp16 [2]\n"
                                       "attention_out = bf16 [2,2,1,64]\n");
    /* the registered dtypes still come first */
    expect_in(DEC Q16 KV16 "antiquant_scale = int8 [2]\n", BADTYPE,
              "T_OPTIONAL", NULL, NULL, __LINE__);
#undef KV16

#define PREFIX "key_shared_prefix = int8 [1,2,8,64]\n"                      \
               "value_shared_prefix = int8 [1,2,8,64]\n"
    REFUSED("M_ANTIQUANT_PREFIX", DEC Q16 KV8 CHAN16 PREFIX);
    BREAKS("ANTI-026", DEC Q16 KV8 PREFIX);
#undef PREFIX

#define LIST8 "key = int8 [1,2,32,64]; int8 [1,2,20,64]\n"                  \
              "value = int8 [1,2,32,64]; int8 [1,2,20,64]\n"
    REFUSED("M_ANTIQUANT_LIST", DEC Q16 LIST8
                                "antiquant_scale = fp32 [2,2,32]\n"
                                "antiquant_mode = 1\n");
    REFUSED("M_ANTIQUANT_LIST", DEC Q16 LIST8 TOKEN);
    REFUSED("M_ANTIQUANT_LIST", DEC Q16 LIST8
                                SEP("fp32", "[2,2,32]", "fp32", "[2,2,32]")
                                MODES(3, 3));
    REFUSED("M_ANTIQUANT_LIST", DEC Q16 LIST8
                                SEP("fp16", "[1,128]", "fp32", "[1,2,32]")
                                MODES(0, 1));
    BREAKS("ANTI-023", DEC Q16 LIST8 "antiquant_scale = fp32 [2,2,20]\n"
                                     "antiquant_mode = 1\n");
    OBEYS(DEC Q16 LIST8 CHAN16);
    OBEYS(DEC Q16 LIST8 "antiquant_scale = fp16 [2,128]\n");
    OBEYS(DEC Q16 "key = int32 [1,2,32,8]; int32 [1,2,20,8]\n"
                  "value = int32 [1,2,32,8]; int32 [1,2,20,8]\n" CHAN16);
    BREAKS("S_KV_DTYPE", DEC Q16 "key = int8 [1,2,32,64]; fp16 [1,2,20,64]\n"
                                 "value = int8 [1,2,32,64]; fp16 [1,2,20,64]\n"
                                 CHAN16);
#undef LIST8
}

/* The exclusions of the other features stay theirs, in layer 3. */
static void exclusions(void)
{
    BREAKS("S_PAGED_ANTIQUANT",
           "input_layout = BNSD\nnum_heads = 2\nblock_size = 128\n"
           "query = fp16 [2,2,16,64]\n"
           "key = int8 [4,128,128]\nvalue = int8 [4,128,128]\n"
           "block_table = int32 [2,1]\nactual_seq_lengths_kv = [100,100]\n"
           "antiquant_scale = fp16 [2]\n");
    BREAKS("S_PAGED_INT4",
           "input_layout = BNSD\nnum_heads = 2\nblock_size = 32\n" Q16
           "key = int4 [4,32,128]\nvalue = int4 [4,32,128]\n"
           "block_table = int32 [2,2]\nactual_seq_lengths_kv = [40,10]\n"
           CHAN16);
    BREAKS("S_PADDING_INT4", DEC Q16 KV4 CHAN16
                             "kv_padding_size = int64 [1]\n"
                             "actual_seq_lengths_kv = [20,9]\n");
    BREAKS("S_PADDING_ANTIQUANT", DEC Q16 KV8 CHAN16
                                  "kv_padding_size = int64 [1]\n"
                                  "actual_seq_lengths_kv = [20,9]\n");
    /* the combined set takes kv left padding */
    OBEYS(DEC Q16 KV8 "antiquant_scale = fp16 [2]\n"
                      "kv_padding_size = int64 [1]\n"
                      "actual_seq_lengths_kv = [20,9]\n");
    BREAKS("S_LIST_ANTIQUANT", PRE_B
                               "key = int8 [1,2,32,64]; int8 [1,2,20,64]\n"
                               "value = int8 [1,2,32,64]; int8 [1,2,20,64]\n"
                               SEP("bf16", "[2,64]", "bf16", "[2,64]"));
    BREAKS("S_TND_ANTIQUANT", "input_layout = TND\nnum_heads = 2\n"
                              "query = bf16 [4,2,64]\n"
                              "key = int8 [8,2,64]\nvalue = int8 [8,2,64]\n"
                              "actual_seq_lengths = [2,4]\n"
                              "actual_seq_lengths_kv = [4,8]\n" CHANB16);
}

/* ---- absurd shapes -------------------------------------------------------- */
static fia_tensor *slot(fia_case_data *d, fia_slot s)
{
    return d->t[s];
}

static void scale_rank9(fia_case_data *d)
{
    slot(d, FIA_SLOT_ANTIQUANT_SCALE)->ndim = 9;
}
static void scale_rank_neg(fia_case_data *d)
{
    slot(d, FIA_SLOT_ANTIQUANT_SCALE)->ndim = -1;
}
static void scale_rank_huge(fia_case_data *d)
{
    slot(d, FIA_SLOT_ANTIQUANT_SCALE)->ndim = 1000000;
}
static void scale_dim_neg(fia_case_data *d)
{
    slot(d, FIA_SLOT_ANTIQUANT_SCALE)->shape[2] = -32;
}
static void scale_dim_huge(fia_case_data *d)
{
    slot(d, FIA_SLOT_ANTIQUANT_SCALE)->shape[2] = INT64_MAX;
}
static void sep_rank_huge(fia_case_data *d)
{
    slot(d, FIA_SLOT_KEY_ANTIQUANT_SCALE)->ndim = 77;
    slot(d, FIA_SLOT_VALUE_ANTIQUANT_SCALE)->ndim = 77;
}
static void sep_offset_rank_huge(fia_case_data *d)
{
    slot(d, FIA_SLOT_KEY_ANTIQUANT_OFFSET)->ndim = 77;
    slot(d, FIA_SLOT_VALUE_ANTIQUANT_OFFSET)->ndim = 77;
}
static void sep_dim_neg(fia_case_data *d)
{
    for (int s = FIA_SLOT_KEY_ANTIQUANT_SCALE;
         s <= FIA_SLOT_VALUE_ANTIQUANT_OFFSET; s++)
        slot(d, (fia_slot)s)->shape[2] = -5;
}
/* an int32 key whose last dim times 8 overflows int64 (2^60 > INT64_MAX /
 * 8), and one just below */
static void kv_last(fia_case_data *d, int64_t last)
{
    for (int s = FIA_SLOT_KEY; s <= FIA_SLOT_VALUE; s++) {
        fia_tensor *t = slot(d, (fia_slot)s);
        t->shape[t->ndim - 1] = last;
    }
}
static void kv_last_overflow(fia_case_data *d)
{
    kv_last(d, (int64_t)1 << 60);
}
static void kv_last_edge(fia_case_data *d)
{
    kv_last(d, INT64_MAX / 8);
}
static void list_last_overflow(fia_case_data *d)
{
    for (int s = FIA_SLOT_KEY; s <= FIA_SLOT_VALUE; s++)
        d->t[s][1].shape[3] = (int64_t)1 << 60;
}

static void absurd(void)
{
    const char *tok = DEC Q16 KV8 "antiquant_scale = fp32 [2,2,32]\n"
                                  "antiquant_mode = 1\n";
    const char *chan = DEC Q16 KV8 "antiquant_scale = fp16 [2,2,1,64]\n";
    expect_in(chan, REJECT, "ANTI-007", NULL, scale_rank9, __LINE__);
    expect_in(chan, REJECT, "ANTI-007", NULL, scale_rank_neg, __LINE__);
    expect_in(chan, REJECT, "ANTI-007", NULL, scale_rank_huge, __LINE__);
    expect_in(tok, REJECT, "ANTI-007", NULL, scale_dim_neg, __LINE__);
    /* (2, 2, INT64_MAX): an S' wide enough, but no tensor has that many
     * elements */
    expect_in(tok, REJECT, "ANTI-007", NULL, scale_dim_huge, __LINE__);
    expect_in(chan, REJECT, "ANTI-007", NULL, scale_dim_huge, __LINE__);
    expect_in(chan, ACCEPT, NULL, NULL, NULL, __LINE__);
    const char *sep = DEC Q16 KV8 TOKEN
        "key_antiquant_offset = fp32 [1,2,32]\n"
        "value_antiquant_offset = fp32 [1,2,32]\n";
    /* a rank out of range is no shape: never the same as another's */
    expect_in(sep, REJECT, "ANTI-010", NULL, sep_rank_huge, __LINE__);
    expect_in(sep, REJECT, "ANTI-010", NULL, sep_offset_rank_huge, __LINE__);
    expect_in(sep, REJECT, "ANTI-012", NULL, sep_dim_neg, __LINE__);
    /* an int32 key of one element per row but a huge last dim */
    const char *one = "input_layout = BNSD\nnum_heads = 1\n"
                      "query = fp16 [1,1,1,64]\n"
                      "key = int32 [1,1,1,8]\nvalue = int32 [1,1,1,8]\n"
                      SEP("fp16", "[1,1,1,64]", "fp16", "[1,1,1,64]");
    expect_in(one, ACCEPT, NULL, NULL, NULL, __LINE__);
    expect_in(one, REJECT, "S_KV_D", NULL, kv_last_overflow, __LINE__);
    expect_in(one, REJECT, "S_KV_D", NULL, kv_last_edge, __LINE__);
    const char *bsh = "input_layout = BSH\nnum_heads = 1\n"
                      "query = fp16 [1,1,64]\n"
                      "key = int32 [1,1,8]\nvalue = int32 [1,1,8]\n"
                      SEP("fp16", "[1,64]", "fp16", "[1,64]");
    expect_in(bsh, ACCEPT, NULL, NULL, NULL, __LINE__);
    expect_in(bsh, REJECT, "S_KV_HEADS", NULL, kv_last_overflow, __LINE__);
    const char *list = DEC Q16 "key = int32 [1,2,32,8]; int32 [1,1,1,8]\n"
                       "value = int32 [1,2,32,8]; int32 [1,1,1,8]\n" CHAN16;
    expect_in(list, REJECT, "S_LIST_HEADS", NULL, list_last_overflow,
              __LINE__);
}

/* ---- corpus check mode ---------------------------------------------------- */
static int print_cases(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        fia_case c;
        fia_error err;
        if (fia_case_parse_file(argv[i], &c, &err) != FIA_OK) {
            printf("%s: does not parse: %s:%d: %s\n", argv[i], err.file,
                   err.line, err.msg);
            bad = 1;
            continue;
        }
        char *text = fia_case_to_string(&c);
        fia_case_free(&c);
        for (int prof = 0; prof < 2 && text; prof++) {
            char msg[512];
            int st = status_of(text, argv[i], prof ? FIA_PROFILE_CANN
                                                   : FIA_PROFILE_DOC,
                               NULL, msg, sizeof msg);
            printf("%s %s %d %s\n", argv[i], prof ? "cann" : "doc ", st, msg);
        }
        free(text);
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return print_cases(argc, argv);
    modes();
    combined();
    separate();
    dims_and_paths();
    not_modeled();
    exclusions();
    absurd();
    return check_summary();
}
