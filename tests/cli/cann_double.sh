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
finish
