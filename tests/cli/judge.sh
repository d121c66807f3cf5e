#!/usr/bin/env bash
# judge: a device's answers, written here by hand into export directories
# (docs/export.md), judged as run judges a system: exact outputs pass, one
# element off is accuracy, a rejection's code is compared exactly, every
# malformed out/ is that case's bad input (exit 2, the file named), and
# --db stores campaigns that db regressions compares across two versions.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || skip "no numpy for $py"

# npy FILE DESCR SHAPE VALUE [INDEX VALUE2] [fortran]: an .npy of SHAPE
# ("1,2,1,32") filled with VALUE (element INDEX of the flat array VALUE2)
npy() {
  "$py" - "$@" <<'PY'
import sys, numpy as np
f, descr, shape, v = sys.argv[1:5]
shape = tuple(int(x) for x in shape.split(',') if x)
a = np.full(shape, float(v), dtype=np.dtype(descr))
if len(sys.argv) > 6 and sys.argv[5] != 'fortran':
    a.reshape(-1)[int(sys.argv[5])] = float(sys.argv[6])
if sys.argv[-1] == 'fortran':
    a = np.asfortranarray(a)
np.save(f, a)
PY
}

cat >"$tmp/const.fia" <<'CASE'
input_layout = BNSD
num_heads = 2
scale = 0.125
query = fp16 [1,2,1,32]
key = fp16 [1,2,16,32]
value = fp16 [1,2,16,32]
value.gen = const(0.5)
softmax_lse_flag = true
seed = 3
CASE
# num_heads 3 with 2 heads in the query: rejected by the rules
sed 's/^num_heads = 2/num_heads = 3/' "$tmp/const.fia" >"$tmp/reject.fia"
expect_exit 0 "$FIACHECK" run --json "$tmp/reject.fia"
code=$(grep -o '"expected_status":[0-9]*' "$tmp/out" | cut -d: -f2)
[ -n "$code" ] && [ "$code" -ne 0 ] && ok || bad "no rejection code for reject.fia"

