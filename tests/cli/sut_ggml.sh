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
# the gathered keys (plugins/ggml/ggml_gather.c): page attention (both
# caches), tensor lists, the shared prefix, MLA's rope columns
cat >"$tmp/bf16_paged_bnsd_4d_mask.case" <<'CASE'
# bf16 page attention, BNSD in / BSND out, a (blocknum, KV_N, block_size,
# D) cache, ragged key lengths over scattered blocks, a mask, GQA
input_layout = BNSD_BSND
num_heads = 4
num_key_value_heads = 2
query = bf16 [2,4,8,32]
key = bf16 [4,2,128,32]
value = bf16 [4,2,128,32]
block_size = 128
block_table = int32 [2,2]
block_table.values = 3,0, 1,-1
actual_seq_lengths_kv = [150,90]
atten_mask = bool [2,1,8,256]
atten_mask.gen = random(0.2)
seed = 24
CASE
cat >"$tmp/bf16_paged_bsh_3d_decode.case" <<'CASE'
# bf16 paged decode, BSH, a (blocknum, block_size, KV_N*D) cache of 16-row
# blocks, a block shared by both batches, a (B, KV_S) mask
input_layout = BSH
num_heads = 4
num_key_value_heads = 2
query = bf16 [2,1,128]
key = bf16 [6,16,64]
value = bf16 [6,16,64]
block_size = 16
block_table = int32 [2,4]
block_table.values = 5,1,3,0, 1,4,-1,-1
actual_seq_lengths_kv = [60,20]
atten_mask = bool [2,64]
atten_mask.gen = random(0.2)
seed = 22
CASE
cat >"$tmp/bf16_list_bsnd_ragged.case" <<'CASE'
# bf16 key/value tensor lists (a tensor per batch, each its own S, one
# empty), BSND prefill, right-down causal, kv lengths within each tensor
input_layout = BSND
num_heads = 4
num_key_value_heads = 2
sparse_mode = 3
query = bf16 [3,6,4,16]
key = bf16 [1,40,2,16]; bf16 [1,9,2,16]; bf16 [1,0,2,16]
value = bf16 [1,40,2,16]; bf16 [1,9,2,16]; bf16 [1,0,2,16]
atten_mask = bool [2048,2048]
actual_seq_lengths_kv = [33,9,0]
seed = 31
CASE
cat >"$tmp/bf16_prefix_mask_pse.case" <<'CASE'
# bf16 shared prefix (3 of its 5 rows used) before each batch's own keys,
# BNSD prefill: mask and pse read at the logical key (prefix first), a band
input_layout = BNSD
num_heads = 2
scale = 0.25
pre_tokens = 9
next_tokens = 1
query = bf16 [2,2,4,16]
key = bf16 [2,2,8,16]
value = bf16 [2,2,8,16]
key_shared_prefix = bf16 [1,2,5,16]
value_shared_prefix = bf16 [1,2,5,16]
actual_shared_prefix_len = [3]
actual_seq_lengths_kv = [8,2]
atten_mask = bool [2,4,11]
atten_mask.gen = random(0.2)
pse_shift = bf16 [2,2,4,11]
seed = 43
CASE
cat >"$tmp/bf16_prefix_decode_pse.case" <<'CASE'
# bf16 shared prefix at Q_S = 1 (BSH), a pse of P + KV_S columns, a batch
# of no own keys still reading the prefix
input_layout = BSH
num_heads = 4
num_key_value_heads = 1
query = bf16 [3,1,128]
key = bf16 [3,20,32]
value = bf16 [3,20,32]
key_shared_prefix = bf16 [1,12,32]
value_shared_prefix = bf16 [1,12,32]
actual_seq_lengths_kv = [20,7,0]
pse_shift = bf16 [3,4,1,32]
seed = 44
CASE
cat >"$tmp/bf16_mla_nbsd_sink.case" <<'CASE'
# bf16 MLA: 512-column key and value, 64 rope columns, a paged BSND query
# into a (blocknum, block_size, 512) cache, NBSD output, sparse 3, a sink
input_layout = BSND_NBSD
num_heads = 32
num_key_value_heads = 1
query = bf16 [2,3,32,512]
key = bf16 [5,16,512]
value = bf16 [5,16,512]
attention_out = bf16 [32,2,3,512]
query_rope = bf16 [2,3,32,64]
key_rope = bf16 [5,16,64]
sparse_mode = 3
atten_mask = bool [2048,2048]
block_size = 16
block_table = int32 [2,3]
block_table.values = 4,0,2, 1,3,-1
actual_seq_lengths_kv = [40,20]
learnable_sink = bf16 [32]
seed = 21
CASE
cat >"$tmp/bf16_mla_decode_bsh.case" <<'CASE'
# bf16 MLA decode, BSH, 64 heads over one, a rank-3 cache of 128-row blocks
input_layout = BSH
num_heads = 64
num_key_value_heads = 1
query = bf16 [2,1,32768]
key = bf16 [3,128,512]
value = bf16 [3,128,512]
query_rope = bf16 [2,1,4096]
key_rope = bf16 [3,128,64]
block_size = 128
block_table = int32 [2,2]
block_table.values = 2,0, 1,-1
actual_seq_lengths_kv = [200,77]
seed = 9
CASE
# the token layouts (plugins/ggml/ggml_tnd.c), per batch into padded rows
cat >"$tmp/bf16_tnd_value_d128_causal.case" <<'CASE'
# bf16 TND, cumulative lengths (70 and 3 query tokens over 150 and 4
# keys), key 192 columns, value 128 (ggml's V head dim is its own), sparse 3
input_layout = TND
num_heads = 4
num_key_value_heads = 2
query = bf16 [73,4,192]
key = bf16 [154,2,192]
value = bf16 [154,2,128]
actual_seq_lengths = [70,73]
actual_seq_lengths_kv = [150,154]
sparse_mode = 3
atten_mask = bool [2048,2048]
seed = 12
CASE
cat >"$tmp/bf16_ntd_tnd_ragged.case" <<'CASE'
# bf16 NTD_TND ([N, T, D] in, [T, N, D] out), a batch of no query token,
# sparse 0 without a mask
input_layout = NTD_TND
num_heads = 2
query = bf16 [2,9,128]
key = bf16 [2,30,128]
value = bf16 [2,30,128]
actual_seq_lengths = [5,5,9]
actual_seq_lengths_kv = [12,20,30]
seed = 13
CASE
cat >"$tmp/bf16_mla_tnd_ntd_paged.case" <<'CASE'
# bf16 MLA in TND_NTD over a paged cache: the kv lengths are each batch's
# own (not cumulative), the query's cumulative
input_layout = TND_NTD
num_heads = 32
num_key_value_heads = 1
query = bf16 [6,32,512]
key = bf16 [8,16,512]
value = bf16 [8,16,512]
query_rope = bf16 [6,32,64]
key_rope = bf16 [8,16,64]
block_size = 16
block_table = int32 [3,3]
actual_seq_lengths_kv = [33,5,20]
actual_seq_lengths = [1,4,6]
sparse_mode = 0
seed = 4
CASE
for c in bf16_bsh_mask_band_pse bf16_bnsd_bsnd_band_sink \
         bf16_bsnd_causal_left_padded bf16_decode_mask_bs \
         bf16_paged_bnsd_4d_mask bf16_paged_bsh_3d_decode \
         bf16_list_bsnd_ragged bf16_prefix_mask_pse bf16_prefix_decode_pse \
         bf16_mla_nbsd_sink bf16_mla_decode_bsh bf16_tnd_value_d128_causal \
         bf16_ntd_tnd_ragged bf16_mla_tnd_ntd_paged; do
  expect_exit 0 "$FIACHECK" run "$tmp/$c.case" --sut "$so"
  expect_grep "verdict +pass" "$tmp/out"
  expect_grep "[1-9][0-9]* compared, [0-9]+ unspecified, 0 outside" "$tmp/out"
