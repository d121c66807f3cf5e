#!/usr/bin/env bash
# The systems under test side by side: `fiacheck report`'s section
# "Systems side by side" and its text form `fiacheck db systems`.  A store
# of one system (fast/) says so in one line; then the same survey run with
# the example plug-in (plugins/example, which covers only plain calls), a
# `bench --sut` run of it, and findings of both systems added with sqlite3:
# the page and `db systems` show both systems, their cases and ratio
# quantiles as `db systems --json` gives them (the plug-in on fewer calls
# than fast/, and both on the calls they share), the findings by kind
# linked to the Findings table, and the speed against fast/ as `db bench`.
. "$(dirname "$0")/lib.sh"
bin=$(dirname "$FIACHECK")
so=$bin/plugins/libfiacheck_sut_example.so
if [ ! -f "$so" ]; then
  bad "$so not built (the build makes it)"
  finish
  exit 1
fi
title='<h2 id="systems">Systems side by side: error / bound against the correctly rounded reference</h2>'
db=$tmp/s.db

# --- an empty store, then one system: the section says so in a line
expect_exit 0 "$FIACHECK" db init --db "$db"
expect_exit 0 "$FIACHECK" report --db "$db" --out "$tmp/none.html"
expect_grep "$title" "$tmp/none.html"
expect_grep 'id="systems-none"' "$tmp/none.html"
expect_exit 0 "$FIACHECK" db systems --db "$db"
expect_grep '^no systems under test in the store' "$tmp/out"
expect_exit 0 "$FIACHECK" survey --cases 40 --db "$db"
expect_exit 0 "$FIACHECK" report --db "$db" --out "$tmp/one.html"
expect_grep "$title" "$tmp/one.html"
expect_grep '<p class="dim" id="systems-one">One system under test in the store \(<code>fast</code>\): nothing to set beside it' "$tmp/one.html"
if grep -q '<table class="systems' "$tmp/one.html"; then
  bad "a side-by-side table with one system"
else ok; fi
expect_grep '<a href="#systems">Systems</a>' "$tmp/one.html"
expect_exit 0 "$FIACHECK" db systems --db "$db"
expect_grep '^1 system under test' "$tmp/out"
expect_grep '^fast +[0-9a-f]{12} +1 +[1-9][0-9]* ' "$tmp/out"
expect_grep '^\(one system: nothing to compare side by side' "$tmp/out"

# --- a second system: the same stream of cases through the plug-in, its
# speed against fast/, and findings of both systems
expect_exit 0 "$FIACHECK" survey --cases 40 --sut "$so" --db "$db"
expect_exit 0 "$FIACHECK" bench --sut "$so" --db "$db" --reps 1
if command -v sqlite3 >/dev/null; then
  sqlite3 "$db" <<'SQL'
INSERT INTO findings(id, signature, kind, target, profile, revision,
  campaign_id, case_text, first_seen, last_seen, count, last_revision,
  state_changed, sut)
