#!/usr/bin/env bash
# Tests that cannot run their subject here report SKIPPED (exit 77, which
# ctest counts as skipped), never a pass: each one run where its subject is
# missing -- clang (the ClusterFuzzLite contract tests), the fuzz bench
# binary, sqlite3.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2
# a PATH with everything of the system's but clang and sqlite3
mkdir -p "$tmp/bin"
for d in /usr/bin /usr/local/bin; do # the later wins, as in PATH
  (cd "$d" && ls) | grep -Ev '^(clang|sqlite3$)' | sed "s|^|$d/|" |
    xargs -r ln -sf -t "$tmp/bin" 2>/dev/null
done
for t in cflite_address cflite_ubsan_coverage; do
  expect_exit 77 env PATH="$tmp/bin" bash tests/cli/$t.sh "$FIACHECK"
  expect_grep "^SKIPPED: clang" "$tmp/out"
done
# fiacheck alone in a folder: no fiacheck-bench-fuzz beside it
mkdir -p "$tmp/alone" && cp "$FIACHECK" "$tmp/alone/"
expect_exit 77 bash tests/cli/fuzz_bench.sh "$tmp/alone/fiacheck"
expect_grep "^SKIPPED: .*fiacheck-bench-fuzz not built" "$tmp/out"
expect_exit 77 env PATH="$tmp/bin" bash tests/cli/fuzz_crash_site.sh "$FIACHECK"
expect_grep "^SKIPPED: sqlite3 missing" "$tmp/out"
finish
