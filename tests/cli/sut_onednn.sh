#!/usr/bin/env bash
# The oneDNN composition as a system under test (plugins/onednn): calls it
# computes right pass, calls it does not compose are "not covered" (never a
# finding), a call the rules reject is not asked, and every defect fiacheck
# found in it (corpus/sut_onednn/, each with its "# onednn: VERDICT" line)
# is still reported: exit 1 and that verdict, while fast/ passes the same
# case (the case is valid and the defect is the composition's).
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$FIACHECK")
so=$bin/plugins/libfiacheck_sut_onednn.so
if [ ! -f "$so" ]; then
  skip "$so not built (oneDNN, libdnnl-dev, not found)"
fi
export OMP_NUM_THREADS=1 # oneDNN's threads: one is enough for these sizes

# 1. Calls it computes: each feature it composes, one case each.
cat >"$tmp/fp16_bsh_mask_pse_lse.case" <<'CASE'
# fp16, BSH, GQA 4/2, sparse 0 with a mask and a pre/next band, pse,
# per-batch key lengths, lse
input_layout = BSH
num_heads = 4
num_key_value_heads = 2
scale = 0.25
pre_tokens = 6
next_tokens = 2
inner_precise = 0
softmax_lse_flag = true
query = fp16 [2,8,64]
key = fp16 [2,12,32]
value = fp16 [2,12,32]
atten_mask = bool [2,8,12]
atten_mask.gen = random(0.2)
pse_shift = fp16 [2,4,8,12]
actual_seq_lengths_kv = [12,9]
seed = 11
CASE
cat >"$tmp/bf16_bnsd_bsnd_band.case" <<'CASE'
# bf16, BNSD in, BSND out, GQA, band (sparse 4) about the right-down
# diagonal, per-batch query lengths
input_layout = BNSD_BSND
num_heads = 2
num_key_value_heads = 1
scale = 0.125
sparse_mode = 4
pre_tokens = 5
next_tokens = 1
query = bf16 [2,2,6,16]
key = bf16 [2,1,10,16]
value = bf16 [2,1,10,16]
atten_mask = bool [2048,2048]
actual_seq_lengths = [6,4]
seed = 3
CASE
cat >"$tmp/fp16_bsnd_causal.case" <<'CASE'
# fp16, BSND, right-down causal (sparse 3) with KV_S > Q_S, lse
input_layout = BSND
num_heads = 2
scale = 0.25
sparse_mode = 3
softmax_lse_flag = true
query = fp16 [1,5,2,16]
key = fp16 [1,9,2,16]
value = fp16 [1,9,2,16]
atten_mask = bool [1,1,2048,2048]
seed = 5
CASE
cat >"$tmp/decode_mask_bs.case" <<'CASE'
# the decode path (Q_S = 1): a (B, KV_S) uint8 mask, key lengths
input_layout = BSND
num_heads = 4
num_key_value_heads = 1
scale = 0.125
query = fp16 [3,1,4,32]
key = fp16 [3,40,1,32]
value = fp16 [3,40,1,32]
atten_mask = uint8 [3,40]
atten_mask.gen = random(0.3)
actual_seq_lengths_kv = [40,17,1]
seed = 7
CASE
# oneDNN computes bf16 only where the CPU has AVX-512 (its bf16 matmul):
# elsewhere a bf16 call is not covered, and the bf16 checks are skipped,
# saying so
bf16=1
"$FIACHECK" run "$tmp/bf16_bnsd_bsnd_band.case" --sut "$so" >"$tmp/probe" 2>&1
if grep -q "implements no primitive for this call on this CPU" "$tmp/probe"; then
  bf16=0
  echo "SKIPPED here: the bf16 checks (oneDNN has no bf16 matmul on this CPU)"
  expect_grep "verdict +not-modeled: not covered by onednn: 990001 NOT_MODELED" \
    "$tmp/probe"
fi
for c in fp16_bsh_mask_pse_lse bf16_bnsd_bsnd_band fp16_bsnd_causal \
         decode_mask_bs; do
  [ $bf16 = 1 ] || [ "${c#bf16}" = "$c" ] || continue
  expect_exit 0 "$FIACHECK" run "$tmp/$c.case" --sut "$so"
  expect_grep "verdict +pass" "$tmp/out"
  expect_grep "[1-9][0-9]* compared, [0-9]+ unspecified, 0 outside" "$tmp/out"
done
expect_grep "onednn 1\.[0-9]+\+dnnl[0-9.]+ \(numbers only\)" "$tmp/out"

# 2. Calls it does not compose: not covered, with its reason; not findings.
for c in corpus/cases/int8_out/obey_oq001_prefill.case \
         corpus/cases/tnd/tnd_d192.case; do
  expect_exit 0 "$FIACHECK" run "$c" --sut "$so"
  expect_grep "not-modeled: not covered by onednn: 990001 NOT_MODELED: " \
    "$tmp/out"
done
expect_grep "layout TND" "$tmp/out"
# a call the rules reject is not asked at all
expect_exit 0 "$FIACHECK" run corpus/cases/mask/reject_mask_fp16.case --sut "$so"
expect_grep "not judged: onednn checks numbers only" "$tmp/out"

# 3. The defects fiacheck found: each still reported, with its verdict,
#    and a pass for fast/ on the same case.
n=0
for c in corpus/sut_onednn/*.case; do
  want=$(sed -n 's/^# onednn: //p' "$c")
  [ -n "$want" ] || { bad "$c has no '# onednn: VERDICT' line"; continue; }
  if [ $bf16 = 0 ] && grep -q "^query = bf16" "$c"; then
    expect_exit 0 "$FIACHECK" run "$c" # fast/ still passes it
    n=$((n + 1)); continue
  fi
  expect_exit 1 "$FIACHECK" run "$c" --sut "$so"
  expect_grep "verdict +$want" "$tmp/out"
  expect_exit 0 "$FIACHECK" run "$c"
  n=$((n + 1))
done
[ "$n" -ge 9 ] && ok || bad "only $n cases in corpus/sut_onednn"

# 4. A short survey: findings stored under the system's name, and a NaN
#    leak's metrics (infinite ulp distance) stored as JSON (null, not inf).
expect_exit 1 "$FIACHECK" survey --sut "$so" --cases 40 --db "$tmp/s.db" --quiet
expect_grep "survey of 40 cases" "$tmp/out"
"$FIACHECK" db findings --db "$tmp/s.db" >"$tmp/f.txt" 2>&1
expect_grep "onednn:nan-leak\|" "$tmp/f.txt"
id=$(awk '/onednn:nan-leak/ {print $1; exit}' "$tmp/f.txt")
"$FIACHECK" db show "$id" --db "$tmp/s.db" >"$tmp/show.txt" 2>&1
expect_grep '^  metrics    \{"max_ulp":null,' "$tmp/show.txt"
if grep -Eq '^  metrics .*:-?(inf|nan)[,}]' "$tmp/show.txt"; then
  bad "non-JSON metrics: $(grep metrics "$tmp/show.txt")"; else ok; fi
finish