VALUES (21, 'example:accuracy|prefill|<kv>', 'accuracy', 'survey', 'doc',
  '1.0', 2, 'num_heads = 1
', 1795000000, 1795000000, 1, '1.0', 1795000000, 'example'),
  (22, 'example:nan-leak|decode', 'nan-leak', 'survey', 'doc', '1.0', 2,
  'num_heads = 2
', 1795000100, 1795000100, 2, '1.0', 1795000100, 'example'),
  (23, 'status-mismatch|MASK-003', 'status-mismatch', 'fuzz_params', 'doc',
  'R', 1, 'num_heads = 4
', 1795000200, 1795000200, 1, 'R', 1795000200, 'fast');
SQL
  [ $? -eq 0 ] && ok || bad "could not add findings with sqlite3"
else
  bad "sqlite3 missing (scripts/deps.sh installs it)"
fi
expect_exit 0 "$FIACHECK" report --db "$db" --out "$tmp/two.html"
page=$tmp/two.html
expect_grep "$title" "$page"
expect_grep 'compare each system on the calls it covers' "$page"
if grep -q 'id="systems-one"' "$page"; then bad "two systems said to be one"; else ok; fi
# the section sits between Campaigns and Accuracy
order=$(grep -o 'id="campaigns"\|id="systems"\|id="accuracy"' "$page" | tr '\n' ' ')
[ "$order" = 'id="campaigns" id="systems" id="accuracy" ' ] && ok || bad "section order: $order"

expect_exit 0 "$FIACHECK" db systems --db "$db" --json
cp "$tmp/out" "$tmp/sys.json"
[ "$(grep -c '"type":"system"' "$tmp/sys.json")" -eq 2 ] && ok || bad "db systems --json: not 2 systems"
# fast first (the baseline), then the plug-ins by name
grep '"type":"system"' "$tmp/sys.json" | grep -o '"sut":"[^"]*"' | tr '\n' ' ' |
  grep -qx '"sut":"fast" "sut":"example" ' && ok || bad "systems not fast, example"
field() { echo "$1" | grep -o "\"$2\":[0-9.e+-]*" | head -1 | cut -d: -f2; }
g3() { printf '%.3g' "$1"; }
declare -A cases
for sut in fast example; do
  line=$(grep '"type":"system"' "$tmp/sys.json" | grep "\"sut\":\"$sut\"")
  c=$(field "$line" cases)
  cases[$sut]=$c
  [ -n "$c" ] && [ "$c" -gt 0 ] && ok || bad "$sut: no cases in db systems --json"
  cells="<td class=\"n cases\">$c</td>"
  for k in p50 p90 p99 max; do
    cells="$cells<td class=\"n $k[^\"]*\">$(g3 "$(field "$line" $k)")</td>"
  done
  row=$(grep "<tr id=\"system-$sut\">" "$page")
  [ -n "$row" ] && ok || bad "no row system-$sut"
  echo "$row" | grep -q "<td class=\"sut\">$sut</td>" && echo "$row" | grep -Eq "$cells" &&
    ok || bad "$sut: $cells not in: $row"
done
# the plug-in covers only plain calls: fewer cases than fast/ on one stream
[ "${cases[example]}" -lt "${cases[fast]}" ] && ok ||
  bad "example ${cases[example]} cases, fast ${cases[fast]}: wanted fewer"
# the all-cases row holds both systems' counts, in their order
expect_grep "<tr class=\"all\"><td class=\"bucket sig\">\\* \\(all\\)</td><td class=\"n cases\">${cases[fast]}</td>.*<td class=\"n cases\">${cases[example]}</td>" "$page"
# the common calls: the same cases for both, as many as the plug-in computed
# (it covers a subset of fast/'s calls)
cf=$(field "$(grep '"bucket":"(common)","sut":"fast"' "$tmp/sys.json")" cases)
ce=$(field "$(grep '"bucket":"(common)","sut":"example"' "$tmp/sys.json")" cases)
[ -n "$cf" ] && [ "$cf" = "$ce" ] && [ "$ce" = "${cases[example]}" ] && ok ||
  bad "common cases fast $cf, example $ce (example has ${cases[example]})"
expect_grep "<tr class=\"common\"><td class=\"bucket sig\">\\* \\(common calls\\)</td><td class=\"n cases\">$cf</td>" "$page"
# a bucket only fast/ has: the plug-in's cells are -
expect_grep '<td class="n cases">[0-9]+</td>(<td class="n [a-z0-9]+[^"]*">[^<]*</td>){4}<td class="n cases dim">-</td>' "$page"
# buckets: each of db systems --json's in the table (up to 40 listed)
nb=$(grep '"type":"system_bucket"' "$tmp/sys.json" | grep -v '"bucket":"\*"\|"bucket":"(common)"' |
     grep -o '"bucket":"[^"]*"' | sort -u | wc -l)
nrow=$(sed -n '/<table class="systems-buckets">/,/<\/table>/p' "$page" | grep -c '^<tr><td class="bucket sig">')
[ "$nb" -gt 0 ] && [ "$nrow" -eq "$((nb > 40 ? 40 : nb))" ] && ok || bad "$nrow bucket rows for $nb buckets"

# findings: counted by kind, each linked to its row of the Findings table
expect_grep '<tr id="system-example">.*<a href="#system-findings-example">1 accuracy, 1 nan-leak</a>' "$page"
expect_grep '<tr id="system-fast">.*<a href="#system-findings-fast">1 status-mismatch</a>' "$page"
expect_grep '<h3 id="system-findings-example">example: 2 findings \(1 accuracy, 1 nan-leak\)</h3>' "$page"
expect_grep '<a href="#finding-21">21</a>.*<td class="sig">example:accuracy\|prefill\|&lt;kv&gt;</td>' "$page"
expect_grep '<a href="#finding-22">22</a>' "$page"
for id in 21 22 23; do expect_grep "<tr id=\"finding-$id\">" "$page"; done
grep -q '"sut":"example".*"kinds":{"accuracy":1,"nan-leak":1},"finding_ids":\[21,22\]' "$tmp/sys.json" &&
  ok || bad "db systems --json: example's findings"

# speed: the bench --sut figure "CALL vs fast" (one run: its value)
"$FIACHECK" db bench --db "$db" --json >"$tmp/bench.json"
for call in prefill decode; do
  v=$(grep '"suite":"sut-example"' "$tmp/bench.json" | grep "\"name\":\"$call vs fast\"" |
      grep -o '"value":[0-9.e+-]*' | cut -d: -f2)
  [ -n "$v" ] && ok || bad "no figure '$call vs fast' in db bench"
  expect_grep "<tr id=\"system-example\">.*$call <b class=\"ratio\">$(g3 "$v")</b>&#215;" "$page"
done
expect_grep '<tr id="system-fast">.*<td class="speed">1 \(the baseline\)</td>' "$page"

# --- the text form: the same numbers
expect_exit 0 "$FIACHECK" db systems --db "$db"
expect_grep '^2 systems under test, each at its latest revision with accuracy samples and on the calls it covers' "$tmp/out"
expect_grep "^fast +[0-9a-f]{12} +1 +${cases[fast]} " "$tmp/out"
expect_grep "^example +1\\.0 +1 +${cases[example]} .* 1 accuracy, 1 nan-leak +decode [0-9.e-]+x; prefill [0-9.e-]+x$" "$tmp/out"
expect_grep "^\\* \\(all\\) +fast +${cases[fast]} " "$tmp/out"
expect_grep "^ +example +${cases[example]} " "$tmp/out"
expect_grep "^\\* \\(common calls\\) +fast +$cf " "$tmp/out"
expect_grep '^findings of example \(2; fiacheck db show ID\):$' "$tmp/out"
expect_grep '^ +21 open +accuracy +example:accuracy\|prefill\|<kv>$' "$tmp/out"
if grep -q 'one system' "$tmp/out"; then bad "two systems said to be one"; else ok; fi
expect_exit 0 "$FIACHECK" db --help
expect_grep '^  db systems ' "$tmp/out"
expect_exit 2 "$FIACHECK" db systems extra --db "$db"
expect_exit 2 "$FIACHECK" db systems --db "$tmp/missing.db"
finish
