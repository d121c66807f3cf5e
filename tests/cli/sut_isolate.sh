#!/usr/bin/env bash
# A system under test cannot take the harness down: run, repro, minimize
# and survey call a plug-in out of process (fiacheck-plugin-worker), so a
# plug-in that hangs, dies of SIGSEGV, calls exit(0) or abort() inside a
# call gives a timeout or crash finding of that case, and the command goes
# on with the next one, counts it and exits 1.  --no-isolate calls it
# in-process (and an exit(0) there ends the command: why isolation is the
# default); --isolate serves fast/ so.  Messages name the system, not fast.
. "$(dirname "$0")/lib.sh"
bin=$(cd "$(dirname "$FIACHECK")" && pwd)
FIACHECK=$bin/$(basename "$FIACHECK")
fastso=$bin/plugins/libfiacheck_sut_fast.so
[ -x "$bin/fiacheck-plugin-worker" ] && [ -f "$fastso" ] ||
  skip "no fiacheck-plugin-worker or $fastso beside $FIACHECK"
cc=${CC:-cc}
mis=$tmp/libmisbehave.so
"$cc" -shared -fPIC -g -O1 -I include -o "$mis" tests/sut/misbehave_sut.c -ldl ||
  skip "cannot build the test plug-in with $cc"
export MISBEHAVE_INNER=$fastso
# case SCALE: a decode case whose scale tells the plug-in what to do
mk() { sed "s/^scale = .*/scale = $1/" corpus/cases/gqa/gqa_decode_bsh.case >"$tmp/$2.case"; }
mk 0.0101 hang; mk 0.0202 segv; mk 0.0303 exit0; mk 0.0404 abort; mk 0.125 fine
cases="$tmp/hang.case $tmp/segv.case $tmp/exit0.case $tmp/abort.case $tmp/fine.case"

# 1. run: each misbehaviour a finding of its case, the command carries on.
start=$(date +%s)
expect_exit 1 "$FIACHECK" run $cases --timeout 2 --sut "$mis"
took=$(($(date +%s) - start))
[ "$took" -lt 20 ] && ok || bad "run took ${took}s with --timeout 2"
v() { grep -A12 "^$tmp/$1.case" "$tmp/out" | grep -m1 verdict; }
v hang | grep -Eq "verdict +timeout: .*within 2 s" && ok || bad "hang: $(v hang)"
v segv | grep -Eq "verdict +crash: .*(SIGSEGV|status [1-9])" && ok || bad "segv: $(v segv)"
v exit0 | grep -Eq "verdict +crash: .*exited with status" && ok || bad "exit0: $(v exit0)"
v abort | grep -Eq "verdict +crash: .*(SIGABRT|status [1-9])" && ok || bad "abort: $(v abort)"
v fine | grep -Eq "verdict +pass" && ok || bad "fine: $(v fine)"
expect_grep "^5 cases: 1 passed, 0 vacuous, 4 findings" "$tmp/out"
expect_grep "misbehave 1.0 .*out of process" "$tmp/out"
"$FIACHECK" run $cases --timeout 2 --json --sut "$mis" >"$tmp/json" 2>/dev/null
[ "$(grep -c '"verdict":"crash"' "$tmp/json")" = 3 ] &&
  [ "$(grep -c '"verdict":"timeout"' "$tmp/json")" = 1 ] && ok ||
  bad "JSON verdicts: $(grep -o '"verdict":"[a-z-]*"' "$tmp/json" | tr '\n' ' ')"

# in-process, as before: an exit(0) inside the call ends the command with
# exit 0 and the cases after it unjudged (why isolation is the default)
expect_exit 0 "$FIACHECK" run "$tmp/exit0.case" "$tmp/fine.case" --no-isolate --sut "$mis"
grep -q "cases:" "$tmp/out" && bad "in-process exit(0) did not end the command" || ok
# the options: one of them, once, for the commands that judge case by case
expect_exit 2 "$FIACHECK" run "$tmp/fine.case" --isolate --no-isolate --sut "$mis"
expect_grep "after --isolate" "$tmp/err"
expect_exit 2 "$FIACHECK" fuzz --isolate --time 1
expect_grep "takes no --isolate" "$tmp/err"
expect_exit 2 "$FIACHECK" run "$tmp/fine.case" --no-isolate --sut "exec:$bin/fiacheck-plugin-worker $fastso"
expect_grep "always another process" "$tmp/err"

