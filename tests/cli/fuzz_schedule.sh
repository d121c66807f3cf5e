#!/usr/bin/env bash
# The targets of a campaign run side by side: with --jobs >= targets every
# target starts at once and runs the whole --time; with fewer jobs they
# take turns of a few seconds round-robin, each early.  With no-sanitizer
# twins beside them, each target's first worker still runs sanitized, and
# the summary says so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"

# start time of the first run of $1 (from $tmp/starts), relative to $2
first() { awk -v n="$1" -v t0="$2" '$1 == n {printf "%.1f\n", $2 - t0; exit}' "$tmp/starts"; }
t0() { awk 'NR == 1 {print $2}' "$tmp/starts"; }

# --jobs 3: all three start at once, each runs 3 s, not 9 s in a row
: >"$tmp/starts"
s=$(date +%s)
expect_exit 0 "$fz" fuzz --time 3 --jobs 3 --db "$tmp/a.db" --workdir "$tmp/w"
took=$(($(date +%s) - s))
[ "$took" -le 6 ] && ok || bad "3 targets x 3 s with 3 jobs took $took s"
z=$(t0)
for t in fuzz_params fuzz_numeric fuzz_metamorphic; do
  d=$(first "$t" "$z")
  awk -v d="$d" 'BEGIN {exit !(d != "" && d < 1.0)}' && ok || bad "$t started at +$d s"
done
expect_grep "^fuzz_params (.* )?-max_total_time=3( |$)" "$tmp/argv"

# --jobs 1, --time 6: turns of 2 s; fuzz_numeric starts ~2 s in, not 6 s
: >"$tmp/starts"
expect_exit 0 "$fz" fuzz --time 6 --jobs 1 --db "$tmp/b.db" --workdir "$tmp/w"
z=$(t0)
d=$(first fuzz_numeric "$z")
awk -v d="$d" 'BEGIN {exit !(d != "" && d >= 1.5 && d < 3.5)}' && ok ||
  bad "with one job fuzz_numeric started at +$d s, wanted ~2"
d=$(first fuzz_metamorphic "$z")
awk -v d="$d" 'BEGIN {exit !(d != "" && d >= 3.5 && d < 5.5)}' && ok ||
  bad "with one job fuzz_metamorphic started at +$d s, wanted ~4"
expect_grep "taking turns" "$tmp/err"

# no-sanitizer twins: --jobs 2 on one target runs one of each
fake_nosan
: >"$tmp/argv"
expect_exit 0 "$fz" fuzz --target params --time 1 --jobs 2 --db "$tmp/c.db" --workdir "$tmp/w"
[ "$(grep -c '^fuzz_params ' "$tmp/argv")" = 1 ] && ok || bad "sanitized runs: $(cat "$tmp/argv")"
[ "$(grep -c '^fuzz_params_nosan ' "$tmp/argv")" = 1 ] && ok || bad "no-sanitizer runs: $(cat "$tmp/argv")"
expect_grep "sanitizers: 1 of 2 worker runs sanitized" "$tmp/out"
expect_grep "^fuzz_params +2000 " "$tmp/out"

# a worker that ends with an error (a crash) is restarted within its turn;
# one that fails at its start again and again is left alone, and said
: >"$tmp/argv"
expect_exit 0 env FAKE_EXIT=77 "$fz" fuzz --target numeric --time 4 --db "$tmp/d.db" --workdir "$tmp/w"
n=$(grep -c '^fuzz_numeric' "$tmp/argv")
[ "$n" = 5 ] && ok || bad "$n runs of a worker failing at once, wanted 5"
expect_grep "fuzz_numeric failed at its start 5 times in a row" "$tmp/err"
finish