done
expect_grep "ggml 1\.[0-9]+\+ggml[0-9.]+-[0-9a-f]+ \(numbers only\)" "$tmp/out"

# ggml's other two paths, which the fuzz generators' small shapes do not
# reach (scripts/ggml_coverage.sh): the tiled path (64 query rows or more,
# float32 throughout) passes in fp16; the split decode (one batch, >= 512
# keys, keys over the threads) runs the vector path's float16 accumulator
# in fp16, so it is judged with key and value widened (float32 K/V take
# it too)
cat >"$tmp/fp16_tiled.case" <<'CASE'
input_layout = BSND
num_heads = 4
num_key_value_heads = 2
scale = 0.125
sparse_mode = 3
query = fp16 [1,64,4,64]
key = fp16 [1,96,2,64]
value = fp16 [1,96,2,64]
atten_mask = bool [2048,2048]
seed = 21
CASE
cat >"$tmp/fp16_split_decode.case" <<'CASE'
input_layout = BNSD
num_heads = 4
num_key_value_heads = 1
scale = 0.125
query = fp16 [1,4,1,64]
key = fp16 [1,1,700,64]
value = fp16 [1,1,700,64]
seed = 22
CASE
expect_exit 0 "$FIACHECK" run "$tmp/fp16_tiled.case" --sut "$so"
expect_grep "[1-9][0-9]* compared, [0-9]+ unspecified, 0 outside" "$tmp/out"
FIACHECK_GGML_WIDEN_KV=1 expect_exit 0 "$FIACHECK" run \
  "$tmp/fp16_split_decode.case" --sut "$so"
