#!/usr/bin/env bash
# The JSON report's fields and the reference's text output.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$FIACHECK" run --json corpus/cases/gqa/gqa_bnsd_causal.case corpus/cases/tensors/reject_query_null.case
n=$(wc -l <"$tmp/out")
if [ "$n" -eq 2 ]; then ok; else bad "wanted 2 JSON lines, got $n"; fi
for key in '"case":' '"expected_status":0' '"fast_status":0' '"rules":\[' '"verdict":"pass"' '"max_ulp":' '"max_rel_err":'; do
  expect_grep "$key" "$tmp/out"
done
expect_grep '"expected_status":161001' "$tmp/out"
if python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out" 2>/dev/null; then ok; else
  command -v python3 >/dev/null && bad "JSON lines do not parse" || ok; fi

# ref: one value per line for [2,8,16,32] -> 8192 lines, then "lse" and 2*8*16.
expect_exit 0 "$FIACHECK" ref corpus/cases/gqa/gqa_bnsd_causal.case --out "$tmp/ref.txt"
lines=$(wc -l <"$tmp/ref.txt")
if [ "$lines" -eq $((8192 + 1 + 256)) ]; then ok; else bad "ref wrote $lines lines"; fi
expect_grep '^lse$' "$tmp/ref.txt"
# Batch 1 has 7 valid query rows of 16: the rest are unspecified.
expect_grep '^unspecified$' "$tmp/ref.txt"
finish
