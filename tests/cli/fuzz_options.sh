#!/usr/bin/env bash
# `fiacheck fuzz` refuses invalid option values (exit 2, before any store or
# campaign is made), has -h/--help, and its live progress line fits the
# terminal's width on a terminal and is never cut in a file.
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

# the progress line: in a file each update is a whole line, never cut
expect_exit 0 env FAKE_EXECS=123456789012345 FAKE_COV=1234567890 \
  "$fz" fuzz --target metamorphic --time 1 --db "$db" --workdir "$tmp/w"
expect_grep '^fuzz_metamorphic .* distinct crashes 0 0s left$' "$tmp/err"
if grep -q $'\r' "$tmp/err"; then bad "a carriage return in a file's progress"; else ok; fi
# on a terminal (script(1) gives one) it is cut to the terminal's width,
# whatever that is: one column short of 60, whole in 200
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  for cols in 60 200; do
    rm -rf "$tmp/w" "$db"
    FAKE_EXECS=123456789012345 FAKE_COV=1234567890 script -qec \
      "stty cols $cols rows 40; '$fz' fuzz --target metamorphic --time 1 --db '$db' --workdir '$tmp/w'" \
      /dev/null >"$tmp/tty" 2>&1
    tr '\r' '\n' <"$tmp/tty" | grep '^fuzz_metamorphic .* execs ' >"$tmp/lines"
    [ -s "$tmp/lines" ] && ok || bad "no progress line on a $cols-column terminal"
    long=$(awk -v c=$cols 'length($0) != c - 1' "$tmp/lines")
    [ -z "$long" ] && ok || bad "not $cols - 1 columns wide: $long"
    if [ $cols = 200 ]; then expect_grep ' 0s left +$' "$tmp/lines"; fi
  done
else
  echo "script(1) cannot make a terminal here: the terminal width is not tested"
fi
finish
