#!/usr/bin/env bash
# A case file over 64 MiB is refused before it is read whole (a sparse file:
# the test stays fast), as bad input (exit 2) with a message saying so.
. "$(dirname "$0")/lib.sh"
truncate -s 65M "$tmp/huge.case"
expect_exit 2 "$FIACHECK" run "$tmp/huge.case"
expect_grep 'over the 64 MiB limit' "$tmp/out"
expect_exit 2 "$FIACHECK" run --json "$tmp/huge.case"
expect_grep '"verdict":"bad-input"' "$tmp/out"
expect_grep 'over the 64 MiB limit' "$tmp/out"
for cmd in repro minimize; do
  expect_exit 2 "$FIACHECK" $cmd "$tmp/huge.case"
  expect_grep 'over the 64 MiB limit' "$tmp/err"
done
expect_exit 2 "$FIACHECK" ref "$tmp/huge.case" --out "$tmp/r"
expect_grep 'over the 64 MiB limit' "$tmp/err"
expect_exit 2 "$FIACHECK" rules --coverage "$tmp/huge.case"
expect_grep 'over the 64 MiB limit' "$tmp/err"
# just under the limit is read (and then judged on its text)
truncate -s 1M "$tmp/big.case"
expect_exit 2 "$FIACHECK" run "$tmp/big.case"
if grep -q 'MiB limit' "$tmp/out"; then bad "1 MiB refused as too large"; else ok; fi
finish