# 2. fast/ out of process on request: the built-in's verdicts.
verdicts() { grep -o '"case":"[^"]*"\|"verdict":"[^"]*"' | paste -d' ' - -; }
set -- corpus/cases/gqa/*.case corpus/cases/paged/*.case
"$FIACHECK" run "$@" --json 2>/dev/null | verdicts >"$tmp/in.v"
"$FIACHECK" run "$@" --json --isolate 2>/dev/null | verdicts >"$tmp/out.v"
if [ "$(wc -l <"$tmp/in.v")" -ge 20 ] && cmp -s "$tmp/in.v" "$tmp/out.v"; then ok; else
  bad "--isolate verdicts differ from in-process ones"; diff "$tmp/in.v" "$tmp/out.v" | head >&2; fi
expect_exit 0 "$FIACHECK" run "$tmp/fine.case" --isolate
expect_grep "^fast .*out of process" "$tmp/out"

# 3. A status the rules did not expect: "misbehave returned", not fast.
MISBEHAVE_STATUS=161002 expect_exit 1 "$FIACHECK" run "$tmp/fine.case" --sut "$mis"
expect_grep "expected 0 OK, misbehave returned 161002" "$tmp/out"
expect_grep "^  misbehave +161002 PARAM_INVALID" "$tmp/out"

# a case's run settings reach the plug-in in its worker (fast/'s
# kernel_level and threads through its table, as in-process)
mk 0.0606 say; printf 'kernel_level = scalar\nthreads = 3\n' >>"$tmp/say.case"
expect_exit 1 "$FIACHECK" run "$tmp/say.case" --sut "$mis"
expect_grep "settings: kernel_level scalar threads 3" "$tmp/out"
"$FIACHECK" run "$tmp/fine.case" --json --sut "$mis" >"$tmp/json" 2>/dev/null
expect_grep '"fast_kernels":"[a-z0-9]+","fast_threads":[0-9]' "$tmp/json"

# 4. survey: a campaign of hangs stored as timeout findings, counted.
MISBEHAVE_ALWAYS=hang expect_exit 1 "$FIACHECK" survey --cases 2 --timeout 1 \
  --db "$tmp/s.db" --sut "$mis"
expect_grep "2 findings" "$tmp/out"
"$FIACHECK" db findings --db "$tmp/s.db" >"$tmp/f" 2>&1
expect_grep "misbehave:timeout" "$tmp/f"
# repro of the stored timeout finding returns within its timeout, exit 1
start=$(date +%s)
MISBEHAVE_ALWAYS=hang expect_exit 1 timeout 60 "$FIACHECK" repro 1 --db "$tmp/s.db" \
  --timeout 1 --sut "$mis"
took=$(($(date +%s) - start))
[ "$took" -lt 10 ] && ok || bad "repro of a timeout took ${took}s"
expect_grep "verdict +timeout" "$tmp/out"
# minimize keeps it a timeout, one bounded step after another
MISBEHAVE_ALWAYS=hang expect_exit 0 timeout 120 "$FIACHECK" minimize 1 --db "$tmp/s.db" \
  --timeout 0.5 --sut "$mis" --out "$tmp/m.case"
expect_grep "^# fiacheck-kind: timeout" "$tmp/m.case"
# and a crash stays a crash
MISBEHAVE_ALWAYS=segv-gather expect_exit 1 "$FIACHECK" repro 1 --db "$tmp/s.db" --sut "$mis"
expect_grep "verdict +crash" "$tmp/out"
finish
