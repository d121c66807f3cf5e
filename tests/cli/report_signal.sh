#!/usr/bin/env bash
# An interrupted `report` (SIGINT, SIGTERM) leaves nothing behind: not the
# page's OUT.tmp-XXXXXX beside OUT, not its fiacheck-report-XXXXXX plot
# directory in TMPDIR, not a gnuplot child; it dies of the signal, and an
# existing OUT is left as it was.  A gnuplot that never ends (a stand-in
# that sleeps) holds the report in its middle.
. "$(dirname "$0")/lib.sh"
expect_exit 0 "$FIACHECK" survey --cases 3 --revision R1 --quiet --db "$tmp/r.db"
expect_exit 0 "$FIACHECK" survey --cases 3 --revision R2 --quiet --db "$tmp/r.db"
cat >"$tmp/slow-gnuplot" <<'SH'
#!/usr/bin/env bash
echo $$ >"$STANDIN_PID"
exec sleep 60
SH
chmod +x "$tmp/slow-gnuplot"
for sig in INT TERM; do
  mkdir -p "$tmp/t.$sig" "$tmp/o.$sig"
  echo old >"$tmp/o.$sig/page.html"
  set -m # the report in a process group of its own, SIGINT not ignored
  TMPDIR=$tmp/t.$sig FIACHECK_GNUPLOT=$tmp/slow-gnuplot STANDIN_PID=$tmp/gp.$sig \
    "$FIACHECK" report --db "$tmp/r.db" --out "$tmp/o.$sig/page.html" \
    >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  set +m
  for _ in $(seq 100); do [ -s "$tmp/gp.$sig" ] && break; sleep 0.1; done
  [ -s "$tmp/gp.$sig" ] && ok || bad "SIG$sig: the report never ran gnuplot"
  ls "$tmp/t.$sig" | grep -q '^fiacheck-report-' && ok || bad "SIG$sig: no plot directory while it ran"
  ls "$tmp/o.$sig" | grep -q '^page.html.tmp-' && ok || bad "SIG$sig: no temporary page while it ran"
  kill -$sig $pid
  wait $pid
  rc=$?
  want=$((128 + $(kill -l $sig)))
  [ $rc -eq $want ] && ok || bad "SIG$sig: exit $rc, wanted $want"
  left=$(ls -A "$tmp/t.$sig"; ls -A "$tmp/o.$sig" | grep -v '^page.html$')
  [ -z "$left" ] && ok || bad "SIG$sig left: $left"
  [ "$(cat "$tmp/o.$sig/page.html")" = old ] && ok || bad "SIG$sig: the old page changed"
  gp=$(cat "$tmp/gp.$sig" 2>/dev/null)
  if [ -n "$gp" ] && kill -0 "$gp" 2>/dev/null; then
    bad "SIG$sig: gnuplot ($gp) still runs"; kill "$gp"; else ok; fi
done
finish
