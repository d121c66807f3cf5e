#!/usr/bin/env bash
# --sut exec:COMMAND (docs/sut/exec.md): fast/ served by
# fiacheck-plugin-worker gives the built-in's verdicts; a worker that hangs
# is a timeout, one that dies or lies a crash, and the next case is judged
# by a new worker; a bad hello and bad --timeout values exit 2; a numbers
# worker that refuses everything covers nothing; a fuzz campaign stores a
# worker's findings under its name (survey's too; repro gives the crash
# again) and leaves no worker behind when killed.
. "$(dirname "$0")/lib.sh"
bin=$(cd "$(dirname "$FIACHECK")" && pwd) # absolute: the campaign runs elsewhere
FIACHECK=$bin/$(basename "$FIACHECK")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
worker=$bin/fiacheck-plugin-worker
fastso=$bin/plugins/libfiacheck_sut_fast.so
[ -x "$worker" ] && [ -f "$fastso" ] || skip "no $worker or $fastso"
[ -x "$py" ] || skip "no $py (the test workers are Python)"
W="$worker $fastso"
# mis MODE [TAG]: a worker that misbehaves once per TAG (its state file)
mis() { echo "exec:$py $root/tests/exec/misbehave.py $1 $tmp/state.$1${2:-} exectest -- $W"; }
A=corpus/cases/gqa/gqa_bnsd_causal.case   # computed
B=corpus/cases/gqa/gqa_decode_bsh.case    # computed
R=corpus/cases/gqa/reject_kv_heads_negative.case # status only

