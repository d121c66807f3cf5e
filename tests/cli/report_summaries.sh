#!/usr/bin/env bash
# The report's rule coverage table: a rule summary over 200 bytes is cut at
# a word and ends with an ellipsis (never mid-word), whole in the cell's
# title; a shorter one is whole.  Without gnuplot: the tables only.
. "$(dirname "$0")/lib.sh"
expect_exit 0 "$FIACHECK" survey --cases 2 --quiet --db "$tmp/r.db"
expect_exit 0 env FIACHECK_GNUPLOT=$tmp/no-gnuplot "$FIACHECK" report --db "$tmp/r.db" --out "$tmp/r.html"
"$FIACHECK" rules --json >"$tmp/rules.json"
if python3 - "$tmp/rules.json" "$tmp/r.html" <<'PY'; then ok; else bad "a summary cut badly"; fi
import html, json, re, sys
rules = [json.loads(l) for l in open(sys.argv[1])]
page = open(sys.argv[2], encoding="utf-8").read()
cells = {m[0]: (m[1], m[2]) for m in re.findall(r'<tr id="rule-([^"]+)">.*?<td class="summary-text" title="([^"]*)">(.*?)</td>', page)}
long = 0
for r in rules:
    s = r["summary"]
    title, text = (html.unescape(x) for x in cells[r["id"]]) if r["id"] in cells else ("", "")
    assert title == s, (r["id"], title)
    if len(s.encode()) <= 200:
        assert text == s, (r["id"], text)
        continue
    long += 1
    assert text.endswith("\u2026"), (r["id"], text)
    head = text[:-1]
    assert s.startswith(head) and len(head.encode()) <= 200, (r["id"], head)
    assert s[len(head)] == " ", (r["id"], "cut mid-word", head[-20:], s[len(head):len(head) + 20])
assert long > 0, "no summary over 200 bytes: the cut is not tested"
PY
finish
