#!/usr/bin/env bash
# bench --kernels --db: the figures of a run stored with the revision and
# the machine, listed by db bench, compared by db regressions only with
# two runs or more a side; --revision without --db, or a store that cannot
# be written, is bad usage and stores nothing.
. "$(dirname "$0")/lib.sh"

db="$tmp/b.db"
for rev in r1 r1 r2 r2; do
  expect_exit 0 "$FIACHECK" bench --kernels --quick --db "$db" --revision $rev
  expect_checkpointed "$db"
done
"$FIACHECK" db bench --db "$db" --revision r1 >"$tmp/list" 2>&1
expect_grep '^r1 .* kernels .*avx2/qk_t|^r1 .* kernels .*scalar/qk_t' "$tmp/list"
expect_grep 'of fma-peak' "$tmp/list"
"$FIACHECK" db bench --db "$db" --json >"$tmp/json" 2>&1
expect_grep '"type":"bench_figure","run":"[0-9a-f-]{36}","revision":"r2"' "$tmp/json"
# the verdicts depend on the host's noise; the comparison itself must run
"$FIACHECK" db regressions --db "$db" --base r1 --head r2 --all-buckets \
  >"$tmp/reg" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] && ok || bad "db regressions exit $rc"
expect_grep 'benchmark figures measured at both revisions on one machine, 0 with fewer than 2 runs' "$tmp/reg"
expect_grep '^(same|slower|faster) +bench kernels ' "$tmp/reg"
"$FIACHECK" db regressions --db "$db" --base r1 --head r2 --json >"$tmp/regj"
expect_grep '"regression":"bench-(same|slower|faster)","suite":"kernels"' "$tmp/regj"
# one run at r3: listed, not judged
expect_exit 0 "$FIACHECK" bench --kernels --quick --db "$db" --revision r3
expect_exit 0 "$FIACHECK" db regressions --db "$db" --base r1 --head r3
"$FIACHECK" db regressions --db "$db" --base r1 --head r3 >"$tmp/reg3"
expect_grep 'with fewer than 2 runs on a side not judged: 0 slower' "$tmp/reg3"

expect_exit 2 "$FIACHECK" bench --kernels --quick --revision r9
expect_exit 2 "$FIACHECK" bench --kernels --quick --db "$tmp/no/such/dir/x.db"
"$FIACHECK" db bench --db "$db" --revision r9 >"$tmp/r9" 2>&1
expect_exit 2 "$FIACHECK" db bench --db "$db" --revision r9
finish
