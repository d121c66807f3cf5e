#!/usr/bin/env bash
# Invalid option values and repeated value options are errors (exit 2 with a
# message) in run, rules, ref, repro, minimize and bench; --json is honoured
# by every command that prints results; repro and minimize take --tolerance
# like run, and "nothing to minimize" is not a finding.
. "$(dirname "$0")/lib.sh"
C=corpus/cases/gqa/gqa_bnsd_causal.case

# expect_usage CMD...: exit 2 and a message on stderr.
expect_usage() {
  expect_exit 2 "$@"
  if [ -s "$tmp/err" ]; then ok; else bad "no message on stderr: $*"; fi
}

for cmd in run repro minimize; do
  expect_usage "$FIACHECK" $cmd $C --tolerance bogus
  expect_usage "$FIACHECK" $cmd $C --tolerance allclose x 0
  expect_usage "$FIACHECK" $cmd $C --profile bogus
  expect_usage "$FIACHECK" $cmd $C --profile doc --profile cann
  expect_usage "$FIACHECK" $cmd $C --tolerance vendor --tolerance bound
  expect_usage "$FIACHECK" $cmd $C --bogus-option
done
expect_usage "$FIACHECK" run $C --max-work abc
expect_usage "$FIACHECK" run $C --max-work 1e9 --max-work 1e10
expect_usage "$FIACHECK" run $C --precision -3
expect_usage "$FIACHECK" run $C --precision 128 --precision 256
expect_usage "$FIACHECK" ref $C --out "$tmp/r" --precision -3
expect_usage "$FIACHECK" ref $C --out "$tmp/r" --out "$tmp/r2"
expect_usage "$FIACHECK" ref $C
expect_usage "$FIACHECK" ref $C $C --out "$tmp/r"
expect_usage "$FIACHECK" repro $C $C
expect_usage "$FIACHECK" repro $C --target bogus
expect_usage "$FIACHECK" repro $C --db a.db --db b.db
expect_usage "$FIACHECK" minimize $C --target bogus
expect_usage "$FIACHECK" minimize $C --max-attempts 5x
expect_usage "$FIACHECK" minimize $C --max-attempts 0
expect_usage "$FIACHECK" minimize $C --out a --out b
expect_usage "$FIACHECK" rules --profile bogus
expect_usage "$FIACHECK" rules --coverage $C --profile doc --profile cann
expect_usage "$FIACHECK" rules --coverage --db a.db --db b.db
expect_usage "$FIACHECK" bench --bogus
expect_usage "$FIACHECK" bench
# fuzz and db: a value option given twice is an error, as everywhere
for o in "--time 1" "--jobs 1" "--db $tmp/f.db" "--workdir $tmp/w" \
         "--profile doc" "--revision r1" "--seed 5" "--target numeric"; do
  expect_usage "$FIACHECK" fuzz $o $o
  expect_grep 'given twice' "$tmp/err"
done
for o in "--db $tmp/d.db" "--state open" "--kind crash" "--target numeric" \
         "--revision abcd" "--base abcd" "--head abcd" "--bucket b" \
         "--alpha 0.01" "--min-cases 5" "--min-effect 0.6"; do
  expect_usage "$FIACHECK" db findings $o $o
  expect_grep 'given twice' "$tmp/err"
done
[ -e "$tmp/d.db" ] && bad "db with a repeated option created its store" || ok

# --json everywhere results are printed: each line parses.
json_ok() {
  if python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/out"; then ok; else bad "not JSON lines: $*"; fi
}
expect_exit 0 "$FIACHECK" rules --coverage --json $C
json_ok rules --coverage --json
expect_grep '"broken":' "$tmp/out"
expect_exit 0 "$FIACHECK" rules --json
json_ok rules --json
expect_exit 0 "$FIACHECK" repro $C --json
json_ok repro --json
expect_grep '"verdict":"pass"' "$tmp/out"

# --tolerance in repro and minimize: zero tolerance makes this case fail.
expect_exit 1 "$FIACHECK" run $C --tolerance allclose 0 0
expect_exit 1 "$FIACHECK" repro $C --tolerance allclose 0 0
expect_grep 'verdict +accuracy' "$tmp/out"
expect_exit 1 "$FIACHECK" repro $C --tolerance allclose 0 0 --json
json_ok repro --tolerance --json
expect_grep '"verdict":"accuracy"' "$tmp/out"
expect_exit 0 "$FIACHECK" repro $C
expect_exit 0 "$FIACHECK" minimize $C --tolerance allclose 0 0 --max-attempts 30 --out "$tmp/min.case"
expect_grep 'written to' "$tmp/out"
expect_grep 'fiacheck-tolerance: allclose 0 0' "$tmp/min.case"
# the minimized case records its tolerance: repro uses it by itself
expect_exit 1 "$FIACHECK" repro "$tmp/min.case"
expect_exit 0 "$FIACHECK" minimize $C --tolerance allclose 0 0 --max-attempts 30 --out "$tmp/min2.case" --json
json_ok minimize --json
# passes: nothing to minimize, and that is not a finding
expect_exit 0 "$FIACHECK" minimize $C --out "$tmp/none.case"
expect_grep 'nothing to minimize' "$tmp/out"
[ ! -e "$tmp/none.case" ] && ok || bad "minimize wrote a passing case"
finish
