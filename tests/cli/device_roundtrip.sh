#!/usr/bin/env bash
# The device round trip without a device: corpus cases exported per
# interface (fiacheck export), each interface's script run against the
# stand-ins (tests/device/shim for the Python modules, the aclnn stand-in
# library and device/aclnn's C program for aclnn_v2; they compute with
# fast/), what came back judged (fiacheck judge), and judge's verdict per
# case compared with `fiacheck run`'s on the same case file: they must be
# the same, every difference listed.
#
# Cases: every corpus case written through torch_npu_v2, mindspore,
# incre_flash_attention and torchair_v2; of the aclnn_v2 ones (most of
# the corpus) the folders below, which cover layouts, GQA, masks, sparse
# modes, lengths, lse, pages, TND and quantization in a few seconds (the
# whole corpus is a few minutes of reference; corpus_cases runs it).
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
"$py" -c 'import numpy, torch' 2>/dev/null || skip "$py has no numpy or torch"
bin=$(dirname "$FIACHECK")
standin=$bin/tests/device/standin
[ -f "$standin/lib/libfiacheck_aclnn_standin.so" ] ||
  skip "no aclnn stand-in built in $standin"
export FIACHECK_ACLNN_STANDIN_LIB=$standin/lib/libfiacheck_aclnn_standin.so
aclnn_folders="gqa mask sparse lse seqlen paged tnd"

# verdicts FILE.json [TSV]: "NAME VERDICT" lines, NAME the case file run
# judged (judge's case.fia mapped back through cases.tsv)
verdicts() {
  "$py" - "$@" <<'PY'
import json, os, sys
names = {}
if len(sys.argv) > 2:
    d = os.path.dirname(sys.argv[2])
    for line in open(sys.argv[2]):
        f = line.rstrip('\n').split('\t')
        names[os.path.join(d, f[0], 'case.fia')] = f[3]
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(names.get(r['case'], r['case']), r['verdict'])
PY
}

t0=$SECONDS
for api in torch_npu_v2 mindspore incre_flash_attention torchair_v2 aclnn_v2; do
  d=$tmp/$api
  if [ "$api" = aclnn_v2 ]; then
    cases=$(cd "$root" && for f in $aclnn_folders; do
              grep -L "^api = " corpus/cases/$f/*.case; done)
  else
    cases=$(cd "$root" && grep -l "^api = $api\$" corpus/cases/*/*.case)
  fi
  [ -n "$cases" ] || { bad "$api: no corpus case"; continue; }
  # a case export refuses (more input data than it writes) is left out
  for try in 1 2 3 4 5 6 7 8; do
    (cd "$root" && "$FIACHECK" export $cases --dir "$d") >"$tmp/export.out" 2>&1 && break
    big=$(sed -n 's/^fiacheck export: \([^:]*\.case\): its input tensors are .*/\1/p' "$tmp/export.out")
    [ -n "$big" ] || break
    cases=$(echo "$cases" | grep -vxF "$big")
  done
  [ -f "$d/cases.tsv" ] ||
    { bad "$api: export failed"; sed 's/^/    /' "$tmp/export.out" >&2; continue; }
  if [ "$api" = aclnn_v2 ]; then
    FIA_ACLNN_STANDIN=$standin OUT=$tmp/fia_aclnn_run CC=${CC:-cc} CFLAGS="-O1 -g" \
      bash "$d/aclnn/build.sh" >"$tmp/build.out" 2>&1 ||
      { bad "aclnn: build.sh failed"; sed 's/^/    /' "$tmp/build.out" >&2; continue; }
    "$tmp/fia_aclnn_run" "$d" >"$tmp/script.out" 2>&1
  else
    PYTHONPATH=$root/tests/device/shim "$py" "$d/run_$api.py" "$d" >"$tmp/script.out" 2>&1
  fi
  [ $? -le 1 ] && ok || { bad "$api: the script failed"; tail -5 "$tmp/script.out" >&2; }
  cp "$tmp/script.out" "$tmp/$api.script.out"
  "$FIACHECK" judge "$d" --json >"$tmp/judge.json" 2>"$tmp/judge.err"
  [ $? -le 1 ] && ok || { bad "$api: judge found bad inputs"; grep bad-input "$tmp/judge.json" | head -3 >&2; }
  (cd "$root" && "$FIACHECK" run --json $cases) >"$tmp/run.json" 2>/dev/null
  verdicts "$tmp/judge.json" "$d/cases.tsv" | sort >"$tmp/judge.v"
  (cd "$root" && verdicts "$tmp/run.json") | sort >"$tmp/run.v"
  n=$(wc -l <"$tmp/run.v")
  if [ "$n" -eq "$(echo $cases | wc -w)" ] && cmp -s "$tmp/run.v" "$tmp/judge.v"; then ok; else
    bad "$api: judge's verdicts differ from run's ($n cases; < run, > judge)"
    diff "$tmp/run.v" "$tmp/judge.v" | grep '^[<>]' | head -40 >&2
    # why, in judge's words
    grep -v '"verdict":"pass"' "$tmp/judge.json" | grep -o '"message":"[^"]*"' |
      sort | uniq -c | sort -rn | head -5 >&2
  fi
  echo "$api: $((SECONDS - t0)) s" >&2
done
# ROUNDTRIP_KEEP=DIR keeps the directories, answers and verdicts to look at
[ -n "${ROUNDTRIP_KEEP:-}" ] && cp -r "$tmp" "$ROUNDTRIP_KEEP"
finish
