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
# in-process: where each target's time went (no fuzzer there)
expect_grep "^  CPU time: reference [0-9.]+ %, system under test [0-9.]+ %, harness [0-9.]+ % of [0-9.]+ s \([0-9]+ execs per CPU second\)" "$tmp/out"
# each target's goal (execs per core second) and the ratio to it
expect_grep "^fuzz_params +[0-9]+ +[0-9]+ +20000 +[0-9.]+x" "$tmp/out"
expect_grep "^fuzz_numeric +[0-9]+ +[0-9]+ +500 +[0-9.]+x" "$tmp/out"
expect_grep "^fuzz_metamorphic +[0-9]+ +[0-9]+ +500 +[0-9.]+x" "$tmp/out"
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
# a campaign's workers say where their time went: its summary line, under
# the campaign's row in bench (two workers of 1 s each: the same shares)
export FAKE_CPU=1
expect_exit 0 "$fz" bench --fuzz 0.1 --campaign 1
unset FAKE_CPU
expect_grep "^  CPU time: reference 20\.0 %, system under test 10\.0 %, harness 20\.0 %, fuzzer 50\.0 % of [0-9.]+ s \([0-9]+ execs per CPU second\); the reference left 2\.50 % of [0-9]+ elements to MPFR$" "$tmp/out"
expect_exit 2 "$fz" bench --fuzz 0.1 numeric-no-such-target --campaign 0
expect_exit 2 "$fz" bench --fuzz --campaign x
finish
