#!/usr/bin/env bash
# Time to first finding per target, from the campaign's start: a target
# that "finds" after N seconds gets a ttff >= N (summary, store, `db
# campaigns` and its --json); a target without finding shows none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

db=$tmp/w/t.db
expect_exit 1 env FAKE_SLEEP=4 FAKE_FIND_AFTER_fuzz_numeric=2 \
  "$fz" fuzz --time 4 --jobs 3 --db "$db" --seed 1
cp "$tmp/out" "$tmp/summary"
expect_grep "ttff" "$tmp/summary"
num=$(awk '$1 == "fuzz_numeric" {print $NF}' "$tmp/summary")
par=$(awk '$1 == "fuzz_params" {print $NF}' "$tmp/summary")
case $num in
  [2-3].[0-9]s|4.[0-4]s) ok ;;
  *) bad "fuzz_numeric's ttff '$num', wanted 2..4.4 s" ;;
esac
[ "$par" = "-" ] && ok || bad "fuzz_params' ttff '$par', wanted -"
got=$(sqlite3 "$db" "SELECT target || '=' || COALESCE(ttff >= 2 AND ttff < 4.5, 'none') FROM campaigns ORDER BY id" | tr '\n' ' ')
[ "$got" = "fuzz_params=none fuzz_numeric=1 fuzz_metamorphic=none " ] && ok ||
  bad "stored ttff '$got'"
expect_exit 0 "$fz" db campaigns --db "$db"
expect_grep "ttff" "$tmp/out"
expect_grep "fuzz_numeric .* [2-4]\.[0-9]s" "$tmp/out"
expect_grep "fuzz_params .* - *$" "$tmp/out"
expect_exit 0 "$fz" db campaigns --db "$db" --json
expect_grep '"target":"fuzz_numeric".*"ttff":[2-4]\.' "$tmp/out"
expect_grep '"target":"fuzz_params".*"ttff":null' "$tmp/out"

# a slow unit libFuzzer writes is no finding: no time to first finding
db2=$tmp/w/slow.db
expect_exit 0 env FAKE_SLEEP=2 FAKE_SLOW=1 "$fz" fuzz --time 2 --jobs 3 --db "$db2" --seed 1
for t in fuzz_params fuzz_numeric fuzz_metamorphic; do
  v=$(awk -v t=$t '$1 == t && NF > 5 {print $NF}' "$tmp/out" | tail -n 1)
  [ "$v" = "-" ] && ok || bad "$t's ttff '$v' after a slow unit, wanted -"
done
finish
