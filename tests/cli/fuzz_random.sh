#!/usr/bin/env bash
# A campaign's random worker: beside the libFuzzer workers, fuzz_numeric's
# replay driver runs a fixed random stream (not coverage-guided) for the
# campaign's time, seeded like the target's runs, its crash inputs written
# where libFuzzer writes artifacts; its stats count for fuzz_numeric.  And
# the driver itself stops at --time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

# a fake replay driver: logs its arguments, writes a worker's stats, "finds"
cat >"$tmp/bin/fuzz_numeric_replay" <<'FAKE'
#!/usr/bin/env bash
echo "$(basename "$0") $*" >>"$FAKE_DIR/argv"
t=1
while [ $# -gt 0 ]; do case $1 in --time) t=$2; shift ;; esac; shift; done
printf 'execs 777000\nfindings 1\n' >"$FIACHECK_STATS/fuzz_numeric.$$"
echo "fuzz: finding fake|random: from the random stream"
sleep "$t"
FAKE
chmod +x "$tmp/bin/fuzz_numeric_replay"

db=$tmp/w/r.db
expect_exit 1 env FAKE_SLEEP=2 "$fz" fuzz --time 2 --jobs 2 --db "$db" --seed 5
cp "$tmp/out" "$tmp/summary"
expect_grep "^fuzz_numeric_replay --random [0-9]* --seed [0-9]* --time 2 --artifact-prefix .*/$" "$tmp/argv"
n=$(grep -c "^fuzz_numeric_replay" "$tmp/argv")
[ "$n" = 1 ] && ok || bad "$n random workers started, wanted 1"
grep -q "^fuzz_params_replay\|^fuzz_metamorphic_replay" "$tmp/argv" &&
  bad "a random worker for another target" || ok
# its execs and its finding count for fuzz_numeric (ttff set)
num=$(awk '$1 == "fuzz_numeric" {print $NF}' "$tmp/summary")
case $num in [0-2].[0-9]s) ok ;; *) bad "fuzz_numeric's ttff '$num'" ;; esac
expect_grep "^fuzz_numeric  *778000 " "$tmp/summary"

# the real driver stops at --time, and says how many inputs it ran
REPLAY=$(dirname "$FIACHECK")/fuzz_numeric_replay
if [ -x "$REPLAY" ]; then
  start=$(date +%s)
  expect_exit 0 env -u FIACHECK_DB "$REPLAY" --random 2000000000 --seed 3 --time 1
  [ $(($(date +%s) - start)) -le 5 ] && ok || bad "--time 1 ran past 5 s"
  expect_grep "^fuzz_numeric: [0-9]* inputs" "$tmp/out"
  expect_exit 2 "$REPLAY" --bogus
fi
finish
