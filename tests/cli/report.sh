#!/usr/bin/env bash
# fiacheck report: a store made for real (survey and bench at two
# revisions, plus findings whose texts need escaping and a second benchmark
# run per revision, added with sqlite3) written as one HTML
# page, rendered by headless Chromium: the plots are SVG elements in the
# DOM, the page logs nothing to the console and loads nothing, and its
# tables hold the numbers `fiacheck db ... --json` gives.  Then the page
# without gnuplot, an empty store, and bad input (exit 2, nothing written).
# Chromium and gnuplot come from scripts/deps.sh (chromium, gnuplot-nox):
# a missing Chromium fails the test, it never passes unseen.
. "$(dirname "$0")/lib.sh"

db=$tmp/r.db
for rev in R1 R2; do
  expect_exit 0 "$FIACHECK" survey --cases 40 --revision $rev --db "$db"
done
# a benchmark run per revision (over 20 s each under ASan), and a second
# run of each copied with other values: the page shows medians of runs
for rev in R1 R2; do
  expect_exit 0 "$FIACHECK" bench --kernels --quick --db "$db" --revision $rev
done
# findings as a campaign stores them; their texts hold what HTML must escape
if command -v sqlite3 >/dev/null; then
  sqlite3 "$db" <<'SQL'
INSERT INTO bench_figures SELECT 'copy-' || run_uuid, revision, machine, suite,
  started + 1, command, name, value * 1.25, unit, ratio * 1.25, ratio_of
  FROM bench_figures;
INSERT INTO findings(id, signature, kind, target, profile, revision,
  campaign_id, case_text, message, first_seen, last_seen, count,
  last_revision, state_changed)
