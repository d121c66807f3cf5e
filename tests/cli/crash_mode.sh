#!/usr/bin/env bash
# Crash mode and `db import`, end to end.  A correct fast/ is made to fail
# by settings, not by a fault: FIACHECK_TOLERANCE="allclose 0 0" (no error
# at all allowed) gives accuracy findings on fuzz_numeric's seeds, and
# FIACHECK_FAST_PROFILE=cann against FIACHECK_PROFILE=doc (fast/ answering
# with the released code's statuses) gives status mismatches on
# fuzz_params's.  The replay drivers (any compiler) are tested always; the
# libFuzzer binaries when they sit beside $FIACHECK or in build/fuzz/.
. "$(dirname "$0")/lib.sh"
root=$(pwd)
bindir=$(dirname "$FIACHECK")
unset FIACHECK_DB FIACHECK_CAMPAIGN FIACHECK_STATS FIACHECK_UNSTORED \
      FIACHECK_PROFILE FIACHECK_TOLERANCE FIACHECK_FAST_PROFILE \
      FIACHECK_ON_FINDING
acc=(env FIACHECK_TOLERANCE="allclose 0 0")
sm=(env FIACHECK_PROFILE=doc FIACHECK_FAST_PROFILE=cann)
nseed=corpus/fuzz_numeric/seed-000
pseeds=corpus/fuzz_params

# the case text between the crash's markers, as repro reads it
case_of() { sed -n '/its case, for fiacheck repro:/,/^fuzz: end of the case/p' "$1" | sed '1d;$d'; }

# --- replay driver: FIACHECK_ON_FINDING=abort crashes on the first finding
for k in accuracy status-mismatch; do
  if [ $k = accuracy ]; then
    expect_exit 134 "${acc[@]}" FIACHECK_ON_FINDING=abort "$bindir/fuzz_numeric_replay" $nseed
  else
    expect_exit 134 "${sm[@]}" FIACHECK_ON_FINDING=abort "$bindir/fuzz_params_replay" $pseeds
  fi
  expect_grep "^fuzz: finding $k\|" "$tmp/err"
  expect_grep "^# fiacheck-kind: $k$" "$tmp/err"
  expect_grep "^fuzz: end of the case$" "$tmp/err"
  case_of "$tmp/err" >"$tmp/$k.case"
  # the reproducer on stderr fails the same way under repro (its header
  # carries the tolerance / fast/ profile it was found under)
  expect_exit 1 "$FIACHECK" repro "$tmp/$k.case"
  expect_grep "signature +$k\|" "$tmp/out"
done
# record (the replay driver's default): lines on stderr, the run goes on
expect_exit 0 "${acc[@]}" FIACHECK_ON_FINDING=record "$bindir/fuzz_numeric_replay" corpus/fuzz_numeric
expect_grep "^fuzz: finding accuracy\|" "$tmp/err"
expect_grep "25 inputs" "$tmp/out"
expect_exit 0 "${acc[@]}" "$bindir/fuzz_numeric_replay" $nseed
# settings that do not parse stop the target before it judges anything
expect_exit 2 env FIACHECK_ON_FINDING=sometimes "$bindir/fuzz_numeric_replay" $nseed
expect_grep "FIACHECK_ON_FINDING=sometimes: wants abort or record" "$tmp/err"
expect_exit 2 env FIACHECK_TOLERANCE="allclose x" "$bindir/fuzz_numeric_replay" $nseed
expect_exit 2 env FIACHECK_FAST_PROFILE=vendor "$bindir/fuzz_numeric_replay" $nseed

# --- libFuzzer binaries: alone (no store) a finding is a crash whose stack
# names the kind, and libFuzzer keeps the input as its crash artifact
fz=
for d in "$bindir" "$root/build/fuzz"; do
  [ -x "$d/fuzz_numeric" ] && [ -x "$d/fuzz_params" ] && { fz=$d; break; }
