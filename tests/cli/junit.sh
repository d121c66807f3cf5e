#!/usr/bin/env bash
# run --junit FILE: a JUnit XML report CI systems read -- one test per case,
# findings and unmet intents as failures carrying the case text, bad input
# as an error, a case outside the model as skipped; the exit status as
# without it; a report that cannot be written is an error.
. "$(dirname "$0")/lib.sh"

pass_case=corpus/cases/prefix/prefix_decode_bsh_gqa.case
unmet=tests/intent/unmet_beyond_key_block.case
skip=corpus/cases/prefix/not_modeled_prefix_len_alone.case
printf 'query = fp16 [1\n' >"$tmp/broken.case"
# a case whose name and text need escaping in XML
cp "$unmet" "$tmp/a&b<c>.case"
printf '# "quoted" & <angled>\n' >>"$tmp/a&b<c>.case"

expect_exit 1 "$FIACHECK" run "$pass_case" "$unmet" "$skip" "$tmp/a&b<c>.case" --junit "$tmp/r.xml"
[ -f "$tmp/r.xml" ] && ok || bad "no report written"
expect_grep '<testsuite name="fiacheck run" tests="4" failures="2" errors="0" skipped="1"' "$tmp/r.xml"
expect_grep '<testcase classname="corpus/cases/prefix" name="prefix_decode_bsh_gqa.case" time="[0-9.]+"/>' "$tmp/r.xml"
expect_grep '<failure type="intent-unmet" message="beyond_key_block: ' "$tmp/r.xml"
expect_grep '^intent = beyond_key_block$' "$tmp/r.xml"       # the case text
expect_grep 'name="a&amp;b&lt;c&gt;.case"' "$tmp/r.xml"
expect_grep '^# &quot;quoted&quot; &amp; &lt;angled&gt;$' "$tmp/r.xml"
expect_grep '<skipped type="not-modeled"' "$tmp/r.xml"
if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/r.xml" 2>/dev/null; then ok; else
  command -v python3 >/dev/null && bad "the report is not XML" || ok; fi

# bad input: an error, exit 2 (it wins), the report still written
expect_exit 2 "$FIACHECK" run "$pass_case" "$tmp/broken.case" --junit "$tmp/b.xml"
expect_grep 'tests="2" failures="0" errors="1" skipped="0"' "$tmp/b.xml"
expect_grep '<error type="bad-input" message=".*broken.case' "$tmp/b.xml"

# all pass: exit 0, no failure element
expect_exit 0 "$FIACHECK" run "$pass_case" --junit "$tmp/p.xml"
expect_grep 'tests="1" failures="0" errors="0" skipped="0"' "$tmp/p.xml"
if grep -q '<failure' "$tmp/p.xml"; then bad "a failure in an all-pass report"; else ok; fi

# a report that cannot be written, or --junit twice / without a value
expect_exit 2 "$FIACHECK" run "$pass_case" --junit "$tmp/no/such/dir/r.xml"
expect_grep 'cannot write the JUnit report' "$tmp/err"
expect_exit 2 "$FIACHECK" run "$pass_case" --junit "$tmp/x.xml" --junit "$tmp/y.xml"
expect_exit 2 "$FIACHECK" run "$pass_case" --junit
finish
