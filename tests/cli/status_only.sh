#!/usr/bin/env bash
# --status-only checks production-size configurations without making data.
. "$(dirname "$0")/lib.sh"

# B=4, S=10347, H=8192: about 680 MB of fp16 query alone; never allocated.
cat >"$tmp/prod.case" <<'CASE'
input_layout = BSH
num_heads = 64
scale = 0.08838834764831845
query = fp16 [4,10347,8192]
key = fp16 [4,10347,8192]
value = fp16 [4,10347,8192]
CASE
start=$(date +%s%N)
expect_exit 0 "$FIACHECK" run --status-only "$tmp/prod.case"
end=$(date +%s%N)
expect_grep "verdict +pass" "$tmp/out"
# Generous bound (sanitizer builds): the point is "no data", not speed.
if [ $(( (end - start) / 1000000 )) -lt 5000 ]; then ok; else bad "status-only took $(( (end - start) / 1000000 )) ms"; fi

# B = 65537 is rejected from the shapes alone, in both profiles.
expect_exit 0 "$FIACHECK" run --status-only corpus/cases/layout/reject_batch_over_limit.case
expect_grep "expected +161002" "$tmp/out"
expect_exit 0 "$FIACHECK" run --status-only --profile cann corpus/cases/layout/reject_batch_over_limit.case
expect_grep "expected +561002" "$tmp/out"
# Computing it would need gigabytes: without --status-only a rejected case
# is not computed either, so it is cheap too.
expect_exit 0 "$FIACHECK" run corpus/cases/layout/reject_batch_over_limit.case
# An accepted case too large for the reference is refused quickly with a
# clear message (exit 2), not computed for hours.
cat >"$tmp/huge.case" <<'CASE'
input_layout = BNSD
num_heads = 8
query = fp16 [1,8,8192,128]
key = fp16 [1,8,8192,128]
value = fp16 [1,8,8192,128]
CASE
expect_exit 2 "$FIACHECK" run "$tmp/huge.case"
expect_grep "too large to compute with the reference" "$tmp/out"
expect_exit 0 "$FIACHECK" run --status-only "$tmp/huge.case"
expect_exit 2 "$FIACHECK" run --max-work -1 "$tmp/huge.case"
expect_exit 2 "$FIACHECK" ref "$tmp/huge.case" --out "$tmp/huge.txt"
expect_grep "too large for the reference" "$tmp/err"
finish
