#!/usr/bin/env bash
# Ctrl-C during `fiacheck fuzz`: the workers are stopped, the crash they
# wrote before the signal becomes a finding, the campaign's counts are
# recorded, the summary is printed, the exit is 130, and no worker process
# or libFuzzer temp directory outlives the command.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

mkdir -p "$tmp/w" "$tmp/t"
set -m   # a background job that takes SIGINT, as from a terminal
(cd "$tmp/w" && TMPDIR=$tmp/t FAKE_CRASH=1 FAKE_SLEEP=30 exec "$fz" fuzz \
   --target params --time 30 --db "$tmp/w/f.db" >"$tmp/out" 2>"$tmp/err") &
pid=$!
set +m
wait_for "$tmp/fuzz_params.pid" || bad "the fake fuzzer did not start"
sleep 1
kill -INT "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then bad "fiacheck fuzz still runs 10 s after SIGINT"; kill -KILL "$pid"; fi
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && ok || { bad "exit $rc after SIGINT, wanted 130"; sed 's/^/    /' "$tmp/err" >&2; }
expect_grep "^fuzz_params +1000 " "$tmp/out"
execs=$(sqlite3 "$tmp/w/f.db" "SELECT execs FROM campaigns" 2>/dev/null)
[ "$execs" = 1000 ] && ok || bad "campaign execs '$execs', wanted 1000"
n=$(sqlite3 "$tmp/w/f.db" "SELECT count(*) FROM findings WHERE kind='crash'" 2>/dev/null)
[ "$n" = 1 ] && ok || bad "$n crash findings stored, wanted 1"
fp=$(cat "$tmp/fuzz_params.pid")
sleep 0.3
if kill -0 "$fp" 2>/dev/null || pgrep -f "$tmp/bin/fuzz_" >/dev/null; then
  bad "a worker outlived fiacheck fuzz"; kill -KILL "$fp" 2>/dev/null
else ok; fi
left=$(find "$tmp" -name 'libFuzzerTemp*')
[ -z "$left" ] && ok || bad "temp dir left: $left"
finish