VALUES (7, 'status-mismatch|<MASK-003>&"q"|''x''>0', 'status-mismatch',
  'fuzz_params', 'doc', 'R1', 1, 'num_heads = 8
# </pre><script>console.error("escaped?")</script> & "quoted" ''x''
', 'fast said <0>', 1795000000, 1795000100, 3, 'R2', 1795000000);
INSERT INTO findings(id, signature, kind, target, profile, revision,
  campaign_id, case_text, minimized_text, first_seen, last_seen, count,
  last_revision, state_changed, state)
VALUES (9, 'accuracy|prefill|kv64', 'accuracy', 'fuzz_numeric', 'doc', 'R2',
  2, 'num_heads = 2
seed = 1
', 'num_heads = 1
# minimized <here>
', 1795000200, 1795000300, 1, 'R2', 1795000200, 'regressed');
INSERT INTO sightings VALUES (7, 1, 'R1', 2, 1795000000, 1795000050),
  (7, 2, 'R2', 1, 1795000100, 1795000100), (9, 2, 'R2', 1, 1795000200, 1795000300);
SQL
  [ $? -eq 0 ] && ok || bad "could not add findings with sqlite3"
else
  bad "sqlite3 missing (scripts/deps.sh installs it)"
fi

expect_exit 0 "$FIACHECK" report --db "$db" --out "$tmp/report.html"
page=$tmp/report.html
expect_grep '^fiacheck report: wrote .*report.html \([0-9]+ plots\)' "$tmp/out"

# --- self-contained: no script, nothing loaded from anywhere
if grep -Eiq '<script|<link|<img|<iframe|src=|href="[^#]|href='"'"'[^#]|url\((["'"'"']?)[^#"'"'"']' "$page"; then
  bad "the page loads something or runs a script:"
  grep -Eio '.{0,40}(<script|<link|<img|<iframe|src=|href="[^#]|url\().{0,40}' "$page" | head -5 >&2
else ok; fi
# escaped in the file: the texts never become markup
expect_grep 'status-mismatch\|&lt;MASK-003&gt;&amp;&quot;q&quot;\|&#39;x&#39;&gt;0' "$page"
expect_grep '# &lt;/pre&gt;&lt;script&gt;console.error\(&quot;escaped\?&quot;\)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;x&#39;' "$page"

# --- gnuplot: present (scripts/deps.sh), else the plot checks are skipped
plots=1
if ! command -v "${FIACHECK_GNUPLOT:-gnuplot}" >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    bad "gnuplot missing: bash scripts/deps.sh installs gnuplot-nox"
  else
    echo "SKIP: gnuplot missing (not root: cannot install gnuplot-nox); plot checks skipped" >&2
  fi
  plots=0
fi

# --- render it in headless Chromium
chrome=
for c in chromium chromium-browser google-chrome; do
  command -v $c >/dev/null && { chrome=$c; break; }
done
if [ -z "$chrome" ]; then
  bad "headless Chromium missing: bash scripts/deps.sh installs the package chromium"
  finish
  exit 1
fi
# its own profile: parallel tests, and nothing written to $HOME
timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$tmp/chrome" --enable-logging=stderr --v=0 \
  --dump-dom "file://$page" >"$tmp/dom" 2>"$tmp/chrome.log"
rc=$?
[ $rc -eq 0 ] && ok || { bad "chromium exit $rc"; tail -5 "$tmp/chrome.log" >&2; }
expect_grep '</html>' "$tmp/dom"
# console messages (the page has no script: any is an error, a refused
# load, a bad CSP) are logged as INFO:CONSOLE lines
if grep -q 'CONSOLE' "$tmp/chrome.log"; then
  bad "console messages:"; grep 'CONSOLE' "$tmp/chrome.log" | head -5 >&2
else ok; fi
# the escaped case text is text in the DOM, not a script element
if grep -qi '<script' "$tmp/dom"; then bad "a <script> element in the DOM"; else ok; fi
expect_grep '# &lt;/pre&gt;&lt;script&gt;console.error\("escaped\?"\)&lt;/script&gt; &amp; "quoted" '"'x'" "$tmp/dom"

# --- the plots: each figure an SVG drawn with the revisions on its axis
nfig=$(grep -o '<figure class="plot"' "$tmp/dom" | wc -l)
nsvg=$(grep -o '<svg' "$tmp/dom" | wc -l)
if [ $plots -eq 1 ]; then
  [ "$nfig" -ge 3 ] && [ "$nsvg" -eq "$nfig" ] && ok ||
    bad "$nfig plot figures, $nsvg SVG elements (wanted >= 3, one each)"
  expect_grep 'fiacheck report: wrote .* \('"$nfig"' plots\)' "$tmp/out"
  for id in plot-acc-0 plot-acc-1 plot-bench-0; do
    expect_grep "<figure class=\"plot\" id=\"$id\"" "$tmp/dom"
  done
  nr2=$(grep -o '>R2</' "$tmp/dom" | wc -l)   # a tick label per plot
  [ "$nr2" -ge "$nfig" ] && ok || bad "R2 labels $nr2 on $nfig plots"
  npath=$(grep -o '<path' "$tmp/dom" | wc -l)
  [ "$npath" -ge $((nfig * 10)) ] && ok || bad "only $npath paths drawn in $nfig plots"
  # ids unique although every gnuplot SVG names its markers alike
  dups=$(grep -o " id=['\"][^'\"]*['\"]" "$tmp/dom" | sort | uniq -d | head -3)
  [ -z "$dups" ] && ok || bad "duplicate ids: $dups"
  if grep -q 'id="plot-note"' "$tmp/dom"; then bad "a plot note with gnuplot there"; else ok; fi
fi

# --- the tables hold the store's numbers
"$FIACHECK" db campaigns --db "$db" --json >"$tmp/campaigns.json"
n=0
while read -r line; do
  id=$(echo "$line" | grep -o '"id":[0-9]*' | cut -d: -f2)
  execs=$(echo "$line" | grep -o '"execs":[0-9]*' | cut -d: -f2)
  found=$(echo "$line" | grep -o '"findings":[0-9]*' | cut -d: -f2)
  row=$(grep "<tr id=\"campaign-$id\">" "$tmp/dom")
  echo "$row" | grep -q "<td class=\"n execs\">$execs</td>" &&
    echo "$row" | grep -q "<td class=\"n findings\">$found</td>" && ok ||
    bad "campaign $id: execs $execs, findings $found not in: $row"
  n=$((n + 1))
done <"$tmp/campaigns.json"
[ $n -eq 2 ] && ok || bad "$n campaigns listed by db campaigns"
"$FIACHECK" db findings --db "$db" --json >"$tmp/findings.json"
[ "$(wc -l <"$tmp/findings.json")" -eq 2 ] && ok || bad "db findings: not 2"
while read -r line; do
  id=$(echo "$line" | grep -o '"id":[0-9]*' | cut -d: -f2)
  count=$(echo "$line" | grep -o '"count":[0-9]*' | cut -d: -f2)
  kind=$(echo "$line" | grep -o '"kind":"[a-z-]*"' | cut -d'"' -f4)
  row=$(grep "<tr id=\"finding-$id\">" "$tmp/dom")
  echo "$row" | grep -q "<td class=\"n count\">$count</td>" &&
    echo "$row" | grep -q ">$kind</span>" &&
    echo "$row" | grep -q "<a href=\"#case-$id\">" && ok ||
    bad "finding $id: count $count, kind $kind, link not in: $row"
  expect_grep "<div class=\"case\" id=\"case-$id\">" "$tmp/dom"
done <"$tmp/findings.json"
# the minimized text is the one shown for finding 9, in a <pre>
expect_grep '<a href="#case-9">minimized</a>' "$tmp/dom"
sed -n '/id="case-9"/,/<\/pre>/p' "$tmp/dom" >"$tmp/case9"
expect_grep '^# minimized &lt;here&gt;$' "$tmp/case9"
expect_grep '<td class="state bad">regressed</td>' "$tmp/dom"
expect_grep '<td class="target">[^<]*</td><td class="sut">fast</td>' "$tmp/dom"  # the system that found it
expect_grep 'status-mismatch\|&lt;MASK-003&gt;&amp;"q"\|'"'x'"'&gt;0' "$tmp/dom"
expect_grep '<div id="sum-findings"><b>2</b>findings: 1 open, 0 fixed' "$tmp/dom"
# rule coverage: every rule of the catalogue, counts as rules --coverage
"$FIACHECK" rules --coverage --db "$db" --json >"$tmp/cov.json"
nrules=$(grep -o '"rules":[0-9]*' "$tmp/cov.json" | cut -d: -f2)
nrows=$(grep -c '<tr id="rule-' "$tmp/dom")
[ -n "$nrules" ] && [ "$nrows" -eq "$nrules" ] && ok || bad "$nrows rule rows, $nrules rules"
checked=0
while read -r line; do
  rule=$(echo "$line" | grep -o '"rule":"[^"]*"' | cut -d'"' -f4)
  broken=$(echo "$line" | grep -o '"broken":[0-9]*' | cut -d: -f2)
  obeyed=$(echo "$line" | grep -o '"obeyed":[0-9]*' | cut -d: -f2)
  row=$(grep "<tr id=\"rule-$rule\">" "$tmp/dom")
  echo "$row" | grep -q "<td class=\"n broken\">$broken</td>" &&
    { [ -z "$obeyed" ] || echo "$row" | grep -q "<td class=\"n obeyed\">$obeyed</td>"; } &&
    ok || bad "rule $rule: broken $broken obeyed $obeyed not in: $row"
  checked=$((checked + 1))
done < <(grep -E '"broken":[1-9]|"obeyed":[1-9]' "$tmp/cov.json" | head -8)
[ $checked -ge 3 ] && ok || bad "only $checked rules with counts in the store"
# never hit first: the first rule row is never hit when any rule is
if grep -q '"broken":0,"obeyed":0' "$tmp/cov.json"; then
  grep -m1 '<tr id="rule-' "$tmp/dom" | grep -q 'never hit' && ok ||
    bad "the first rule row is not a never-hit one"
fi
# accuracy: each revision's cases are those of db stats
"$FIACHECK" db stats --db "$db" --json >"$tmp/stats.json"
for rev in R1 R2; do
  cases=$(grep "\"type\":\"accuracy\",\"revision\":\"$rev\"" "$tmp/stats.json" |
          grep -o '"cases":[0-9]*' | cut -d: -f2 | awk '{s += $1} END {print s + 0}')
  [ "$cases" -gt 0 ] && ok || bad "no accuracy cases at $rev"
  expect_grep "<td class=\"bucket sig\">\\* \\(all\\)</td><td class=\"revision\">$rev</td><td class=\"n cases\">$cases</td>" "$tmp/dom"
done
# ... and their quantiles those db regressions computes for the facet "*"
"$FIACHECK" db regressions --db "$db" --base R1 --head R2 --json >"$tmp/reg.json"
for side in base head; do
  q=$(grep '"bucket":"\*"' "$tmp/reg.json" | grep -o "\"$side\":{[^}]*}")
  rev=$(echo "$q" | grep -o '"revision":"[^"]*"' | cut -d'"' -f4)
  cells=$(for k in cases p50 p90 p99; do
            v=$(echo "$q" | grep -o "\"$k\":[0-9.e+-]*" | cut -d: -f2)
            [ $k = cases ] && printf '<td class="n %s">%s</td>' $k "$v" ||
              printf '<td class="n %s">%.3g</td>' $k "$v"
          done)
  [ -n "$rev" ] && grep -qF "<td class=\"revision\">$rev</td>$cells" "$tmp/dom" && ok ||
    bad "the ratios of $side ($rev) are not $cells"
done
# benchmarks: the median of a figure's two runs per revision
"$FIACHECK" db bench --db "$db" --json >"$tmp/bench.json"
for rev in R1 R2; do
  want=$(grep "\"revision\":\"$rev\"" "$tmp/bench.json" | grep '"name":"scalar/qk_t"' |
         grep -o '"value":[0-9.e+-]*' | cut -d: -f2 |
         awk '{v[NR] = $1} END {if (NR == 2) printf "%.4g", (v[1] + v[2]) / 2}')
  [ -n "$want" ] && ok || bad "scalar/qk_t: not two runs at $rev"
  expect_grep "<td class=\"name\">scalar/qk_t</td><td class=\"revision\">$rev</td><td class=\"n runs\">2</td><td class=\"n median\">$want</td>" "$tmp/dom"
done

# --- without gnuplot: the tables, a note in the page and on stderr, exit 0
FIACHECK_GNUPLOT=$tmp/no-gnuplot expect_exit 0 "$FIACHECK" report --db "$db" --out "$tmp/plain.html"
expect_grep 'plots need gnuplot' "$tmp/err"
expect_grep 'id="plot-note"' "$tmp/plain.html"
expect_grep 'gnuplot-nox' "$tmp/plain.html"
if grep -q '<svg' "$tmp/plain.html"; then bad "an SVG without gnuplot"; else ok; fi
expect_grep '<tr id="campaign-2">' "$tmp/plain.html"

# --- an empty store: a page that says so
expect_exit 0 "$FIACHECK" db init --db "$tmp/empty.db"
expect_exit 0 "$FIACHECK" report --db "$tmp/empty.db" --out "$tmp/empty.html"
expect_grep 'No findings' "$tmp/empty.html"
expect_grep 'No accuracy samples' "$tmp/empty.html"
expect_grep 'No benchmark figures' "$tmp/empty.html"

# --- help and bad input: exit 2, a message, nothing written or replaced
expect_exit 0 "$FIACHECK" help report
expect_grep '^usage: fiacheck report \[--db PATH\] \[--out FILE\]' "$tmp/out"
expect_exit 0 "$FIACHECK" report --help
echo keep >"$tmp/keep.html"
expect_exit 2 "$FIACHECK" report --db "$tmp/none.db" --out "$tmp/keep.html"
expect_grep 'none.db: No such file' "$tmp/err"
head -c 4096 /dev/urandom >"$tmp/junk.db"
expect_exit 2 "$FIACHECK" report --db "$tmp/junk.db" --out "$tmp/keep.html"
expect_grep 'junk.db: .*(not a database|damaged|corrupt)' "$tmp/err"
[ "$(cat "$tmp/keep.html")" = keep ] && ok || bad "a failed report replaced the page"
expect_exit 2 "$FIACHECK" report --db "$db" --out "$tmp/no/such/dir/r.html"
expect_grep 'cannot write .*no/such/dir/r.html' "$tmp/err"
mkdir "$tmp/adir"
expect_exit 2 "$FIACHECK" report --db "$db" --out "$tmp/adir"
expect_grep 'is a directory' "$tmp/err"
expect_exit 2 "$FIACHECK" report --db "$db" --bogus
expect_exit 2 "$FIACHECK" report --db
expect_exit 2 "$FIACHECK" report --out a.html --out b.html
ls "$tmp" | grep -q '\.tmp-' && bad "a temporary page left behind" || ok
finish
