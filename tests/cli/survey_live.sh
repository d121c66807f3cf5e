#!/usr/bin/env bash
# survey: --only with a tag no case of the stream has is bad usage (exit 2,
# the words the cases have, nothing stored); the live progress line shows on
# a terminal, not in a file, and --quiet silences it.
. "$(dirname "$0")/lib.sh"
expect_exit 2 "$FIACHECK" survey --only nosuchword --cases 5 --db "$tmp/o.db"
expect_grep '^fiacheck survey: --only nosuchword: none of the first [0-9]+ cases .*feature words: .*gqa' "$tmp/err"
[ -e "$tmp/o.db" ] && bad "--only with no case stored a campaign" || ok
# a tag the stream has still runs (and only those cases)
expect_exit 0 "$FIACHECK" survey --only int8kv --cases 2 --db "$tmp/o.db" --quiet
expect_grep '^--only int8kv: 2 of [0-9]+ cases drawn' "$tmp/out"

# not a terminal: no live line (a short survey: none is due)
expect_exit 0 "$FIACHECK" survey --cases 3 --db "$tmp/p.db"
if grep -q 'survey: [0-9]* of 3 cases' "$tmp/err"; then bad "a live line in a file"; else ok; fi
# on a terminal (script(1)): the live line, and none with --quiet
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  script -qec "stty cols 100; '$FIACHECK' survey --cases 3 --db '$tmp/t.db'" /dev/null >"$tmp/tty" 2>&1
  expect_grep $'\rsurvey: 0 of 3 cases \\(0%\\), 0 findings, 0 s' "$tmp/tty"
  expect_grep 'survey of 3 cases' "$tmp/tty"
  script -qec "stty cols 100; '$FIACHECK' survey --cases 3 --quiet --db '$tmp/q.db'" /dev/null >"$tmp/tty" 2>&1
  if grep -q 'survey: [0-9]* of 3 cases' "$tmp/tty"; then bad "--quiet showed the live line"; else ok; fi
  expect_grep 'survey of 3 cases' "$tmp/tty"
else
  echo "script(1) cannot make a terminal here: the live line is not tested"
fi
finish
