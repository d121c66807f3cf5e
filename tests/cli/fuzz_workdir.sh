#!/usr/bin/env bash
# Campaigns keep their stats, logs and artifacts apart: two campaigns run at
# once in one directory with different stores count only their own workers;
# a working directory that cannot be written is an error, not a campaign of
# 0 execs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

mkdir -p "$tmp/w"
(cd "$tmp/w" && FAKE_SLEEP=3 "$fz" fuzz --target params --time 3 --db "$tmp/a/x.db" \
   >"$tmp/outa" 2>"$tmp/erra") &
pa=$!
sleep 0.5
(cd "$tmp/w" && FAKE_SLEEP=3 "$fz" fuzz --target params --time 3 --db "$tmp/b/y.db" \
   >"$tmp/outb" 2>"$tmp/errb") &
pb=$!
wait "$pa"; ra=$?
wait "$pb"; rb=$?
[ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] && ok || bad "exits $ra $rb"
expect_grep "^fuzz_params +1000 " "$tmp/outa"
expect_grep "^fuzz_params +1000 " "$tmp/outb"
for db in "$tmp/a/x.db" "$tmp/b/y.db"; do
  e=$(sqlite3 "$db" "SELECT execs FROM campaigns" 2>/dev/null)
  [ "$e" = 1000 ] && ok || bad "$db: execs '$e', wanted 1000"
done
# the work directories sit beside the store, keyed by the campaign's UUID
ls -d "$tmp"/a/stats/*-*-*-*-* >/dev/null 2>&1 && ok || bad "no stats/<uuid> beside the store"
# --workdir: an explicit place; one that cannot be written is exit 2
(cd "$tmp/w" && FAKE_SLEEP=0 "$fz" fuzz --target params --time 1 --db "$tmp/c/z.db" \
   --workdir "$tmp/wd" >"$tmp/out" 2>"$tmp/err")
[ $? -eq 0 ] && ok || bad "--workdir campaign failed"
ls -d "$tmp"/wd/stats/*-*-*-*-* >/dev/null 2>&1 && ok || bad "no stats/<uuid> under --workdir"
touch "$tmp/file"
expect_exit 2 env FAKE_SLEEP=0 "$fz" fuzz --target params --time 1 --db "$tmp/d/z.db" \
  --workdir "$tmp/file/sub"
expect_grep "cannot .*$tmp/file/sub" "$tmp/err"
# the default place (beside the store) unwritable: also exit 2
mkdir -p "$tmp/ro" && touch "$tmp/ro/stats"
expect_exit 2 env FAKE_SLEEP=0 "$fz" fuzz --target params --time 1 --db "$tmp/ro/z.db"
expect_grep "cannot .*$tmp/ro/stats" "$tmp/err"
finish
