# fiacheck rules --api NAME: the catalogue in an interface's words, each
# rule marked by whether it concerns what the interface has (docs/cli.md).
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$FIACHECK" rules --api torch_npu_v2
expect_grep '^SEQ-001 .* yes +Q_S > 1: an actual_seq_qlen array' "$tmp/out"
expect_grep '^LSE-001 .* yes +return_softmax_lse set' "$tmp/out"
expect_grep '^PAD-N01 .* no .*\[feature padding' "$tmp/out"
expect_grep '^[0-9]+ rules: [0-9]+ concern what torch_npu_v2 has' "$tmp/out"

expect_exit 0 "$FIACHECK" rules --api incre_flash_attention
expect_grep '^SEQ-011 .* yes +an actual_seq_lengths array' "$tmp/out"
expect_grep '^SEQ-001 .* no .*actual_seq_lengths\(n/a\)' "$tmp/out"
expect_grep '^SPARSE-001 .* no .*Q_S > 1 \(decode only\)' "$tmp/out"

# --present leaves out what the interface lacks
expect_exit 0 "$FIACHECK" rules --api incre_flash_attention --present
if grep -Eq '^SPARSE-001 ' "$tmp/out"; then bad "--present shows SPARSE-001"; else ok; fi
expect_grep '^GQA-002 .* yes ' "$tmp/out"

# aclnn_v2 has every parameter; it lacks only 001's second product (the
# inference card's rows) and 003 / 004's reserved *_dtype; the JSON
# carries the view
expect_exit 0 "$FIACHECK" rules --api aclnn_v2 --json
if grep '"concerns":false' "$tmp/out" |
   grep -Evq '"absent":\["feature (product|reserved)"\]'; then
  bad "aclnn_v2 lacks something besides the product"; else ok; fi
expect_grep '"id":"PROD-006".*"api":"aclnn_v2","concerns":false' "$tmp/out"
expect_grep '"id":"RSV-N01".*"api":"aclnn_v2","concerns":false' "$tmp/out"
expect_exit 0 "$FIACHECK" rules --api torch_npu_v2 --present
expect_grep "^RSV-N01 .* yes " "$tmp/out"
expect_exit 0 "$FIACHECK" rules --api incre_flash_attention --present
expect_grep '^PROD-006 .* yes ' "$tmp/out"
expect_exit 0 "$FIACHECK" rules --api torchair_v2 --json
expect_grep '"id":"PAD-N01".*"api":"torchair_v2","concerns":false,"absent":\["feature padding"' "$tmp/out"

expect_exit 2 "$FIACHECK" rules --api torch_npu
expect_grep "unknown interface 'torch_npu'" "$tmp/err"
expect_exit 2 "$FIACHECK" rules --present
expect_exit 2 "$FIACHECK" rules --api mindspore --coverage corpus/cases/api/mindspore_prefill.case
finish
