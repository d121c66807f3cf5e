#!/usr/bin/env bash
# ONNX Runtime's CPU GroupQueryAttention as a system under test
# (plugins/onnxruntime): calls it maps pass, calls it cannot express are
# "not covered" (never a finding), a call the rules reject is not asked,
# and every divergence fiacheck found in it (corpus/sut_onnxruntime/, each
# with its "# onnxruntime: VERDICT" line) is still reported while fast/
# passes the same case.  Exit 77 (skipped) when the plug-in is not built.
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$FIACHECK")
so=$bin/plugins/libfiacheck_sut_onnxruntime.so
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$so" ]; then
  why="$so not built (scripts/thirdparty.sh installs ONNX Runtime)"
  [ -f "$root/build/thirdparty/UNAVAILABLE" ] &&
    why=$(cat "$root/build/thirdparty/UNAVAILABLE")
  skip "$why"
fi
# libonnxruntime (not instrumented) leaks a few bytes per process, through
# its own frames or operator new (the plug-in is C and calls no operator
# new): those are suppressed, the plug-in's own allocations stay checked
printf 'leak:libonnxruntime.so\nleak:libstdc++.so\n' >"$tmp/lsan.supp"
export LSAN_OPTIONS="suppressions=$tmp/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# 1. Calls it maps: one case per mapping.
cat >"$tmp/decode_mask_pse.case" <<'CASE'
# the decode path: GQA 4/1, key lengths, a (B, KV_S) mask and pse as
# attention_bias
input_layout = BSND
num_heads = 4
num_key_value_heads = 1
scale = 0.125
query = fp16 [3,1,4,32]
key = fp16 [3,40,1,32]
value = fp16 [3,40,1,32]
atten_mask = uint8 [3,40]
atten_mask.gen = random(0.3)
pse_shift = fp16 [3,4,1,40]
actual_seq_lengths_kv = [40,17,2]
seed = 7
CASE
cat >"$tmp/causal_past.case" <<'CASE'
# right-down causal with KV_S > Q_S and per-batch lengths: a past cache,
# run batch by batch
input_layout = BSND
num_heads = 4
num_key_value_heads = 2
scale = 0.25
sparse_mode = 3
query = fp16 [2,5,4,16]
key = fp16 [2,9,2,16]
value = fp16 [2,9,2,16]
atten_mask = bool [2048,2048]
actual_seq_lengths = [5,3]
actual_seq_lengths_kv = [9,6]
seed = 5
CASE
cat >"$tmp/band_bf16.case" <<'CASE'
# bf16 (run as float32), BNSD in, BSND out, sparse 4 with next_tokens 0:
# local_window_size = pre_tokens + 1
input_layout = BNSD_BSND
num_heads = 2
num_key_value_heads = 1
scale = 0.125
sparse_mode = 4
pre_tokens = 3
next_tokens = 0
query = bf16 [2,2,6,16]
key = bf16 [2,1,10,16]
value = bf16 [2,1,10,16]
atten_mask = bool [2048,2048]
actual_seq_lengths = [6,4]
seed = 3
CASE
cat >"$tmp/sink_prefill.case" <<'CASE'
# learnable_sink as head_sink, BNSD, sparse 3 with KV_S = Q_S
input_layout = BNSD
num_heads = 4
num_key_value_heads = 1
scale = 0.125
sparse_mode = 3
query = bf16 [1,4,6,32]
key = bf16 [1,1,6,32]
value = bf16 [1,1,6,32]
atten_mask = bool [2048,2048]
learnable_sink = bf16 [4]
seed = 9
CASE
cat >"$tmp/sink_decode_fp16.case" <<'CASE'
# an fp16 decode with a bf16 sink (converted exactly to fp16), BSH
input_layout = BSH
num_heads = 4
num_key_value_heads = 2
scale = 0.125
query = fp16 [3,1,128]
key = fp16 [3,20,64]
value = fp16 [3,20,64]
learnable_sink = bf16 [4]
actual_seq_lengths_kv = [20,7,1]
seed = 4
CASE
cat >"$tmp/sparse2_equal.case" <<'CASE'
# left-up causal where it equals right-down (q_len = kv_len per batch)
input_layout = BSH
num_heads = 2
scale = 0.25
sparse_mode = 2
query = fp16 [2,7,32]
key = fp16 [2,7,32]
value = fp16 [2,7,32]
atten_mask = bool [2048,2048]
actual_seq_lengths = [7,4]
actual_seq_lengths_kv = [7,4]
seed = 8
CASE
cat >"$tmp/sparse0_mask_band.case" <<'CASE'
# sparse 0 with a (B, 1, Q_S, KV_S) mask and a band (pre/next): GQA with
# causal = 0, the key set as attention_bias; KV_S > Q_S gives a past
input_layout = BSND
num_heads = 4
num_key_value_heads = 2
scale = 0.25
sparse_mode = 0
pre_tokens = 6
next_tokens = 3
query = fp16 [2,5,4,16]
key = fp16 [2,11,2,16]
value = fp16 [2,11,2,16]
atten_mask = bool [2,1,5,11]
atten_mask.gen = random(0.3)
actual_seq_lengths = [5,4]
actual_seq_lengths_kv = [11,7]
seed = 11
CASE
cat >"$tmp/sparse1_mask_bf16.case" <<'CASE'
# sparse 1 (the mask alone) with a (Q_S, KV_S) mask, bf16 (float32
# kernel), BNSD, pse_shift added
input_layout = BNSD
num_heads = 2
scale = 0.125
sparse_mode = 1
query = bf16 [2,2,6,32]
key = bf16 [2,2,9,32]
value = bf16 [2,2,9,32]
atten_mask = uint8 [6,9]
atten_mask.gen = random(0.4)
pse_shift = bf16 [2,2,6,9]
seed = 12
CASE
cat >"$tmp/sparse0_nomask.case" <<'CASE'
# sparse 0 without a mask at Q_S > 1: every key, q_len < kv_len
input_layout = BSH
num_heads = 2
num_key_value_heads = 1
scale = 0.25
query = fp16 [2,4,32]
key = fp16 [2,10,16]
value = fp16 [2,10,16]
actual_seq_lengths = [4,2]
actual_seq_lengths_kv = [3,10]
seed = 13
CASE
cat >"$tmp/band_next.case" <<'CASE'
# sparse 4 with next_tokens > 0 (not GQA's window): explicit pattern;
# kv_len < q_len leaves batch 1's first rows keyless (unspecified: no
# correction in mode 4)
input_layout = BNSD_BSND
num_heads = 2
scale = 0.25
sparse_mode = 4
pre_tokens = 2
next_tokens = 1
inner_precise = 0
query = bf16 [2,2,6,16]
key = bf16 [2,2,8,16]
value = bf16 [2,2,8,16]
atten_mask = bool [2048,2048]
actual_seq_lengths = [6,6]
actual_seq_lengths_kv = [8,3]
seed = 14
CASE
cat >"$tmp/headdim_decode.case" <<'CASE'
# head dim 20, not a multiple of 8: zero columns up to 24; decode with a
# mask
input_layout = BSND
num_heads = 2
scale = 0.2
query = fp16 [2,1,2,20]
key = fp16 [2,30,2,20]
value = fp16 [2,30,2,20]
atten_mask = bool [2,30]
atten_mask.gen = random(0.3)
actual_seq_lengths_kv = [30,9]
seed = 15
CASE
cat >"$tmp/paged_prefill_mask.case" <<'CASE'
# page attention: a 4-D cache behind a block table (ids reordered), gathered
# into GQA's past and new tokens; sparse 0 with a mask: explicit pattern
input_layout = BNSD
num_heads = 2
query = fp16 [2,2,8,64]
key = fp16 [4,2,128,64]
value = fp16 [4,2,128,64]
block_size = 128
block_table = int32 [2,2]
block_table.values = 2,0, 3,1
actual_seq_lengths_kv = [200,90]
atten_mask = bool [2,1,8,256]
atten_mask.gen = random(0.2)
seed = 16
CASE
for c in decode_mask_pse causal_past band_bf16 sink_prefill sink_decode_fp16 \
         sparse2_equal sparse0_mask_band sparse1_mask_bf16 sparse0_nomask \
         band_next headdim_decode paged_prefill_mask; do
  expect_exit 0 "$FIACHECK" run "$tmp/$c.case" --sut "$so"
  expect_grep "verdict +pass" "$tmp/out"
  expect_grep "[1-9][0-9]* compared, [0-9]+ unspecified, 0 outside" "$tmp/out"
