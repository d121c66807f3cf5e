#!/usr/bin/env bash
# The summary's reach, from the workers' stats lines, over the campaign's
# targets, each at its earliest time: how many of the rules that can
# reject were broken alone (fia_oracle_sole_rule; "alone" lines), how many
# within 30 s, the slowest first, the ones never broken so; the paths
# computed ("reach" lines), how many within 10 s, the slowest first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

total=$("$FIACHECK" rules --json | grep -c '"kind":"\(reject\|not_modeled\)"')
db=$tmp/w/t.db
expect_exit 0 env FAKE_SLEEP=2 FAKE_ALONE_fuzz_params="LAYOUT-003=0 MASK-003=1" \
  FAKE_ALONE_fuzz_numeric="MASK-003=0 NOT-A-RULE=0" \
  FAKE_REACH_fuzz_numeric="decode=0 mask=12" FAKE_REACH_fuzz_metamorphic="mask=0 rope=11" \
  "$fz" fuzz --time 2 --jobs 2 --db "$db" --seed 1
line=$(grep "^rules broken alone" "$tmp/out")
case $line in
  "rules broken alone (every other rule accepting the call): 2 of the "*", 2 within 30 s") ok ;;
  *) bad "reach line '$line'" ;;
esac
# MASK-003: fuzz_numeric's 0 s beats fuzz_params' 1 s; LAYOUT-003 first
# of the two at 0 s each (by id)
expect_grep "^  slowest: LAYOUT-003 0\.[0-9]s MASK-003 0\.[0-9]s$" "$tmp/out"
expect_grep "^  never \\([0-9]+\\): ANTI-001 " "$tmp/out"
# every rule that can reject is counted (a NORMALIZE row cannot)
n=$(sed -n 's/^rules broken alone.*: 2 of the \([0-9]*\) that can reject.*/\1/p' "$tmp/out")
[ -n "$n" ] && [ "$n" -le "$total" ] && [ "$n" -gt 200 ] && ok ||
  bad "rules that can reject: '$n' (catalogue's reject/not_modeled rows: $total)"

# mask: the metamorphic target's 0 s beats the numeric one's 12 s; the
# fake writes its lines at its start, so 11 s is in the future, past 10 s
expect_grep "^paths computed .*: 3, 2 within 10 s$" "$tmp/out"
expect_grep "^  slowest: rope 1[01]\.[0-9]s decode 0\.[0-9]s mask 0\.[0-9]s$" "$tmp/out"

# nothing broken alone: no slowest line, every rule never; no path line
expect_exit 0 env FAKE_SLEEP=1 "$fz" fuzz --time 1 --jobs 2 --db "$tmp/w/u.db" --seed 1
expect_grep "^rules broken alone .*: 0 of the $n that can reject, 0 within 30 s" "$tmp/out"
grep -q "^  slowest:" "$tmp/out" && bad "a slowest line with nothing reached" || ok
grep -q "^paths computed" "$tmp/out" && bad "a path line with no path" || ok
finish
