#!/usr/bin/env bash
# SIGKILL of `fiacheck fuzz` (no handler runs, nothing is stopped by it):
# its workers, each in a process group of its own, must notice that their
# parent is gone and end within a second, not fuzz on until --time and
# go on writing to the store and the campaign's files.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
fake_nosan

mkdir -p "$tmp/w" "$tmp/t"
(cd "$tmp/w" && TMPDIR=$tmp/t exec "$fz" fuzz --target params --jobs 2 \
   --time 30 --db "$tmp/w/f.db" >"$tmp/out" 2>"$tmp/err") &
pid=$!
wait_for "$tmp/fuzz_params.pid" && wait_for "$tmp/fuzz_params_nosan.pid" ||
  bad "the fake fuzzers did not start"
sleep 0.5
pgrep -f "$tmp/bin/fuzz_" >/dev/null && ok || bad "no worker runs"
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null   # (no "Killed" line from the shell)
sleep 1.5
# nothing writes after that: the store, and the workers' stats files
snap() { find "$tmp/w" -type f -printf '%p %s %T@\n' | sort; }
snap >"$tmp/before"
sleep 1
snap >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then ok; else
  bad "files written after the campaign was killed"; diff "$tmp/before" "$tmp/after" | head -4 >&2; fi
grep -q stats "$tmp/before" && ok || bad "no stats file seen: the check above saw nothing"
if pgrep -f "$tmp/bin/fuzz_" >/dev/null; then
  bad "workers outlived the killed campaign: $(pgrep -af "$tmp/bin/fuzz_" | cut -c1-80)"
  for p in $(pgrep -f "$tmp/bin/fuzz_"); do kill -KILL "$p"; done
else ok; fi
finish
