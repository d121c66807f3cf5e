#!/usr/bin/env bash
# --tolerance cann-double: the bound's verdict per element plus the
# vendor's double benchmark over attention_out, printed beside it (text
# and JSON); fast/ passes it on the GQA cases of the corpus.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$FIACHECK" run --tolerance cann-double corpus/cases/gqa/*.case
expect_grep "^  cann-double    pass over [0-9]+ elements: kernel / benchmark max rel err" "$tmp/out"
expect_grep "7 passed" "$tmp/out"
expect_exit 0 "$FIACHECK" run --json --tolerance cann-double corpus/cases/gqa/gqa_bnsd_causal.case
expect_grep '"cann_double":\{"pass":true,"n":[0-9]+,"kernel_max_re":.*"ratios":\[' "$tmp/out"
# the default profile does not measure it
expect_exit 0 "$FIACHECK" run --json corpus/cases/gqa/gqa_bnsd_causal.case
if grep -q cann_double "$tmp/out"; then bad "cann_double without the profile"; else ok; fi
expect_exit 0 "$FIACHECK" repro --tolerance cann-double corpus/cases/gqa/gqa_bnsd_causal.case
expect_exit 2 "$FIACHECK" run --tolerance cann corpus/cases/gqa/gqa_bnsd_causal.case
expect_grep "cann-double" "$tmp/err"
# each printed ratio is the quotient of the two figures printed beside it:
# a benchmark below its floor is shown as the floor it was taken as
for c in corpus/cases/antiquant/combined_per_token_decode.case \
         corpus/cases/antiquant/int4_separate_per_channel_decode.case \
         corpus/cases/gqa/gqa_bnsd_causal.case; do
  expect_exit 0 "$FIACHECK" run --tolerance cann-double "$c"
  if python3 - "$tmp/out" <<'PY'; then ok; else bad "$c: a ratio that is not the figures' quotient"; grep cann-double "$tmp/out" >&2; fi
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("  cann-double")][0]
figs = re.findall(r"(\S+) / (\S+)(?: \([^)]*\))? = (\S+)", line)
assert len(figs) == 3, line
for a, b, r in figs:
    a, b, r = float(a), float(b), float(r)
    assert b > 0 and abs(a / b - r) <= 0.01 * r, (a, b, r)
PY
done
expect_exit 0 "$FIACHECK" run --tolerance cann-double corpus/cases/antiquant/combined_per_token_decode.case
expect_grep 'RMSE [0-9.e-]+ / [0-9.e-]+ \(the floor; the benchmark [0-9.e-]+\) = ' "$tmp/out"
finish
