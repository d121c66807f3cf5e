#!/usr/bin/env bash
# --sut: fast/ built as a plug-in gives the verdicts the built-in gives; the
# loader refuses what is not a plug-in of this ABI with a message and exit
# 2; a numbers-only plug-in is asked only the calls the rules accept.
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$FIACHECK")
fastso=$bin/plugins/libfiacheck_sut_fast.so
exso=$bin/plugins/libfiacheck_sut_example.so
cc=${CC:-cc}
[ -f "$fastso" ] || { bad "no $fastso"; finish; exit; }

# 1. The same verdicts, case by case, through the plug-in as built in.
verdicts() { grep -o '"case":"[^"]*"\|"verdict":"[^"]*"' | paste -d' ' - -; }
dirs=$(ls corpus/cases/gqa/*.case corpus/cases/mask/*.case corpus/cases/sink/*.case corpus/cases/mla/*.case corpus/cases/tnd/*.case)
"$FIACHECK" run $dirs --json >"$tmp/builtin.json" 2>/dev/null
"$FIACHECK" run $dirs --json --sut "$fastso" >"$tmp/plugin.json" 2>/dev/null
verdicts <"$tmp/builtin.json" >"$tmp/builtin.v"
verdicts <"$tmp/plugin.json" >"$tmp/plugin.v"
n=$(wc -l <"$tmp/builtin.v")
if [ "$n" -ge 50 ] && cmp -s "$tmp/builtin.v" "$tmp/plugin.v"; then ok; else
  bad "plug-in verdicts differ from the built-in's ($n cases)"
  diff "$tmp/builtin.v" "$tmp/plugin.v" | head >&2; fi
expect_grep '"sut":"fast"' "$tmp/plugin.json"
# its run settings go through the table: a case's kernel_level and threads
cat >"$tmp/lv.case" <<'CASE'
input_layout = BNSD
num_heads = 2
scale = 0.125
query = fp16 [1,2,1,32]
key = fp16 [1,2,80,32]
value = fp16 [1,2,80,32]
kernel_level = scalar
threads = 2
seed = 5
CASE
expect_exit 0 "$FIACHECK" run "$tmp/lv.case" --sut "$fastso"
expect_grep "verdict +pass" "$tmp/out"

# 2. The loader's refusals: each a message and exit 2, never a crash.
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/none.so"
expect_grep "no such file|cannot load" "$tmp/err"
echo 'int unrelated(void) { return 1; }' >"$tmp/plain.c"
"$cc" -shared -fPIC -o "$tmp/plain.so" "$tmp/plain.c"
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/plain.so"
expect_grep "not a fiacheck plug-in: it exports no fiacheck_sut_v1" "$tmp/err"
# a table built against another major version, or missing an entry point
# mk_plugin NAME ABI VERSION RUNFN GWS_BODY RUN_BODY: a table of name "t"
mk_plugin() {
  cat >"$tmp/$1.c" <<C
#include <string.h>
#include "fia/sut.h"
static const fia_tensor *out;
static fia_status gws(const fia_sut_args *a, uint64_t *w, void **e)
{ out = a->attention_out; *e = 0; $5 }
static fia_status rn(void *w, uint64_t n, void *e) { (void)w; (void)n; (void)e; $6 }
static void ds(void *e) { (void)e; }
static const char *le(void) { return ""; }
static const fia_sut t = {$2, "t", $3, 0, gws, $4, ds, le, 0, 0};
const fia_sut *fiacheck_sut_v1(void) { return &t; }
C
  "$cc" -shared -fPIC -I include -o "$tmp/$1.so" "$tmp/$1.c"
}
mk_table() { # mk_table NAME ABI VERSION RUNFN: refuses every call
  mk_plugin "$1" "$2" "$3" "$4" '*w = 0; return FIA_ERR_NOT_MODELED;' 'return 0;'
}
mk_table abi2 0x00020000u '"1"' rn
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/abi2.so"
expect_grep "built for ABI version 2.0, this fiacheck speaks 1.x" "$tmp/err"
mk_table norun FIA_SUT_ABI_VERSION '"1"' 0
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/norun.so"
expect_grep "its table lacks run" "$tmp/err"
mk_table nover FIA_SUT_ABI_VERSION '""' rn
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/nover.so"
expect_grep "its version" "$tmp/err"
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut "$fastso" --sut "$fastso"
expect_grep "given twice" "$tmp/err"
expect_exit 2 "$FIACHECK" rules --sut "$fastso"
expect_grep "takes no --sut" "$tmp/err"
expect_exit 2 "$FIACHECK" run "$tmp/lv.case" --sut
expect_grep "wants the path" "$tmp/err"

# 3. A numbers-only plug-in: a call the rules reject is not asked (not
#    judged), one it does not cover is not a finding, a wrong number is.
expect_exit 0 "$FIACHECK" run "$tmp/lv.case" --sut "$exso"
expect_grep "verdict +pass" "$tmp/out"
expect_grep "example 1.0 \(numbers only\)" "$tmp/out"
sed 's/num_heads = 2/num_heads = 3/' "$tmp/lv.case" >"$tmp/rej.case"
expect_exit 0 "$FIACHECK" run "$tmp/rej.case" --sut "$exso"
expect_grep "not judged: example checks numbers only" "$tmp/out"
cat "$tmp/lv.case" - >"$tmp/mask.case" <<'CASE'
sparse_mode = 2
atten_mask = bool [2048,2048]
CASE
sed -i 's/query = fp16 \[1,2,1,32\]/query = fp16 [1,2,4,32]/' "$tmp/mask.case"
expect_exit 0 "$FIACHECK" run "$tmp/mask.case" --sut "$exso"
expect_grep "not covered by example" "$tmp/out"
# a system that accepts and writes nothing: the outputs come poisoned
# (a NaN no arithmetic makes), never zeros a lazy kernel could pass with
mk_plugin lazy FIA_SUT_ABI_VERSION '"1"' rn '*w = 0; return FIA_OK;' 'return FIA_OK;'
expect_exit 1 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/lazy.so"
expect_grep "verdict +nan-leak" "$tmp/out"
# ... and the workspace too (all-ones bytes): this system writes zeros
# when it finds them, NaN otherwise
mk_plugin ws FIA_SUT_ABI_VERSION '"1"' rn '*w = 64; return FIA_OK;' '
    const unsigned char *b = w;
    int poisoned = n == 64;
    for (int i = 0; poisoned && i < 64; i++)
        poisoned = b[i] == 0xff;
    long long k = 1;
    for (int d = 0; d < out->ndim; d++)
        k *= out->shape[d];
    memset(out->data, poisoned ? 0x00 : 0x7e, (size_t)k * 2);
    return FIA_OK;'
expect_exit 1 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/ws.so"
expect_grep "verdict +accuracy" "$tmp/out"
# the product (ABI 1.1): the fast plug-in refuses B 257 on 001's inference
# card, which only args->product tells it; a plug-in built against 1.0
# cannot be told, so fiacheck does not hand it a call on the card
expect_exit 0 "$FIACHECK" run corpus/cases/product/card_reject_batch_257.case --sut "$fastso"
expect_grep "verdict +pass" "$tmp/out"
mk_plugin v10 0x00010000u '"1"' rn '*w = 0; return FIA_OK;' 'return FIA_OK;'
expect_exit 0 "$FIACHECK" run corpus/cases/product/card_decode.case --sut "$tmp/v10.so"
expect_grep "not judged: t is built against ABI 1.0" "$tmp/out"
expect_exit 1 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/v10.so"
expect_grep "verdict +nan-leak" "$tmp/out"
# A survey of a numbers-only system counts the calls it refuses (not
# covered) apart from the rules' not-modeled ones: the example refuses
# masks, lse and every quantized input, so most of a survey
expect_exit 0 "$FIACHECK" survey --sut "$exso" --cases 60 --db "$tmp/cov.db" --quiet
expect_grep "60 judged, [0-9]+ compared nothing, [0-9]+ not modeled, [1-9][0-9]* not covered by example," "$tmp/out"
"$cc" -shared -fPIC -I include -DEXAMPLE_BUG -o "$tmp/bug.so" \
  plugins/example/example_sut.c -lm
expect_exit 1 "$FIACHECK" run "$tmp/lv.case" --sut "$tmp/bug.so"
expect_grep "verdict +accuracy" "$tmp/out"
finish
