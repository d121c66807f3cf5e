#!/usr/bin/env bash
# `fiacheck bench --fuzz` prints the in-process figure and, when the
# libFuzzer binaries sit beside fiacheck, a real campaign per target (here
# the fake ones) with its execs/s per core; --campaign 0 skips those.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
bench=$(dirname "$FIACHECK")/fiacheck-bench-fuzz
[ -x "$bench" ] || skip "$bench not built"
cp "$bench" "$tmp/bin/"
expect_exit 0 "$fz" bench --fuzz 0.1 --campaign 1
expect_grep "^in-process" "$tmp/out"
expect_grep "^real campaigns: fiacheck fuzz --target T --time 1 --jobs 1" "$tmp/out"
for t in fuzz_params fuzz_numeric fuzz_metamorphic; do
  expect_grep "^$t +[0-9]+ +[0-9]+ +all$" "$tmp/out"
done
fake_nosan
expect_exit 0 "$fz" bench --fuzz 0.1 --campaign 1
expect_grep "^real campaigns: .* --jobs 2 .*one ASan\+UBSan worker, one without" "$tmp/out"
expect_grep "^fuzz_numeric +[0-9]+ +[0-9]+ +1 of 2 worker runs sanitized" "$tmp/out"
expect_exit 0 "$fz" bench --fuzz 0.1 --campaign 0
if grep -q "real campaigns" "$tmp/out"; then bad "--campaign 0 ran campaigns"; else ok; fi
expect_exit 2 "$fz" bench --fuzz --campaign x
finish