expect_grep "[1-9][0-9]* compared, [0-9]+ unspecified, 0 outside" "$tmp/out"
expect_exit 1 "$FIACHECK" run "$tmp/fp16_split_decode.case" --sut "$so"
expect_grep "verdict +accuracy" "$tmp/out"

# 2. Calls it cannot express: not covered, with the reason; not findings.
expect_exit 0 "$FIACHECK" run corpus/cases/gqa/gqa_bnsd_causal.case --sut "$so"
expect_grep "not covered by ggml: 990001 NOT_MODELED: softmax_lse" "$tmp/out"
for c in corpus/cases/int8_out/obey_oq001_prefill.case \
         corpus/cases/tnd/tnd_gqa_ragged.case \
         corpus/cases/sink/mla_nz_nbsd_sink.case; do
  expect_exit 0 "$FIACHECK" run "$c" --sut "$so"
  expect_grep "not-modeled: not covered by ggml: 990001 NOT_MODELED: " "$tmp/out"
done
expect_grep "NOT_MODELED: the NZ cache" "$tmp/out"
# a -inf pse is a score in FIA and "skip the key" in ggml's mask
sed 's/^seed = 11/pse_shift.gen = const(-inf)\nseed = 11/' \
  "$tmp/bf16_bsh_mask_band_pse.case" >"$tmp/pse_inf.case"
expect_exit 0 "$FIACHECK" run "$tmp/pse_inf.case" --sut "$so"
expect_grep "not covered by ggml: .*pse value" "$tmp/out"

# a +inf score (here scale -1 times a -inf key): ggml takes the limit, the
# key's value alone; FIA's IEEE reading is NaN (inf - inf): not covered
cat >"$tmp/plus_inf_score.case" <<'CASE'
input_layout = BSND
num_heads = 1
scale = -1
query = bf16 [1,1,1,16]
query.values = 1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
key = bf16 [1,2,1,16]
key.values = 1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, -inf,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
value = bf16 [1,2,1,16]
value.gen = const(1)
CASE
expect_exit 0 "$FIACHECK" run "$tmp/plus_inf_score.case" --sut "$so"
expect_grep "not covered by ggml: .*\\+inf score" "$tmp/out"

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
