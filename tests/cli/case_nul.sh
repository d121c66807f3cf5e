#!/usr/bin/env bash
# A NUL byte in a case file is bad input (exit 2, file:line of the byte),
# never the silent end of the file: the lines after it would be ignored and
# the case judged on what came before.
. "$(dirname "$0")/lib.sh"
C=corpus/cases/gqa/gqa_bnsd_causal.case
# the NUL on line 3 hides every line after it (here: a key that is not valid)
{ head -2 $C; printf 'scale\000 = 0.5\n'; tail -n +3 $C; printf 'no_such_key = 1\n'; } >"$tmp/nul.case"
expect_exit 2 "$FIACHECK" run "$tmp/nul.case"
expect_grep 'nul\.case:3: .*NUL' "$tmp/out"
expect_exit 2 "$FIACHECK" run --json "$tmp/nul.case"
expect_grep '"verdict":"bad-input"' "$tmp/out"
for cmd in repro minimize; do
  expect_exit 2 "$FIACHECK" $cmd "$tmp/nul.case"
  expect_grep 'nul\.case:3: .*NUL' "$tmp/err"
done
expect_exit 2 "$FIACHECK" ref "$tmp/nul.case" --out "$tmp/r"
expect_grep 'nul\.case:3: .*NUL' "$tmp/err"
# a NUL on the last line, with no newline after it
{ cat $C; printf '#\000'; } >"$tmp/tail.case"
n=$(($(wc -l <$C) + 1))
expect_exit 2 "$FIACHECK" run "$tmp/tail.case"
expect_grep "tail\\.case:$n: .*NUL" "$tmp/out"
# the same case without the NUL is fine
{ cat $C; printf '#\n'; } >"$tmp/fine.case"
expect_exit 0 "$FIACHECK" run "$tmp/fine.case"
finish
