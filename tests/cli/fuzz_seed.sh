#!/usr/bin/env bash
# The seeds a campaign really used are stored: each libFuzzer run gets an
# explicit -seed derived from the campaign seed (--seed, or drawn at random
# and stored), and --seed takes 1..2^32-1 only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
export FAKE_SLEEP=0

for s in abc -7 0 4294967296 12x ""; do
  expect_exit 2 "$fz" fuzz --target params --time 1 --db "$tmp/bad.db" --seed "$s"
done
[ ! -e "$tmp/bad.db" ] && ok || bad "a store was made for a bad --seed"

# --seed 7: fuzz_params runs with -seed=7, the next target with 8; stored
: >"$tmp/argv"
expect_exit 0 "$fz" fuzz --time 2 --db "$tmp/s.db" --seed 7 --workdir "$tmp/w"
expect_grep "^fuzz_params .* -seed=7( |$)" "$tmp/argv"
expect_grep "^fuzz_numeric .* -seed=8( |$)" "$tmp/argv"
got=$(sqlite3 "$tmp/s.db" "SELECT target || '=' || seed FROM campaigns ORDER BY id" | tr '\n' ' ')
[ "$got" = "fuzz_params=7 fuzz_numeric=8 fuzz_metamorphic=9 " ] && ok || bad "stored seeds '$got'"

# no --seed: a random one, passed to libFuzzer and stored, and the stored
# command names it so that it reruns the same
: >"$tmp/argv"
expect_exit 0 "$fz" fuzz --target params --time 1 --db "$tmp/r.db" --workdir "$tmp/w"
used=$(sed -n 's/^fuzz_params .*-seed=\([0-9]*\).*/\1/p' "$tmp/argv")
stored=$(sqlite3 "$tmp/r.db" "SELECT seed FROM campaigns")
[ -n "$used" ] && [ "$used" -gt 0 ] && [ "$used" = "$stored" ] && ok ||
  bad "libFuzzer seed '$used', stored '$stored'"
cmd=$(sqlite3 "$tmp/r.db" "SELECT command FROM campaigns")
case $cmd in *"--seed $stored"*) ok ;; *) bad "stored command '$cmd' lacks --seed $stored" ;; esac
finish
