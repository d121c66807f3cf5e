#!/usr/bin/env bash
# llama.cpp's ggml flash attention as a system under test (plugins/ggml):
# the calls it is given pass, the calls it cannot express are "not
# covered" (never a finding), each defect fiacheck found in it
# (corpus/sut_ggml/, each with its "# ggml: VERDICT" line) is still
# reported while fast/ passes the same case, and the whole corpus through
# it is triaged: every case passes, is not covered, is vacuous, or is an
# fp16 case whose finding goes away when key and value are widened to
# float32 (the float16 accumulator, corpus/sut_ggml/fp16_value_accumulator).
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$FIACHECK")
so=$bin/plugins/libfiacheck_sut_ggml.so
if [ ! -f "$so" ]; then
  why="ggml not installed (scripts/thirdparty.sh)"
  un=build/thirdparty/UNAVAILABLE
  [ -f "$un" ] && why="$why: $(cat "$un")"
  skip "$so not built: $why"
fi

# 1. Calls it computes: each feature it maps, one case each (bf16, whose
#    vector path accumulates in float32: an fp16 call over more than a
#    few keys is the accumulator's finding, section 3).
cat >"$tmp/bf16_bsh_mask_band_pse.case" <<'CASE'
# bf16, BSH, GQA 4/2, sparse 0 with a mask and a pre/next band, pse,
# per-batch key lengths
input_layout = BSH
num_heads = 4
num_key_value_heads = 2
scale = 0.25
pre_tokens = 6
next_tokens = 2
query = bf16 [2,8,64]
key = bf16 [2,12,32]
value = bf16 [2,12,32]
atten_mask = bool [2,8,12]
atten_mask.gen = random(0.2)
pse_shift = bf16 [2,4,8,12]
actual_seq_lengths_kv = [12,9]
seed = 11
CASE
cat >"$tmp/bf16_bnsd_bsnd_band_sink.case" <<'CASE'
# bf16, BNSD in, BSND out, GQA, band (sparse 4) about the right-down
# diagonal, per-batch query lengths, a learnable sink per head
api = torchair_v2
input_layout = BNSD_BSND
num_query_heads = 2
num_key_value_heads = 1
softmax_scale = 0.125
sparse_mode = 4
pre_tokens = 5
next_tokens = 1
query = bf16 [2,2,6,16]
key = bf16 [2,1,10,16]
value = bf16 [2,1,10,16]
atten_mask = bool [2048,2048]
actual_seq_lengths = [6,4]
learnable_sink = bf16 [2]
seed = 3
CASE
cat >"$tmp/bf16_bsnd_causal_left_padded.case" <<'CASE'
# bf16, BSND, right-down causal (sparse 3), query and kv left padding
input_layout = BSND
num_heads = 2
scale = 0.25
sparse_mode = 3
query = bf16 [2,6,2,16]
key = bf16 [2,9,2,16]
value = bf16 [2,9,2,16]
atten_mask = bool [2048,2048]
actual_seq_lengths = [5,3]
actual_seq_lengths_kv = [7,4]
query_padding_size = int64 [1]
query_padding_size.values = 1
kv_padding_size = int64 [1]
kv_padding_size.values = 2
seed = 5
CASE
cat >"$tmp/bf16_decode_mask_bs.case" <<'CASE'
# bf16 decode (Q_S = 1): a (B, KV_S) uint8 mask, key lengths
input_layout = BSND
num_heads = 4
num_key_value_heads = 1
scale = 0.125
query = bf16 [3,1,4,32]
key = bf16 [3,40,1,32]
value = bf16 [3,40,1,32]
atten_mask = uint8 [3,40]
atten_mask.gen = random(0.3)
actual_seq_lengths_kv = [40,17,1]
seed = 7
CASE
for c in bf16_bsh_mask_band_pse bf16_bnsd_bsnd_band_sink \
         bf16_bsnd_causal_left_padded bf16_decode_mask_bs; do
  expect_exit 0 "$FIACHECK" run "$tmp/$c.case" --sut "$so"
  expect_grep "verdict +pass" "$tmp/out"
  expect_grep "[1-9][0-9]* compared, [0-9]+ unspecified, 0 outside" "$tmp/out"
done
expect_grep "ggml 1\.[0-9]+\+ggml[0-9.]+-[0-9a-f]+ \(numbers only\)" "$tmp/out"

