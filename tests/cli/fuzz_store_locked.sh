#!/usr/bin/env bash
# A finding is never lost silently: with the store locked (another process
# holds an exclusive lock past the busy timeout) the crash a worker wrote is
# retried, then spooled to a file, and the campaign ends with exit 2 naming
# how many findings could not be stored and where their files are.
# (About 20 s: two writes wait the store's 10 s busy timeout.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

db=$tmp/w/f.db
mkdir -p "$tmp/w"
(cd "$tmp/w" && FAKE_CRASH=1 FAKE_SLEEP=0 FAKE_WAIT_FOR=$tmp/locked exec "$fz" fuzz \
   --target params --time 5 --db "$db" >"$tmp/out" 2>"$tmp/err") &
pid=$!
# once the campaign has begun (its worker runs), lock the store
wait_for "$tmp/fuzz_params.pid" || bad "the fake fuzzer did not start"
mkfifo "$tmp/lock"
sqlite3 "$db" <"$tmp/lock" >/dev/null 2>&1 &
lockpid=$!
exec 9>"$tmp/lock"
printf 'BEGIN EXCLUSIVE;\n.shell touch %s\n' "$tmp/locked" >&9
wait_for "$tmp/locked" || bad "could not lock the store"
wait "$pid"
rc=$?
exec 9>&-          # releases the lock
wait "$lockpid"
[ "$rc" -eq 2 ] && ok || { bad "exit $rc, wanted 2"; sed 's/^/    /' "$tmp/err" >&2; }
expect_grep "1 finding\(s\) could not be stored" "$tmp/err"
dir=$(sed -n 's/.*could not be stored.* in \(.*\)$/\1/p' "$tmp/err" | head -1)
dir=${dir%% *}
n=$(ls "$dir"/*.case 2>/dev/null | wc -l)
[ "$n" -eq 1 ] && ok || bad "$n spooled case files in '$dir', wanted 1"
grep -q "^# fiacheck-kind: crash" "$dir"/*.case 2>/dev/null && ok || bad "spooled file lacks the finding's text"
finish
