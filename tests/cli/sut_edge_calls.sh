#!/usr/bin/env bash
# Calls at the edge of what the rules accept, through every plug-in built
# (the oneDNN composition, ggml, ONNX Runtime): an accepted call must come
# back with a verdict, never a crash.  An empty query returns at once in
# FIA (the checks that follow never run), so a length array shorter than
# the batch and a key tensor of 2^31 batches are accepted: a plug-in that
# reads them anyway reads out of bounds (found by fuzz_params against
# ggml: heap-buffer-overflow in the plug-in's own length reader) or
# allocates without end.
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$FIACHECK")
cat >"$tmp/empty_query_short_lengths.case" <<'CASE'
num_heads = 2
input_layout = BSH
sparse_mode = 2
query = fp16 [257,0,32]
key = fp16 [257,16,32]
value = fp16 [257,16,32]
atten_mask = bool [2048,2048]
actual_seq_lengths_kv = [5,7,15,10,0,0,9,12,16,3,6,16,13,3,9,11]
CASE
cat >"$tmp/empty_query_huge_batch.case" <<'CASE'
num_heads = 65
input_layout = BSND
query = fp16 [2147483648,0,65,16]
key = fp16 [2147483648,65537,65,16]
value = fp16 [2147483648,65537,65,16]
CASE
printf 'leak:libonnxruntime.so\nleak:libstdc++.so\n' >"$tmp/lsan.supp"
n=0
for p in onednn ggml onnxruntime; do
  so=$bin/plugins/libfiacheck_sut_$p.so
  [ -f "$so" ] || continue
  n=$((n + 1))
  LSAN_OPTIONS="suppressions=$tmp/lsan.supp" expect_exit 0 "$FIACHECK" \
    run "$tmp/empty_query_short_lengths.case" --sut "$so"
  expect_grep "verdict +(pass|vacuous)" "$tmp/out"
  # too large to materialize: phase one alone (as fuzz_params calls it)
  LSAN_OPTIONS="suppressions=$tmp/lsan.supp" expect_exit 0 "$FIACHECK" \
    run --status-only "$tmp/empty_query_huge_batch.case" --sut "$so"
  expect_grep "verdict +(pass|vacuous|not-modeled)" "$tmp/out"
done
[ "$n" -gt 0 ] || skip "no third-party plug-in built (oneDNN, scripts/thirdparty.sh)"
finish
