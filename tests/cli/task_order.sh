#!/usr/bin/env bash
# task_order = N: fast/ runs the call's tasks on one thread in the order N
# picks, planned for the case's threads; results pass as with the threads
# (decode splits, a shared prefix's tasks, prefill), the line round-trips,
# and a bad value is a bad input.
. "$(dirname "$0")/lib.sh"

for c in corpus/cases/prefix/prefix_decode_split_batches.case \
         corpus/cases/prefix/prefix_decode_bsh_gqa.case \
         corpus/cases/gqa/gqa_bnsd_causal.case \
         corpus/cases/tensors/nonfinite_inf_value.case; do
  for seed in 1 7 123456789; do
    { grep -v '^threads =\|^task_order =' "$c"; printf 'threads = 3\ntask_order = %s\n' "$seed"; } >"$tmp/t.case"
    expect_exit 0 "$FIACHECK" run "$tmp/t.case"
  done
done
# the regression case of the bug the order makes show every time
expect_exit 0 "$FIACHECK" run corpus/cases/tensors/nonfinite_decode_keyless_split_task_order.case
# bad values and a second line: bad input
for v in 0 -1 x 18446744073709551616; do
  { cat corpus/cases/gqa/gqa_bnsd_causal.case; echo "task_order = $v"; } >"$tmp/b.case"
  expect_exit 2 "$FIACHECK" run "$tmp/b.case"
  expect_grep 'task_order' "$tmp/out"
done
{ cat corpus/cases/gqa/gqa_bnsd_causal.case; printf 'task_order = 3\ntask_order = 4\n'; } >"$tmp/b.case"
expect_exit 2 "$FIACHECK" run "$tmp/b.case"
finish