# 1. The same verdict lines through the worker as built in.
verdicts() { grep -o '"case":"[^"]*"\|"verdict":"[^"]*"\|"fast_status":[0-9]*' | paste -d' ' - - -; }
# (folders cheap under ASan: the other tests judge the rest)
cases=$(ls corpus/cases/{gqa,paged,tensor_list,seqlen,tensors,product,int_inputs,lse}/*.case)
"$FIACHECK" run $cases --json >"$tmp/builtin.json" 2>/dev/null
"$FIACHECK" run $cases --json --sut "exec:$W" >"$tmp/worker.json" 2>"$tmp/worker.err"
verdicts <"$tmp/builtin.json" >"$tmp/builtin.v"
verdicts <"$tmp/worker.json" >"$tmp/worker.v"
n=$(wc -l <"$tmp/builtin.v")
if [ "$n" -ge 50 ] && cmp -s "$tmp/builtin.v" "$tmp/worker.v"; then ok; else
  bad "worker verdicts differ from the built-in's ($n cases)"
  diff "$tmp/builtin.v" "$tmp/worker.v" | head >&2; sed 's/^/    /' "$tmp/worker.err" | head >&2; fi
expect_exit 0 "$FIACHECK" run "$A" --sut "exec:$W"
expect_grep "worker \`$worker" "$tmp/out"

# 2. A hang: a timeout within --timeout, and the next cases judged.
start=$(date +%s)
expect_exit 1 "$FIACHECK" run "$A" "$B" "$R" --timeout 2 --sut "$(mis hang)"
took=$(($(date +%s) - start))
[ "$took" -lt 15 ] && ok || bad "the hang took ${took}s with --timeout 2"
expect_grep "verdict +timeout: .*within 2 s" "$tmp/out"
[ "$(grep -Ec 'verdict +pass' "$tmp/out")" -eq 2 ] && ok || bad "the cases after the timeout were not judged"
expect_grep "3 cases: 2 passed, 0 vacuous, 1 findings" "$tmp/out"

# 3. Death by a signal, named; an exit 0 mid-call is a crash too.
expect_exit 1 "$FIACHECK" run "$A" "$B" --sut "$(mis segv)"
expect_grep "verdict +crash: .*SIGSEGV" "$tmp/out"
expect_grep "verdict +pass" "$tmp/out"
expect_exit 1 "$FIACHECK" run "$A" --json --sut "$(mis exit0)"
expect_grep '"verdict":"crash".*exited with status 0' "$tmp/out"
expect_grep '"fast_status":990005' "$tmp/out"

# 4. Lies: a wrong byte count, a line that is no answer; quoted.
expect_exit 1 "$FIACHECK" run "$A" "$B" --sut "$(mis badbytes)"
expect_grep 'verdict +crash: .*"tensor attention_out 12"' "$tmp/out"
expect_grep "verdict +pass" "$tmp/out"
expect_exit 1 "$FIACHECK" run "$A" --sut "$(mis garbage)"
expect_grep 'verdict +crash: .*"hello from the worker"' "$tmp/out"

# 5. No worker: a bad hello, a command that is not there; exit 2.
expect_exit 2 "$FIACHECK" run "$A" --timeout 3 --sut "$(mis badhello)"
expect_grep '"hi, I am a worker"' "$tmp/err"
expect_exit 2 "$FIACHECK" run "$A" --sut "exec:$tmp/no-such-worker"
expect_grep "before its hello" "$tmp/err"
expect_exit 2 "$FIACHECK" run "$A" --sut "exec:"

# 6. A numbers worker that refuses everything covers nothing.
expect_exit 0 "$FIACHECK" run "$A" "$R" --sut "$(mis refuse)"
expect_grep "not covered by exectest: 990001" "$tmp/out"
expect_grep "not judged: exectest checks numbers only" "$tmp/out"

# 7. Timeouts: > 0 seconds, a number; on the command line or inherited.
for t in 0 x -1 nan 1e9 ""; do
  expect_exit 2 "$FIACHECK" run "$A" --timeout "$t" --sut "exec:$W"
  expect_grep "timeout wants seconds" "$tmp/err"
done
expect_exit 2 "$FIACHECK" run "$A" --sut "exec:$W" --timeout
expect_exit 2 env FIACHECK_SUT_TIMEOUT=soon "$FIACHECK" run "$A" --sut "exec:$W"
expect_grep "FIACHECK_SUT_TIMEOUT=soon" "$tmp/err"
expect_exit 0 "$FIACHECK" run "$A" --timeout 0.5e1 --sut "exec:$W"
# the byte limit: refused by fiacheck, never sent, not judged
expect_exit 0 env FIACHECK_EXEC_MAX_BYTES=1000 "$FIACHECK" run "$A" "$R" --sut "exec:$W"
expect_grep "not judged: exec: not sent to the worker: the call's tensors are [0-9]+ bytes, over the limit of 1000" "$tmp/out"
expect_grep "verdict +pass" "$tmp/out"

# 8. survey counts a worker's crashes as findings, under its name.
expect_exit 1 "$FIACHECK" survey --cases 5 --db "$tmp/s.db" --sut "$(mis always-segv)"
expect_grep "not covered by exectest, [1-5] findings" "$tmp/out"

# bench stops at a worker's crash, with a message (not under the
# sanitizers: its FMA peak and fast/'s calls before the crash take 30 s)
if [ -x "$bin/fiacheck-bench-sut" ] && ! grep -qa AddressSanitizer "$bin/fiacheck-bench-sut"; then
  expect_exit 1 "$FIACHECK" bench --reps 1 --sut "$(mis segv .bench)"
  expect_grep "bench: crash on prefill: .*SIGSEGV" "$tmp/err"
fi

# 9. A campaign: the worker's findings under its name; killed, no worker
# left.  Needs the libFuzzer binaries (as tests/cli/fuzz.sh).
fz=$FIACHECK
if [ ! -x "$bin/fuzz_numeric" ] && [ -x "$root/build/fuzz/fuzz_numeric" ]; then
  fz=$root/build/fuzz/fiacheck
fi
if [ ! -x "$(dirname "$fz")/fuzz_numeric" ]; then
  echo "SKIP: libFuzzer binaries not built: the campaign part of this test skipped"
  finish
  exit $?
fi
mkdir -p "$tmp/w"
(cd "$tmp/w" && "$fz" fuzz --target numeric --time 6 --jobs 1 --db "$tmp/w/f.db" \
   --seed 1 --sut "$(mis always-segv)" >"$tmp/out" 2>"$tmp/err")
rc=$?
if [ "$rc" -le 1 ]; then ok; else bad "fuzz exit $rc"; sed 's/^/    /' "$tmp/err" | tail >&2; fi
"$fz" db findings --db "$tmp/w/f.db" >"$tmp/findings" 2>&1
expect_grep "exectest:crash" "$tmp/findings"
# repro of one: a crash again, exit 1
expect_exit 1 "$fz" repro 1 --db "$tmp/w/f.db" --sut "$(mis always-segv)"
expect_grep "verdict +crash: .*SIGSEGV" "$tmp/out"
marker=fiacheck-exec-test-$$-$RANDOM
(cd "$tmp/w" && exec "$fz" fuzz --target numeric --time 60 --jobs 1 \
   --db "$tmp/w/k.db" --sut "exec:$py $root/tests/exec/misbehave.py hang $tmp/state.k $marker -- $W" \
   >"$tmp/kout" 2>&1) &
camp=$!
for _ in $(seq 100); do pgrep -f "^$py .*$marker" >/dev/null && break; sleep 0.1; done
pgrep -f "^$py .*$marker" >/dev/null && ok || bad "the campaign started no worker"
kill -TERM "$camp"
wait "$camp"
for _ in $(seq 50); do pgrep -f "^$py .*$marker" >/dev/null || break; sleep 0.1; done
if pgrep -f "^$py .*$marker" >/dev/null; then
  bad "a worker outlived its campaign: $(pgrep -af "^$py .*$marker")"
  for p in $(pgrep -f "^$py .*$marker"); do kill -KILL "$p"; done
else ok; fi
finish
