/* oracle/order: the order of the released code's checks around its early
 * return for an empty key/value (profile cann; issue 33).
 *
 * RELEASED "Degenerate shapes": a call in which no batch reads a key (a
 * key/value S of 0, or every used actual_seq_lengths_kv 0, with or without
 * page attention) is answered with zeros (softmax_lse +inf).  The vendor's
 * tiling tests (../shared/vendor-ut) show where that return sits: the
 * existence, dtype and shape checks of the inputs, the block table and
 * block size, the rope dtypes and shapes, the shared prefix's shape and its
 * combinations, the exclusions and the sequence-length arrays come before
 * it (tErr_BlockTableShapeZero, tErr_PABlockSizeZero,
 * tErr_QueryRopeDtypeNotSupported, tErr_MLAQueryDimLessThanValueDim,
 * tErr_SystemPrefixWithPA, tErr_TNDNoActualSeqLenKv, tSysPrefix_bnsd_n_err,
 * tSysPrefix_bsh_h_err are rejected with no key read); the checks of the
 * head counts, the precision mode, MLA's own limits, value's D and the
 * output's shape, and the prefix length against what it is read with,
 * come after it (tEmptyTensor_BSND_FP16, tGQA_SystemPrefix_BSH, the
 * tMLA_* tests with zero lengths, tMLA_RopeCombine_*, tPA_FP16_BnBsH are
 * accepted while breaking them).  Value's shape against the key's is a
 * single key/value's here (LAYOUT-014): a list's pairs are compared before
 * the return (LIST-008, whose row cites the released source).  The
 * documents know no such return: the doc profile applies every rule. */
#include <string.h>
#include "oracle_internal.h"

/* The rules of the later stage, by kind (each kind's evidence above). */
static const char *const after_return[] = {
    /* head counts */
    "LAYOUT-011",
    /* the precision mode */
    "PREC-001", "PREC-002",
    /* MLA's own limits (D 512: query rows, heads, key/value heads,
     * sparse mode, page attention) */
    "MLA-010", "MLA-011", "MLA-012", "MLA-013", "MLA-015", "MLA-017",
    /* value's D against the key's (a single key/value; not LIST-008),
     * and the output's shape (the documents' rows and the released
     * readings of them; NM-018: what fiacheck cannot compute of the
     * latter is still zeros here) */
    "LAYOUT-006", "OUT-003", "LAYOUT-014", "OUT-005", "NM-018",
    /* the prefix length against the prefix's S, the mask and pse_shift */
    "PREFIX-007", "PREFIX-009", "PREFIX-010",
};

int orc_after_empty_kv(const fia_rule *r)
{
    if (r->kind != FIA_RULE_REJECT && r->kind != FIA_RULE_NOT_MODELED)
        return 0;
    for (size_t i = 0; i < sizeof after_return / sizeof after_return[0]; i++)
        if (strcmp(r->id, after_return[i]) == 0)
            return 1;
    return 0;
}

const char *orc_after_empty_kv_id(size_t i)
{
    return i < sizeof after_return / sizeof after_return[0] ? after_return[i]
                                                            : NULL;
}

/* Every batch's key length, as the operator reads it: the used
 * actual_seq_lengths_kv values, else the key's S (a list: each tensor's).
 * Unknown lengths (a malformed array, a paged cache without lengths, a
 * token layout whose arrays do not read) never count as empty: the rules
 * that reject them run. */
void orc_facts_order(const fia_case *c, fia_oracle_facts *f)
{
    (void)c;
    f->kv_none = 0;
    if (f->query_empty || f->B < 1 || (f->tnd ? !f->cum_ok : !f->q_rank_ok))
        return;
    if (f->kv_seq_given) {
        if (orc_used_count(f->kv_seq_count, f->B) == 0)
            return;
    } else if (f->paged || f->tnd || !(f->kv_list ? f->list_ok
                                                   : f->k_rank_ok)) {
        return;
    }
    /* one length for every batch (one value, or none and no list): the
     * first batch's says it, however many batches the call has */
    const int one = !f->tnd &&
                    (f->kv_seq_given ? f->kv_seq_count == 1 : !f->list_ok);
    int64_t n = one ? 1 : f->B;
    /* past a list's own tensors (ORC_LIST_MAX at most) every batch reads
     * the same default length, the key's S, unless the lengths give one
     * per batch (an array of B values, walked in memory anyway): the
     * first ORC_LIST_MAX + 1 batches hold every length there is, so the
     * cost does not grow with B */
    const int per_batch = f->tnd || (f->kv_seq_given && f->kv_seq_count > 1 &&
                                     f->kv_seq_count >= f->B);
    if (!per_batch && n > ORC_LIST_MAX + 1)
        n = ORC_LIST_MAX + 1;
    for (int64_t b = 0; b < n; b++)
        if (orc_kv_len(f, b) != 0)
            return;
    f->kv_none = 1;
}