done
mkdir -p "$tmp/arts/fuzz_numeric" "$tmp/arts/fuzz_params"
if [ -n "$fz" ]; then
  for k in accuracy status-mismatch; do
    if [ $k = accuracy ]; then t=numeric; run=("${acc[@]}"); in=$nseed
    else t=params; run=("${sm[@]}"); in=$pseeds/$(ls $pseeds | grep -v dict | head -1); fi
    # the first params seed need not fail: take the first that does
    if [ $k = status-mismatch ]; then
      for f in $pseeds/*; do
        case $f in *.dict) continue ;; esac
        if ! "${run[@]}" FIACHECK_ON_FINDING=abort "$bindir/fuzz_params_replay" "$f" >/dev/null 2>&1; then in=$f; break; fi
      done
    fi
    # a corpus folder, as engines run a target (a file argument alone is
    # only executed: libFuzzer keeps no artifact of it)
    mkdir -p "$tmp/in-$t" && cp "$in" "$tmp/in-$t/"
    "${run[@]}" "$fz/fuzz_$t" -runs=0 -artifact_prefix="$tmp/arts/fuzz_$t/" \
      "$tmp/in-$t" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then ok; else bad "fuzz_$t alone on a finding exited 0"; fi
    fn=fia_finding_${k//-/_}
    expect_grep "deadly signal" "$tmp/err"
    expect_grep "in $fn " "$tmp/err"
    expect_grep "^# fiacheck-kind: $k$" "$tmp/err"
    expect_grep "Test unit written to $tmp/arts/fuzz_$t/crash-" "$tmp/err"
    # inside a campaign (a store named) nothing changes: recorded, no crash
    expect_exit 0 "${run[@]}" FIACHECK_DB="$tmp/camp.db" "$fz/fuzz_$t" -runs=0 "$tmp/in-$t"
  done
else
  echo "SKIP: libFuzzer binaries not built: the replay drivers' crashes stand in"
  cp $nseed "$tmp/arts/fuzz_numeric/crash-seed000"
fi

# --- db import: the crash artifact back into a store, exactly once
db=$tmp/import.db
expect_exit 0 "${acc[@]}" "$FIACHECK" db import --db "$db" --revision abc123 "$tmp/arts/fuzz_numeric"
expect_grep "new finding 1 accuracy\|" "$tmp/out"
expect_exit 0 "$FIACHECK" db findings --db "$db" --json
[ "$(grep -c '"signature"' "$tmp/out")" = 1 ] && ok || bad "import: not one finding"
expect_grep '"target":"fuzz_numeric"' "$tmp/out"
expect_grep '"revision":"abc123"' "$tmp/out"
# again, and the same bytes under another name: nothing changes
cp "$tmp/arts/fuzz_numeric"/crash-* "$tmp/again-fuzz_numeric-1"
"$FIACHECK" db export --db "$db" --json >"$tmp/before.json"
expect_exit 0 "${acc[@]}" "$FIACHECK" db import --db "$db" "$tmp/arts/fuzz_numeric" "$tmp/again-fuzz_numeric-1"
expect_grep "0 new finding\(s\), 0 known, 0 regressed, 2 imported before" "$tmp/out"
"$FIACHECK" db export --db "$db" --json >"$tmp/after.json"
cmp -s "$tmp/before.json" "$tmp/after.json" && ok || bad "a second import changed the store"
if [ -n "$fz" ]; then
  expect_exit 0 "${sm[@]}" "$FIACHECK" db import --db "$db" "$tmp/arts/fuzz_params"
  expect_grep "new finding 2 status-mismatch\|" "$tmp/out"
fi
# a passing input leaves nothing
expect_exit 0 "$FIACHECK" db import --db "$tmp/pass.db" --target numeric $nseed
expect_grep "no finding" "$tmp/out"
# bad input: clear errors, exit 2, the good inputs still imported
: >"$tmp/empty-fuzz_numeric"
mkdir -p "$tmp/junk" "$tmp/none"
echo hello >"$tmp/junk/notes.txt"
expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db" "$tmp/missing"
expect_grep "missing: No such file or directory" "$tmp/err"
expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db" "$tmp/empty-fuzz_numeric"
expect_grep "empty: not an engine's input" "$tmp/err"
expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db" "$tmp/junk"
expect_grep "no target named in its path; give --target" "$tmp/err"
expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db" "$tmp/none"
expect_grep "no input files in it" "$tmp/err"
expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db" --target nosuch $nseed
expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db"
if [ "$(id -u)" != 0 ]; then
  cp $nseed "$tmp/locked-fuzz_numeric" && chmod 000 "$tmp/locked-fuzz_numeric"
  expect_exit 2 "$FIACHECK" db import --db "$tmp/bad.db" "$tmp/locked-fuzz_numeric"
  expect_grep "cannot read" "$tmp/err"
fi
finish
