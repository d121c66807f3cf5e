#!/usr/bin/env bash
# The corpus breaks and obeys every rule of the catalogue (issue: "cases that
# together hit every core rule in both polarities").
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$FIACHECK" rules --coverage corpus/cases/*/*.case
expect_grep "covered, 0 never broken/applied, 0 never obeyed" "$tmp/out"
# a row of profile cann only is counted in that profile (LAYOUT-014 beside
# LAYOUT-006: the released code's reading)
expect_exit 0 "$FIACHECK" rules --coverage --profile cann corpus/cases/*/*.case
if grep -E '^ *(LAYOUT-014|LIST-008|OUT-005|MLA-017|NM-018) .*never' "$tmp/out"; then
    bad "a cann-only row is never broken or obeyed in profile cann"
else
    ok
fi
expect_exit 2 "$FIACHECK" rules --coverage
expect_exit 0 "$FIACHECK" rules --json
n=$(wc -l <"$tmp/out")
if [ "$n" -ge 100 ]; then ok; else bad "only $n rules in the catalogue"; fi
finish
