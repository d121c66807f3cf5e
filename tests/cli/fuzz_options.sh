#!/usr/bin/env bash
# `fiacheck fuzz` refuses invalid option values (exit 2, before any store or
# campaign is made), has -h/--help, and its live progress line fits 80
# columns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
export FAKE_SLEEP=0

db=$tmp/o.db
expect_exit 2 "$fz" fuzz --target bogus --db "$db"
expect_exit 2 "$fz" fuzz --target params --target numeric --db "$db"
for t in 1s 0 -5 "" 99999999999; do
  expect_exit 2 "$fz" fuzz --target params --time "$t" --db "$db"
done
for j in 0 65 -1 2x ""; do
  expect_exit 2 "$fz" fuzz --target params --time 1 --jobs "$j" --db "$db"
done
expect_exit 2 "$fz" fuzz --target params --profile bogus --db "$db"
expect_exit 2 "$fz" fuzz --target params --db
expect_exit 2 "$fz" fuzz --bogus
[ ! -e "$db" ] && ok || bad "a store was made for bad options"

for h in -h --help; do
  expect_exit 0 "$fz" fuzz $h
  for opt in --target --time --jobs --db --workdir --profile --seed --help; do
    expect_grep "$opt" "$tmp/out"
  done
done

# the progress lines fit 80 columns, even with big numbers
expect_exit 0 env FAKE_EXECS=123456789012345 FAKE_COV=1234567890 \
  "$fz" fuzz --target metamorphic --time 1 --db "$db" --workdir "$tmp/w"
long=$(tr '\r' '\n' <"$tmp/err" | awk '/^fuzz_/ && length($0) > 80')
[ -z "$long" ] && ok || bad "lines over 80 columns: $long"
finish