done
expect_grep "onnxruntime 1\.[0-9]+\+ort1\.30\.0 \(numbers only\)" "$tmp/out"

# 2. Calls it cannot express: not covered, with the reason; not findings.
nc() { # CASE REASON-PATTERN
  expect_exit 0 "$FIACHECK" run "$1" --sut "$so"
  expect_grep "not-modeled: not covered by onnxruntime: 990001 NOT_MODELED: $2" \
    "$tmp/out"
}
nc corpus/cases/gqa/gqa_bnsd_causal.case "softmax_lse: GQA has no lse"
nc corpus/cases/int8_out/obey_oq001_prefill.case "quant_scale2 has no"
nc corpus/cases/paged/decode_bnsd_4d_bs128_empty_batch.case "batch 0 row 0 has no key and FIA gives it 0"
nc corpus/cases/sparse/tokens_beyond_int32.case "batch 0 row 0 has no key and FIA gives it 0"
nc corpus/cases/tensor_list/prefill_bnsd_ragged_tensors.case "one key and one value tensor"
# a call the rules reject is not asked at all
expect_exit 0 "$FIACHECK" run corpus/cases/mask/reject_mask_fp16.case --sut "$so"
expect_grep "not judged: onnxruntime checks numbers only" "$tmp/out"

# 3. The divergences fiacheck found: each still reported, with its
#    verdict, and a pass for fast/ on the same case.
n=0
for c in corpus/sut_onnxruntime/*.case; do
  want=$(sed -n 's/^# onnxruntime: //p' "$c")
  [ -n "$want" ] || { bad "$c has no '# onnxruntime: VERDICT' line"; continue; }
  if [ "$want" = not-covered ]; then # a semantic difference, refused
    expect_exit 0 "$FIACHECK" run "$c" --sut "$so"
    expect_grep "verdict +not-modeled: not covered by onnxruntime" "$tmp/out"
  else
    expect_exit 1 "$FIACHECK" run "$c" --sut "$so"
    expect_grep "verdict +$want" "$tmp/out"
  fi
  expect_exit 0 "$FIACHECK" run "$c"
  n=$((n + 1))
done
[ "$n" -ge 3 ] && ok || bad "only $n cases in corpus/sut_onnxruntime"

# 4. A short survey: covered calls judged, findings under the system's name.
"$FIACHECK" survey --sut "$so" --cases 300 --db "$tmp/s.db" --quiet \
  >"$tmp/out" 2>&1
expect_grep "survey of 300 cases" "$tmp/out"
"$FIACHECK" db systems --db "$tmp/s.db" >"$tmp/sys.txt" 2>&1
expect_grep "^onnxruntime +1\.[0-9]+\+ort1\.30\.0 +1 +[1-9][0-9]* " "$tmp/sys.txt"
finish
