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

# --jobs 1: all three start at once too, sharing one CPU (pinned when
# there are more)
: >"$tmp/starts"
expect_exit 0 "$fz" fuzz --time 2 --jobs 1 --db "$tmp/b.db" --workdir "$tmp/w"
z=$(t0)
for t in fuzz_params fuzz_numeric fuzz_metamorphic; do
  d=$(first "$t" "$z")
  awk -v d="$d" 'BEGIN {exit !(d != "" && d < 1.0)}' && ok || bad "one job: $t started at +$d s"
done
if [ "$(nproc)" -gt 1 ]; then
  cpus=$(awk '{print $3}' "$tmp/starts" | sort -u | tr '\n' ' ')
  case $cpus in *[,-]*|*" "?*" ") bad "one job: workers on CPUs '$cpus'" ;; *) ok ;; esac
fi
expect_grep "the targets' workers share them" "$tmp/err"

# no-sanitizer twins: --jobs 2 on one target runs one of each
fake_nosan
: >"$tmp/argv"
expect_exit 0 "$fz" fuzz --target params --time 1 --jobs 2 --db "$tmp/c.db" --workdir "$tmp/w"
[ "$(grep -c '^fuzz_params ' "$tmp/argv")" = 1 ] && ok || bad "sanitized runs: $(cat "$tmp/argv")"
[ "$(grep -c '^fuzz_params_nosan ' "$tmp/argv")" = 1 ] && ok || bad "no-sanitizer runs: $(cat "$tmp/argv")"
expect_grep "sanitizers: 1 of 2 worker runs sanitized" "$tmp/out"
expect_grep "^fuzz_params +2000 " "$tmp/out"
# fewer jobs than targets: each target one worker of each kind
: >"$tmp/argv"
expect_exit 0 "$fz" fuzz --time 1 --jobs 1 --db "$tmp/e.db" --workdir "$tmp/w"
[ "$(grep -c '^fuzz_[a-z]* ' "$tmp/argv")" = 3 ] && ok || bad "sanitized runs: $(cat "$tmp/argv")"
[ "$(grep -c '^fuzz_[a-z]*_nosan ' "$tmp/argv")" = 3 ] && ok || bad "no-sanitizer runs: $(cat "$tmp/argv")"

# a worker that ends with an error (a crash) is restarted within its turn;
# one that fails at its start again and again is left alone, and said
: >"$tmp/argv"
expect_exit 0 env FAKE_EXIT=77 "$fz" fuzz --target numeric --time 4 --db "$tmp/d.db" --workdir "$tmp/w"
n=$(grep -c '^fuzz_numeric' "$tmp/argv")
[ "$n" = 5 ] && ok || bad "$n runs of a worker failing at once, wanted 5"
expect_grep "fuzz_numeric failed at its start 5 times in a row" "$tmp/err"
finish
