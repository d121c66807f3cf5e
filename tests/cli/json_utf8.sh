#!/usr/bin/env bash
# JSON output is valid UTF-8 with control characters escaped, whatever bytes
# the case's name and the messages echoing its text hold; so is the store's
# export (a revision, a stored case text), and `run --junit` writes XML that
# parses, whatever bytes the case's name and text hold.
. "$(dirname "$0")/lib.sh"
name=$(printf 'bad\377\300name\001\033[31m\tx.case')
# a malformed case whose offending token (echoed in the message) holds an
# invalid UTF-8 byte, a lone continuation byte and control bytes
printf '# comment \377\n\376key\200\002\033 = 1\n' >"$tmp/$name"
cp corpus/cases/gqa/gqa_bnsd_causal.case "$tmp/ok.case"
printf '# caf\303\251 \355\240\200 surrogate \364\220\200\200\n' >>"$tmp/ok.case"
expect_exit 2 "$FIACHECK" run --json "$tmp/$name" "$tmp/ok.case"
if python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin.buffer.read().decode("utf-8").splitlines()]' <"$tmp/out"; then ok; else
  bad "run --json output is not UTF-8 JSON lines"; sed 's/^/    /' "$tmp/out" | cat -v >&2; fi
n=$(wc -l <"$tmp/out")
[ "$n" -eq 2 ] && ok || bad "wanted 2 lines, got $n"
expect_grep '\\ufffd' "$tmp/out"
expect_grep '\\u001b' "$tmp/out"
expect_exit 2 "$FIACHECK" repro --json "$tmp/$name"
# db export --json: a revision and a stored case text that are not UTF-8
json_lines() {
  python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin.buffer.read().decode("utf-8").splitlines()]' <"$1"
}
expect_exit 0 "$FIACHECK" survey --cases 3 --db "$tmp/s.db" --revision "$(printf 'rev\377\033x')"
python3 - "$tmp/s.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE accuracy_worst SET case_text = CAST(x'23ff1b5b324a0ac0af0a' AS TEXT) || case_text")
db.commit()
PY
expect_exit 0 "$FIACHECK" db export --json --db "$tmp/s.db"
if json_lines "$tmp/out"; then ok; else bad "db export --json is not UTF-8 JSON lines"; fi
expect_grep '"revision":"rev\\ufffd\\u001bx"' "$tmp/out"
expect_grep '"case_text":"#\\ufffd\\u001b\[2J\\n\\ufffd\\ufffd\\n' "$tmp/out"

# run --junit: the failing case's name and text (the failure's body) and a
# bad input's name hold invalid UTF-8, controls and U+FFFE
jname=$(printf 'j\377\033[2J\001.case')
{ printf '# \377\033]0;t\007 \357\277\276 & <x>\n'; cat corpus/cases/gqa/gqa_bnsd_causal.case; } >"$tmp/$jname"
expect_exit 1 "$FIACHECK" run --junit "$tmp/j.xml" --tolerance allclose 0 0 "$tmp/$jname"
expect_exit 2 "$FIACHECK" run --junit "$tmp/j2.xml" "$tmp/$jname" "$tmp/$name"
for x in j j2; do
  if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/$x.xml"; then ok; else
    bad "run --junit wrote XML that does not parse ($x.xml)"; cat -v "$tmp/$x.xml" | head -5 >&2; fi
done
expect_grep 'name="j.{1,3}\\x1b\[2J\\x01\.case"' "$tmp/j.xml"
python3 - "$tmp/j.xml" <<'PY' && ok || bad "the failure's body lost the case text"
import sys, xml.etree.ElementTree as E
f = E.parse(sys.argv[1]).getroot().find("testsuite/testcase/failure")
assert f is not None and "\\x1b]0;t\\x07" in f.text and "& <x>" in f.text, f
assert "\ufffd" in f.text
PY
finish