# digest CASE: what judge says the case's digest is (a wrong one named)
digest() {
  local d=$tmp/digest
  rm -rf "$d"; mkdir -p "$d/c"; cp "$1" "$d/c/case.fia"
  printf 'c\taclnn_v2\tx\t%s\n' "$1" >"$d/cases.tsv"
  "$FIACHECK" judge "$d" 2>/dev/null | grep -o 'digest [0-9a-f]*' | cut -d' ' -f2
}
dc=$(digest "$tmp/const.fia")
dr=$(digest "$tmp/reject.fia")
[ ${#dc} -eq 16 ] && [ ${#dr} -eq 16 ] && ok || bad "digests '$dc' '$dr'"

# mk DIR NAME CASE STATUSJSON: an export directory of one case answered so
mk() {
  local d=$1 name=$2 case=$3 dg
  mkdir -p "$d/$name/out"
  cp "$case" "$d/$name/case.fia"
  [ "$case" = "$tmp/const.fia" ] && dg=$dc || dg=$dr
  printf '%s\taclnn_v2\t%s\t%s\n' "$name" "$dg" "$case" >>"$d/cases.tsv"
  printf '%s' "$4" >"$d/$name/out/status.json"
}
okjson='{"status": "ok", "system": "devsim", "version": "1.0"}'
# the reference's lse (ref --out: the output's values, a line "lse", the
# lse's values), which fp32 holds exactly as printed (9 digits)
"$FIACHECK" ref "$tmp/const.fia" --out "$tmp/ref.txt" >/dev/null 2>&1
lses() {
  "$py" - "$1" "$tmp/ref.txt" <<'PY'
import sys, numpy as np
v = open(sys.argv[2]).read().split('lse\n')[1].split()
np.save(sys.argv[1], np.array([float(x) for x in v], dtype='<f4').reshape(1, 2, 1, 1))
PY
}
outs() { # outs CASEDIR [INDEX VALUE]: exact (or one element off) outputs
  npy "$1/out/attention_out.npy" '<f2' 1,2,1,32 0.5 "${@:2}"
  lses "$1/out/softmax_lse.npy"
}
[ "$(grep -c . "$tmp/ref.txt")" -eq 67 ] && ok || bad "ref.txt: not 64 + lse + 2 lines"

# 1. exact outputs pass; one element off is accuracy; a right code passes
d=$tmp/A
mk "$d" exact "$tmp/const.fia" "$okjson"; outs "$d/exact"
expect_exit 0 "$FIACHECK" judge "$d"
expect_grep 'verdict +pass' "$tmp/out"
expect_grep 'answered by devsim 1.0' "$tmp/out"
d=$tmp/B
mk "$d" off "$tmp/const.fia" "$okjson"; outs "$d/off" 17 0.75
expect_exit 1 "$FIACHECK" judge "$d" --json
expect_grep '"verdict":"accuracy"' "$tmp/out"
expect_grep '"sut":"devsim","sut_version":"1.0"' "$tmp/out"
d=$tmp/C
mk "$d" code "$tmp/reject.fia" "{\"status\": \"error\", \"message\": \"bad heads\", \"code\": $code}"
mk "$d" inmsg "$tmp/reject.fia" "{\"status\": \"error\", \"message\": \"aclnn failed, ret $code.\", \"code\": null}"
mk "$d" wrong "$tmp/reject.fia" '{"status": "error", "message": "x", "code": 361001}'
mk "$d" nocode "$tmp/reject.fia" '{"status": "error", "message": "RuntimeError: something failed"}'
mk "$d" accepted "$tmp/reject.fia" "$okjson"; outs "$d/accepted"
expect_exit 1 "$FIACHECK" judge "$d" --json
for w in code:pass inmsg:pass wrong:status-mismatch nocode:status-mismatch \
         accepted:status-mismatch; do
  expect_grep "\"case\":\"[^\"]*/${w%%:*}/case.fia\".*\"verdict\":\"${w#*:}\"" "$tmp/out"
done
expect_grep 'rejected without a readable status code: RuntimeError' "$tmp/out"

# 2. every malformed answer: bad input naming the file, exit 2
d=$tmp/M
mkdir -p "$d"
bad_case() { # bad_case NAME STATUSJSON SETUP... : one malformed answer
  local n=$1 s=$2; shift 2
  mk "$d" "$n" "$tmp/const.fia" "$s"
  [ $# -gt 0 ] && "$@" "$d/$n"
}
rmout() { rm -rf "$1/out"; }
bad_case noout "$okjson" rmout
bad_case notjson '{"status": "ok",}'
bad_case badstatus '{"status": "maybe"}'
bad_case okcode '{"status": "ok", "code": 161002}'
bad_case strcode '{"status": "error", "code": "161002"}'
bad_case noatt "$okjson"
dtype() { npy "$1/out/attention_out.npy" '<f4' 1,2,1,32 0.5; npy "$1/out/softmax_lse.npy" '<f4' 1,2,1,1 0; }
bad_case dtype "$okjson" dtype
shape() { npy "$1/out/attention_out.npy" '<f2' 1,1,2,32 0.5; npy "$1/out/softmax_lse.npy" '<f4' 1,2,1,1 0; }
bad_case shape "$okjson" shape
trunc() { outs "$1"; head -c 140 "$1/out/attention_out.npy" >"$1/x"; mv "$1/x" "$1/out/attention_out.npy"; }
bad_case trunc "$okjson" trunc
extra() { outs "$1"; printf 'xx' >>"$1/out/attention_out.npy"; }
bad_case extra "$okjson" extra
magic() { outs "$1"; printf 'not an npy file at all' >"$1/out/attention_out.npy"; }
bad_case magic "$okjson" magic
fortran() { npy "$1/out/attention_out.npy" '<f2' 1,2,1,32 0.5 fortran; npy "$1/out/softmax_lse.npy" '<f4' 1,2,1,1 0; }
bad_case fortran "$okjson" fortran
nolse() { npy "$1/out/attention_out.npy" '<f2' 1,2,1,32 0.5; }
bad_case nolse "$okjson" nolse
lseshape() { npy "$1/out/attention_out.npy" '<f2' 1,2,1,32 0.5; npy "$1/out/softmax_lse.npy" '<f4' 2 0; }
bad_case lseshape "$okjson" lseshape
edited() { sed -i 's/^seed = 3/seed = 4/' "$1/case.fia"; }
bad_case edited "$okjson" edited
printf 'only\tthree\tfields\n' >>"$d/cases.tsv"
expect_exit 2 "$FIACHECK" judge "$d" --json
cp "$tmp/out" "$tmp/malformed.json"
n=$(grep -c '"verdict":"bad-input"' "$tmp/malformed.json")
[ "$n" -eq 16 ] && ok || bad "$n of 16 malformed answers are bad input"
grep -q '"verdict":"pass"' "$tmp/malformed.json" && bad "a malformed answer passed" || ok
for w in 'noout/out/status.json: missing' 'notjson/out/status.json: not JSON' \
         'badstatus/out/status.json: \\"status\\" must be' \
         'okcode/out/status.json: \\"status\\" is \\"ok\\" but' \
         'strcode/out/status.json: \\"code\\" must be' \
         'noatt/out/attention_out.npy: missing' \
         'dtype/out/attention_out.npy: <f4' 'shape/out/attention_out.npy: <f2 \[1,1,2,32\]' \
         'trunc/out/attention_out.npy: .*truncated' \
         'extra/out/attention_out.npy: .*bytes after the data' \
         'magic/out/attention_out.npy: not an .npy' \
         'fortran/out/attention_out.npy: it is in Fortran order' \
         'nolse/out/softmax_lse.npy: missing' \
         'lseshape/out/softmax_lse.npy: <f4 \[2\]' \
         'edited/case.fia: not the case cases.tsv lists' \
         'cases.tsv:16: not DIR'; do
  expect_grep "$w" "$tmp/malformed.json"
done
# a text report too, and bad usage
expect_exit 2 "$FIACHECK" judge "$d"
expect_grep 'verdict +bad-input: .*noatt/out/attention_out.npy' "$tmp/out"
expect_exit 2 "$FIACHECK" judge "$tmp/nothere"
expect_grep 'cases.tsv: cannot read' "$tmp/err"
expect_exit 2 "$FIACHECK" judge
expect_exit 2 "$FIACHECK" judge "$tmp/A" --sut-name 'bad name'
expect_exit 2 "$FIACHECK" judge "$tmp/A" --frobnicate

# 3. the store: two driver versions, the same cases; what got worse
db=$tmp/j.db
for v in 1.0 1.1; do
  d=$tmp/S$v
  mk "$d" exact "$tmp/const.fia" "{\"status\": \"ok\", \"system\": \"devsim\", \"version\": \"$v\"}"
  if [ "$v" = 1.0 ]; then outs "$d/exact"; else outs "$d/exact" 5 0.25; fi
  mk "$d" code "$tmp/reject.fia" "{\"status\": \"error\", \"code\": $code, \"system\": \"devsim\", \"version\": \"$v\"}"
done
expect_exit 0 "$FIACHECK" judge "$tmp/S1.0" --db "$db"
expect_checkpointed "$db"
expect_grep 'stored as campaign [0-9]+ .*2 cases, 0 findings' "$tmp/err"
expect_exit 1 "$FIACHECK" judge "$tmp/S1.1" --db "$db"
expect_grep 'stored as campaign [0-9]+ .*2 cases, 1 findings' "$tmp/err"
expect_exit 0 "$FIACHECK" db campaigns --db "$db"
expect_grep 'judge' "$tmp/out"
expect_exit 0 "$FIACHECK" db findings --db "$db"
expect_grep 'devsim:accuracy' "$tmp/out"
expect_exit 1 "$FIACHECK" db regressions --db "$db" --base 1.0 --head 1.1
expect_grep 'new +finding [0-9]+: devsim:accuracy' "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --db "$db" --base 1.1 --head 1.0
# --sut-name / --sut-version name the campaign when status.json does not
d=$tmp/N
mk "$d" exact "$tmp/const.fia" '{"status": "ok"}'; outs "$d/exact"
expect_exit 2 "$FIACHECK" judge "$d" --db "$db"
expect_grep 'names no system or version' "$tmp/out"
expect_exit 0 "$FIACHECK" judge "$d" --db "$db" --sut-name devsim --sut-version 0.9
# two versions in one directory is not one campaign
d=$tmp/X
mk "$d" a "$tmp/const.fia" "$okjson"; outs "$d/a"
mk "$d" b "$tmp/reject.fia" "{\"status\": \"error\", \"code\": $code, \"system\": \"devsim\", \"version\": \"2.0\"}"
expect_exit 2 "$FIACHECK" judge "$d" --db "$db"
expect_grep "answered by devsim 2.0, but the campaign's system is another" "$tmp/out"
finish
