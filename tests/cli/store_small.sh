#!/usr/bin/env bash
# The store stays small and whole: a survey's worst cases are stored in
# their generator form (fuzz_numeric's input and the case digest) and `db
# worst` prints them whole for repro; full texts (as older builds stored
# them) still open, merge and print; every command that writes leaves the
# file checkpointed (a copy of it alone holds every row); `db prune` and
# `db vacuum`, every branch; `db import` under FIACHECK_SUT stores the
# plug-in's name and version.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 shell to look into the store"
bin=$(dirname "$FIACHECK")
db=$tmp/s.db
q() { sqlite3 "$1" "$2"; }
le1() { # CMD...: exit 0 or 1 (a finding is not a failure of the command)
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -le 1 ]; then ok; else bad "exit $rc: $*"; sed 's/^/    /' "$tmp/err" >&2; fi
}

# --- 1. a survey: its rows in the file, its worst cases small
le1 "$FIACHECK" survey --cases 60 --quiet --db "$db" --revision A
expect_checkpointed "$db"
n=$(q "$db" "SELECT count(*) FROM accuracy_worst")
g=$(q "$db" "SELECT count(*) FROM accuracy_worst WHERE case_text LIKE '%# fiacheck-generator-input: %'")
v=$(q "$db" "SELECT count(*) FROM accuracy_worst WHERE case_text LIKE '%.values =%'")
[ "$n" -ge 30 ] && [ "$g" = "$n" ] && [ "$v" = 0 ] && ok ||
  bad "worst cases: $n kept, $g in generator form, $v with values"
big=$(q "$db" "SELECT max(length(case_text)) FROM accuracy_worst")
[ "$big" -lt 2000 ] && ok || bad "a worst case of $big bytes"
sz=$(wc -c <"$db")
[ "$sz" -lt 1500000 ] && ok || bad "a 60-case survey made a store of $sz bytes"

# db worst prints the case whole; repro runs it
b=$(q "$db" "SELECT bucket FROM accuracy_worst ORDER BY ratio DESC LIMIT 1")
expect_exit 0 "$FIACHECK" db worst --db "$db" --revision A --bucket "$b"
cp "$tmp/out" "$tmp/w.case"
expect_grep '^# fiacheck-kind: accuracy-worst$' "$tmp/w.case"
expect_grep '^query = ' "$tmp/w.case"
if grep -q 'fiacheck-generator' "$tmp/w.case"; then bad "db worst printed the generator form"; else ok; fi
le1 "$FIACHECK" repro "$tmp/w.case"
expect_grep "verdict" "$tmp/out"
# a damaged generator form is refused, never printed as another case
cp "$db" "$tmp/damaged.db"
q "$tmp/damaged.db" "UPDATE accuracy_worst SET case_text = replace(case_text, 'generator-digest: ', 'generator-digest: 0')"
expect_exit 2 "$FIACHECK" db worst --db "$tmp/damaged.db" --revision A --bucket "$b"
expect_grep "digest" "$tmp/err"
[ ! -s "$tmp/out" ] && ok || bad "a damaged worst case printed something"

# --- 2. full texts (what older builds stored) open, merge and print
cp "$db" "$tmp/old.db"
q "$tmp/old.db" "UPDATE accuracy_worst SET case_text = readfile('$tmp/w.case') WHERE bucket = '$(printf %s "$b" | sed "s/'/''/g")'"
expect_exit 0 "$FIACHECK" db worst --db "$tmp/old.db" --revision A --bucket "$b"
cmp -s "$tmp/out" "$tmp/w.case" && ok || bad "a full-text worst case not printed as stored"
expect_exit 0 "$FIACHECK" db merge "$tmp/m.db" "$tmp/old.db"
expect_checkpointed "$tmp/m.db"
expect_exit 0 "$FIACHECK" db worst --db "$tmp/m.db" --revision A --bucket "$b"
cmp -s "$tmp/out" "$tmp/w.case" && ok || bad "a merged full-text worst case differs"

# --- 3. the other writers leave the file checkpointed
expect_exit 0 "$FIACHECK" db init --db "$tmp/i.db"
expect_checkpointed "$tmp/i.db"
fid=$(q "$db" "SELECT min(id) FROM findings")
if [ -n "$fid" ]; then
  expect_exit 0 "$FIACHECK" db mark "$fid" fixed --db "$db"
  expect_checkpointed "$db"
fi

