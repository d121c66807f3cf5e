#!/usr/bin/env bash
# Cases that compare nothing must not pass quietly: non-finite inputs in
# positions that take part are compared exactly (docs/semantics.md
# "Non-finite inputs"), and a case where nothing is compared is `vacuous`.
. "$(dirname "$0")/lib.sh"
C=corpus/cases

# NaN in query row 0: its 16 outputs and its lse are NaN and compared.
expect_exit 0 "$FIACHECK" run --json $C/tensors/nonfinite_nan_query_row.case
expect_grep '"verdict":"pass"' "$tmp/out"
expect_grep '"compared":32,"unspecified":0' "$tmp/out"
expect_grep '"lse_compared":2,"lse_unspecified":0' "$tmp/out"

# +inf in key 1: row 0 NaN, row 1 the softmax without key 1; all compared.
expect_exit 0 "$FIACHECK" run --json $C/tensors/nonfinite_inf_key.case
expect_grep '"verdict":"pass"' "$tmp/out"
expect_grep '"compared":32,"unspecified":0' "$tmp/out"
expect_grep '"lse_compared":2,"lse_unspecified":0' "$tmp/out"

# +inf / -inf values: the NaN and +inf columns are compared too.
expect_exit 0 "$FIACHECK" run --json $C/tensors/nonfinite_inf_value.case
expect_grep '"compared":32,"unspecified":0' "$tmp/out"

# Every element unspecified: vacuous, not pass; exit 0; counted apart.
expect_exit 0 "$FIACHECK" run $C/mask/all_rows_masked_vacuous.case
expect_grep 'verdict +vacuous' "$tmp/out"
expect_grep '1 cases: 0 passed, 1 vacuous, 0 findings' "$tmp/out"
expect_exit 0 "$FIACHECK" run --json $C/mask/all_rows_masked_vacuous.case
expect_grep '"verdict":"vacuous"' "$tmp/out"
# Both kinds in one run: counted separately.
expect_exit 0 "$FIACHECK" run $C/mask/all_rows_masked_vacuous.case \
  $C/tensors/nonfinite_inf_key.case
expect_grep '2 cases: 1 passed, 1 vacuous, 0 findings' "$tmp/out"
# The masked-out NaN/inf values still do not leak (and are not compared).
expect_exit 0 "$FIACHECK" run $C/mask/masked_nonfinite_values.case
expect_grep 'verdict +pass' "$tmp/out"

# A first block of keys all scoring -inf no longer makes the row NaN
# (fast/'s online softmax once computed exp(-inf - (-inf))).
expect_exit 0 "$FIACHECK" run $C/tensors/nonfinite_leading_block_neg_inf_scores.case
expect_grep 'verdict +pass' "$tmp/out"

finish
