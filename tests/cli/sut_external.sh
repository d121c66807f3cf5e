#!/usr/bin/env bash
# A kernel built outside the tree, tested end to end through --sut: the
# example plug-in compiled in a scratch directory with nothing but a C
# compiler and include/ (as a kernel engineer would build theirs), at two
# versions -- 1.0 right, 1.1 with a block-tail bug.  A campaign of each
# into one store; the finding is the plug-in's (its system recorded, its
# repro refused without it), minimizes to a case that fails on 1.1 and
# passes on 1.0, and `db regressions` reports it new at 1.1 (exit 1) but
# refuses to compare fast/'s revisions with the plug-in's.
. "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
root=$(pwd)
mkdir -p "$tmp/kernel"
cp plugins/example/example_sut.c "$tmp/kernel/attention.c"
(cd "$tmp/kernel" &&
 "$cc" -shared -fPIC -O2 -I "$root/include" -DEXAMPLE_VERSION='"1.0"' \
   -o libgood.so attention.c -lm &&
 "$cc" -shared -fPIC -O2 -I "$root/include" -DEXAMPLE_VERSION='"1.1"' \
   -DEXAMPLE_BUG -o libbad.so attention.c -lm) || { bad "cannot build"; finish; exit; }
good=$tmp/kernel/libgood.so
bug=$tmp/kernel/libbad.so
db=$tmp/s.db

# A campaign per version (a survey: the same cases at both).
expect_exit 0 "$FIACHECK" survey --sut "$good" --cases 400 --db "$db" --quiet
expect_grep "at 1.0: 400 judged, .* 0 findings" "$tmp/out"
expect_exit 1 "$FIACHECK" survey --sut "$bug" --cases 400 --db "$db" --quiet
expect_grep "at 1.1: 400 judged" "$tmp/out"
"$FIACHECK" db findings --db "$db" --json >"$tmp/f.json"
expect_grep '"sut":"example"' "$tmp/f.json"
expect_grep '"signature":"example:accuracy\|' "$tmp/f.json"
id=$(grep -o '"id":[0-9]*' "$tmp/f.json" | head -1 | cut -d: -f2)
[ -n "$id" ] && ok || bad "no finding id"

# The finding is the plug-in's: repro without it is refused, with it fails.
expect_exit 2 "$FIACHECK" repro "$id" --db "$db"
expect_grep "made with the system under test 'example'" "$tmp/err"
expect_exit 1 "$FIACHECK" repro "$id" --db "$db" --sut "$bug"
expect_grep "example 1.1 \(numbers only\)" "$tmp/out"

# Minimized to a regression test: fails on 1.1, passes on 1.0.
expect_exit 0 "$FIACHECK" minimize "$id" --db "$db" --sut "$bug" \
  --out "$tmp/min.case"
expect_grep "# fiacheck-sut: example 1.1" "$tmp/min.case"
expect_exit 1 "$FIACHECK" run "$tmp/min.case" --sut "$bug"
expect_exit 0 "$FIACHECK" run "$tmp/min.case" --sut "$good"
expect_grep "verdict +pass" "$tmp/out"

# Regressions between the plug-in's versions: the finding is new at 1.1.
expect_exit 1 "$FIACHECK" db regressions --db "$db" --base 1.0 --head 1.1
expect_grep "new .*example:accuracy" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --db "$db" --base 1.1 --head 1.0
# ... and never between fast/'s revisions and the plug-in's
expect_exit 0 "$FIACHECK" survey --cases 5 --db "$db" --revision fastrev --quiet
expect_exit 2 "$FIACHECK" db regressions --db "$db" --base fastrev --head 1.1
expect_grep "the base ran the system\(s\) under test fast, the head example" "$tmp/err"

# With the libFuzzer binaries beside fiacheck: a coverage-guided campaign.
if [ -x "$(dirname "$FIACHECK")/fuzz_numeric" ]; then
  expect_exit 1 "$FIACHECK" fuzz --sut "$bug" --target numeric --time 30 \
    --jobs 1 --db "$tmp/fz.db"
  "$FIACHECK" db findings --db "$tmp/fz.db" >"$tmp/fz.txt"
  expect_grep "example:accuracy" "$tmp/fz.txt"
else
  echo "SKIP: libFuzzer binaries not beside fiacheck: the fuzz campaign part"
fi
finish
