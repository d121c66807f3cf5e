#!/usr/bin/env bash
# Case intents (docs/case-format.md "Intents"): a case that says what it
# exercises fails with `intent-unmet` when it does not.  Each intent has a
# case meeting it (in the corpus) and one altered so it does not
# (tests/intent/unmet_<intent>.case: for fully_masked_rows and
# masked_nonfinite_read, the old corpus cases that did not test their name).
. "$(dirname "$0")/lib.sh"
C=corpus/cases
U=tests/intent

# An unknown name is a parse error naming the valid ones.
printf 'intent = fully_masked_rows, no_such_intent\nquery = fp16 [1,1,4,16]\nkey = fp16 [1,1,8,16]\nvalue = fp16 [1,1,8,16]\n' >"$tmp/bad.case"
expect_exit 2 "$FIACHECK" run "$tmp/bad.case"
expect_grep "bad.case:1: .*no_such_intent.*fully_masked_rows.*masked_nonfinite_read.*rejected" "$tmp/out"
printf 'intent = gqa_group\nintent = gqa_group\nquery = fp16 [1,1,4,16]\nkey = fp16 [1,1,8,16]\nvalue = fp16 [1,1,8,16]\n' >"$tmp/dup.case"
expect_exit 2 "$FIACHECK" run "$tmp/dup.case"
expect_grep "duplicate key 'intent'" "$tmp/out"

# Met: the case passes, and --json lists each intent as met.
met() { # CASE INTENT...
  local f=$1; shift
  expect_exit 0 "$FIACHECK" run --json "$f"
  expect_grep '"verdict":"pass"' "$tmp/out"
  for i in "$@"; do
    expect_grep "\"intents\":\\[.*\\{\"intent\":\"$i\",\"met\":true," "$tmp/out"
  done
}
met $C/precise/row_invalid_fully_masked.case fully_masked_rows
met $C/mask/masked_nonfinite_values.case masked_nonfinite_read nonfinite_live
met $C/tensors/nonfinite_inf_key.case nonfinite_live
met $C/layout/decode_split_kv_ragged.case split_decode beyond_key_block \
  ragged_seqlen gqa_group
met $C/seqlen/seqlen_per_batch.case ragged_seqlen
met $C/gqa/gqa_bnsd_causal.case gqa_group
met $C/layout/reject_layout_unknown.case rejected

# Unmet: each altered case fails with intent-unmet naming its intent;
# exit 1, in text and in JSON.
for f in $U/unmet_*.case; do
  i=$(basename "$f" .case); i=${i#unmet_}
  expect_exit 1 "$FIACHECK" run "$f"
  expect_grep "verdict +intent-unmet: .*$i" "$tmp/out"
  expect_grep "1 cases: 0 passed, 0 vacuous, 0 findings, 0 not modeled, 0 bad input, 1 intent unmet" "$tmp/out"
  expect_exit 1 "$FIACHECK" run --json "$f"
  expect_grep '"verdict":"intent-unmet"' "$tmp/out"
  expect_grep "\"intents\":\\[\\{\"intent\":\"$i\",\"met\":false," "$tmp/out"
done

# The old fully masked case: every row keeps a key (lse finite everywhere).
expect_exit 1 "$FIACHECK" run $U/unmet_fully_masked_rows.case
expect_grep 'fully_masked_rows: .*every one of the 16 rows' "$tmp/out"

# A finding wins over an unmet intent; a pass with one met and one unmet
# intent is intent-unmet.
cat $C/layout/decode_split_kv_ragged.case >"$tmp/mixed.case"
sed -i 's/^intent = .*/intent = split_decode, fully_masked_rows/' "$tmp/mixed.case"
expect_exit 1 "$FIACHECK" run --json "$tmp/mixed.case"
expect_grep '"verdict":"intent-unmet"' "$tmp/out"
expect_grep '\{"intent":"fully_masked_rows","met":false,.*\{"intent":"split_decode","met":true,' "$tmp/out"

# --status-only computes nothing: intents that need the data are not
# checked (met null), `rejected` still is.
expect_exit 0 "$FIACHECK" run --json --status-only $U/unmet_fully_masked_rows.case
expect_grep '"verdict":"pass"' "$tmp/out"
expect_grep '\{"intent":"fully_masked_rows","met":null,' "$tmp/out"
expect_exit 1 "$FIACHECK" run --status-only $U/unmet_rejected.case
expect_grep 'verdict +intent-unmet: rejected' "$tmp/out"

# A case without intents reports an empty list.
expect_exit 0 "$FIACHECK" run --json $C/layout/bsh_prefill_fp16.case
expect_grep '"intents":\[\]' "$tmp/out"

finish
