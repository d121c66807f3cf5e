#!/usr/bin/env bash
# minimize keeps the intents the minimized case still meets and drops the
# others (saying so): the written case reports the finding, never
# intent-unmet, and once the bug is gone it passes, as tests/regress/ needs.
. "$(dirname "$0")/lib.sh"
C=corpus/cases/gqa/gqa_bnsd_causal.case
grep -q '^intent = .*ragged_seqlen' $C && ok || bad "$C has no ragged_seqlen intent any more"
# a zero tolerance makes it fail; minimizing shrinks the batches and heads
expect_exit 0 "$FIACHECK" minimize $C --tolerance allclose 0 0 --max-attempts 400 --out "$tmp/m.case"
expect_grep 'intent ragged_seqlen dropped' "$tmp/err"
if grep -q '^intent = .*ragged_seqlen' "$tmp/m.case"; then bad "the unmet intent was kept"; else ok; fi
# the finding, not intent-unmet, under the tolerance it was found with
expect_exit 1 "$FIACHECK" repro "$tmp/m.case"
expect_grep 'verdict +accuracy' "$tmp/out"
expect_exit 1 "$FIACHECK" run --tolerance allclose 0 0 "$tmp/m.case"
expect_grep 'verdict +accuracy' "$tmp/out"
# "fixed" (the default tolerance): it passes, as a regression case must
expect_exit 0 "$FIACHECK" run "$tmp/m.case"
expect_grep 'verdict +pass' "$tmp/out"
# an intent the minimized case still meets stays
printf 'intent = gqa_group\n' >"$tmp/g.case"
grep -v '^intent' $C >>"$tmp/g.case"
expect_exit 0 "$FIACHECK" minimize "$tmp/g.case" --tolerance allclose 0 0 --max-attempts 60 --out "$tmp/g_min.case"
if grep -q '^intent = gqa_group' "$tmp/g_min.case"; then
  expect_exit 0 "$FIACHECK" run "$tmp/g_min.case"
else
  # the shrinking removed the grouping: then it was dropped, and said
  expect_grep 'intent gqa_group dropped' "$tmp/err"
fi
finish