# --- 4. db prune and db vacuum
le1 "$FIACHECK" survey --cases 20 --quiet --db "$db" --revision B
le1 "$FIACHECK" survey --cases 20 --quiet --db "$db" --revision C
expect_exit 2 "$FIACHECK" db prune --db "$db"
expect_grep "prune wants which campaigns" "$tmp/err"
expect_exit 2 "$FIACHECK" db prune --db "$db" --all --revision B
expect_grep "takes no --revision" "$tmp/err"
expect_exit 2 "$FIACHECK" db prune --db "$db" --before yesterday
expect_grep "wants a date" "$tmp/err"
expect_exit 2 "$FIACHECK" db prune --db "$db" --before 2026-13-01
expect_exit 2 "$FIACHECK" db prune --db "$db" --before 2026-01-01T25:00:00Z
expect_exit 2 "$FIACHECK" db prune --db "$db" --state open
expect_grep "prune selects campaigns" "$tmp/err"
expect_exit 2 "$FIACHECK" db prune --db "$db" --all extra
expect_exit 2 "$FIACHECK" db prune --db "$db" --system
expect_exit 2 "$FIACHECK" db stats --db "$db" --before 2020-01-01
expect_grep "are prune's" "$tmp/err"
expect_exit 2 "$FIACHECK" db stats --db "$db" --worst-cases
expect_exit 2 "$FIACHECK" db prune --db "$tmp/none.db" --all
expect_exit 2 "$FIACHECK" db prune --db "$db" --revision nosuchrev
expect_exit 2 "$FIACHECK" db vacuum --db "$db" extra
expect_exit 2 "$FIACHECK" db vacuum --db "$tmp/none.db"
expect_exit 0 "$FIACHECK" db prune --db "$db" --before 2000-01-01
expect_grep "^pruned 0 campaign" "$tmp/out"
expect_exit 0 "$FIACHECK" db prune --db "$db" --system nosuch --json
expect_grep '^\{"campaigns":0,' "$tmp/out"
# worst cases only: the campaign and its samples stay
before=$(q "$db" "SELECT count(*) FROM accuracy_samples s JOIN campaigns c ON c.id = s.campaign_id WHERE c.revision = 'B'")
expect_exit 0 "$FIACHECK" db prune --db "$db" --revision B --worst-cases
expect_grep "^pruned the worst cases of 1 campaign" "$tmp/out"
expect_checkpointed "$db"
[ "$(q "$db" "SELECT count(*) FROM accuracy_worst w JOIN campaigns c ON c.id = w.campaign_id WHERE c.revision = 'B'")" = 0 ] &&
  ok || bad "--worst-cases left worst cases of B"
[ "$(q "$db" "SELECT count(*) FROM accuracy_samples s JOIN campaigns c ON c.id = s.campaign_id WHERE c.revision = 'B'")" = "$before" ] &&
  ok || bad "--worst-cases dropped samples"
expect_exit 2 "$FIACHECK" db worst --db "$db" --revision B --bucket "$b"
# a revision: its campaign and all of it
expect_exit 0 "$FIACHECK" db prune --db "$db" --revision B
expect_grep "^pruned 1 campaign" "$tmp/out"
[ "$(q "$db" "SELECT count(*) FROM campaigns WHERE revision = 'B'")" = 0 ] && ok || bad "B still there"
# before a revision (by a prefix, as the other db commands take it): A is
# made older than C first (the surveys ran within a few seconds)
q "$db" "UPDATE campaigns SET started = started - 100 WHERE revision = 'A'"
expect_exit 0 "$FIACHECK" db prune --db "$db" --before C --target survey
expect_grep "^pruned 1 campaign" "$tmp/out"
[ "$(q "$db" "SELECT group_concat(revision) FROM campaigns")" = C ] && ok || bad "prune --before C left $(q "$db" "SELECT group_concat(revision) FROM campaigns")"
# vacuum gives the space back
s0=$(wc -c <"$db")
expect_exit 0 "$FIACHECK" db vacuum --db "$db"
expect_grep "^vacuumed " "$tmp/out"
expect_checkpointed "$db"
s1=$(wc -c <"$db")
[ "$s1" -lt "$s0" ] && ok || bad "vacuum: $s0 -> $s1 bytes"
expect_exit 0 "$FIACHECK" db prune --db "$db" --all
expect_checkpointed "$db"
[ "$(q "$db" "SELECT (SELECT count(*) FROM campaigns) + (SELECT count(*) FROM accuracy_samples) + (SELECT count(*) FROM sightings)")" = 0 ] &&
  ok || bad "prune --all left rows"

# --- 5. db import under FIACHECK_SUT: the plug-in's name and version
exso=$bin/plugins/libfiacheck_sut_example.so
if [ -f "$exso" ]; then
  exact=(env FIACHECK_TOLERANCE="allclose 0 0")
  le1 "${exact[@]}" "$FIACHECK" survey --sut "$exso" --cases 30 --quiet --db "$tmp/ex.db"
  hex=$(q "$tmp/ex.db" "SELECT case_text FROM accuracy_worst WHERE ratio > 1 LIMIT 1" |
        sed -n 's/^# fiacheck-generator-input: //p')
  [ -n "$hex" ] && ok || bad "no failing worst case of the example plug-in"
  mkdir -p "$tmp/in"
  /usr/bin/python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes.fromhex(sys.argv[2]))' \
    "$tmp/in/fuzz_numeric-1" "$hex"
  expect_exit 0 "${exact[@]}" FIACHECK_SUT="$exso" "$FIACHECK" db import --db "$tmp/imp.db" "$tmp/in"
  expect_grep "new finding" "$tmp/out"
  expect_checkpointed "$tmp/imp.db"
  [ "$(q "$tmp/imp.db" "SELECT group_concat(sut) FROM findings")" = example ] && ok ||
    bad "imported finding of system '$(q "$tmp/imp.db" "SELECT group_concat(sut) FROM findings")'"
  [ "$(q "$tmp/imp.db" "SELECT sut || ' ' || revision FROM campaigns")" = "example 1.0" ] && ok ||
    bad "import campaign: $(q "$tmp/imp.db" "SELECT sut || ' ' || revision FROM campaigns")"
  expect_exit 2 env FIACHECK_SUT="$tmp/none.so" "$FIACHECK" db import --db "$tmp/imp.db" "$tmp/in"
  expect_grep "FIACHECK_SUT" "$tmp/err"
else
  bad "no $exso (plugins/example is built with the tree)"
fi
finish