# 2. Calls it cannot express: not covered, with the reason; not findings.
expect_exit 0 "$FIACHECK" run corpus/cases/gqa/gqa_bnsd_causal.case --sut "$so"
expect_grep "not covered by ggml: 990001 NOT_MODELED: softmax_lse" "$tmp/out"
for c in corpus/cases/int8_out/obey_oq001_prefill.case \
         corpus/cases/tnd/$(ls corpus/cases/tnd | grep -v reject | head -1) \
         corpus/cases/paged/decode_bsh_3d_bs16_shared_block.case; do
  expect_exit 0 "$FIACHECK" run "$c" --sut "$so"
  expect_grep "not-modeled: not covered by ggml: 990001 NOT_MODELED: " "$tmp/out"
done
# a -inf pse is a score in FIA and "skip the key" in ggml's mask
sed 's/^seed = 11/pse_shift.gen = const(-inf)\nseed = 11/' \
  "$tmp/bf16_bsh_mask_band_pse.case" >"$tmp/pse_inf.case"
expect_exit 0 "$FIACHECK" run "$tmp/pse_inf.case" --sut "$so"
expect_grep "not covered by ggml: .*pse value" "$tmp/out"

# 3. The defects fiacheck found: each still reported, with its verdict,
#    and a pass for fast/ on the same case.
n=0
for c in corpus/sut_ggml/*.case; do
  want=$(sed -n 's/^# ggml: //p' "$c")
  [ -n "$want" ] || { bad "$c has no '# ggml: VERDICT' line"; continue; }
  expect_exit 1 "$FIACHECK" run "$c" --sut "$so"
  expect_grep "verdict +$want" "$tmp/out"
  expect_exit 0 "$FIACHECK" run "$c"
  n=$((n + 1))
done
[ "$n" -ge 2 ] && ok || bad "only $n cases in corpus/sut_ggml"
# the accumulator's diagnosis: the same call through ggml's float32 path
FIACHECK_GGML_WIDEN_KV=1 expect_exit 0 "$FIACHECK" run \
  corpus/sut_ggml/fp16_value_accumulator.case --sut "$so"
expect_grep "ggml 1\.[0-9]+\+ggml[0-9.]+-[0-9a-f]+\+kvf32 " "$tmp/out"

# 4. The corpus, triaged: nothing but passes, not covered, vacuous, and
#    fp16 findings that pass through the float32 path.
"$FIACHECK" run --sut "$so" corpus/cases/*/*.case >"$tmp/corpus.txt" 2>&1
awk '/^corpus\// {c = $1} /^  verdict/ {print c, $2}' "$tmp/corpus.txt" \
  >"$tmp/verdicts.txt"
total=$(ls corpus/cases/*/*.case | wc -l)
[ "$(wc -l <"$tmp/verdicts.txt")" -eq "$total" ] && ok ||
  bad "corpus: $(wc -l <"$tmp/verdicts.txt") verdicts for $total cases"
grep -q " pass$" "$tmp/verdicts.txt" && ok || bad "corpus: no case passed"
awk '$2 != "pass" && $2 != "not-modeled:" && $2 != "vacuous:" &&
     $2 != "accuracy" {print}' "$tmp/verdicts.txt" >"$tmp/other.txt"
[ ! -s "$tmp/other.txt" ] && ok || bad "corpus: untriaged: $(cat "$tmp/other.txt")"
awk '$2 == "accuracy" {print $1}' "$tmp/verdicts.txt" >"$tmp/acc.txt"
[ -s "$tmp/acc.txt" ] && ok || bad "corpus: the fp16 accumulator no longer shows"
while read -r c; do
  grep -Eq "^query = fp16 " "$c" || bad "corpus: $c: a finding not in fp16"
done <"$tmp/acc.txt"
# shellcheck disable=SC2046
FIACHECK_GGML_WIDEN_KV=1 expect_exit 0 "$FIACHECK" run --sut "$so" \
  $(cat "$tmp/acc.txt")

# 5. A short survey: the refusals counted, findings under the system's name.
expect_exit 1 "$FIACHECK" survey --sut "$so" --cases 200 --db "$tmp/s.db" --quiet
expect_grep "200 judged, .* [1-9][0-9]* not covered by ggml, [1-9][0-9]* findings" "$tmp/out"
"$FIACHECK" db findings --db "$tmp/s.db" >"$tmp/f.txt" 2>&1
expect_grep "ggml:accuracy\|" "$tmp/f.txt"
finish
