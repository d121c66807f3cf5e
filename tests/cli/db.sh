#!/usr/bin/env bash
# `fiacheck db ...` and `rules --coverage --db`: empty store, a small
# hand-made history, JSON output, exit codes, missing / corrupt / foreign
# files (exit 2 with a message, never a crash).
. "$(dirname "$0")/lib.sh"

# json_lines FILE: every line of FILE is one JSON object.
json_lines() {
  if command -v python3 >/dev/null; then
    python3 -c 'import json,sys
for l in open(sys.argv[1]):
    assert isinstance(json.loads(l), dict), l' "$1" 2>"$tmp/jerr"
  elif command -v jq >/dev/null; then
    jq -e 'type == "object"' "$1" >/dev/null 2>"$tmp/jerr"
  else
    ! grep -vq '^{.*}$' "$1"
  fi && ok || { bad "not JSON lines: $1"; sed 's/^/    /' "$1" "$tmp/jerr" >&2; }
}

db=$tmp/s.db
# no store yet: a clear message, exit 2
expect_exit 2 "$FIACHECK" db findings --db "$db"
expect_grep "s.db: No such file" "$tmp/err"
expect_exit 2 "$FIACHECK" db stats --db "$tmp/no/such/dir/x.db"
expect_exit 2 "$FIACHECK" db findings --db "$tmp"
expect_grep "directory" "$tmp/err"

# usage errors
expect_exit 2 "$FIACHECK" db
expect_exit 2 "$FIACHECK" db bogus --db "$db"
expect_exit 2 "$FIACHECK" db findings --db
expect_exit 0 "$FIACHECK" db --help
expect_grep "regressions --base REV --head REV" "$tmp/out"

# an empty store
expect_exit 0 "$FIACHECK" db init --db "$db"
expect_grep "schema version 8" "$tmp/out"
expect_exit 0 "$FIACHECK" db findings --db "$db"
expect_grep "^0 findings" "$tmp/out"
expect_exit 0 "$FIACHECK" db findings --json --db "$db"
[ ! -s "$tmp/out" ] && ok || bad "findings --json on an empty store printed something"
expect_exit 0 "$FIACHECK" db stats --json --db "$db"
json_lines "$tmp/out"
expect_grep '"findings":0' "$tmp/out"
expect_exit 0 "$FIACHECK" db stats --db "$db"
expect_exit 0 "$FIACHECK" db export --json --db "$db"
expect_exit 2 "$FIACHECK" db export --db "$db"
expect_exit 2 "$FIACHECK" db show 1 --db "$db"
expect_grep "no finding with id 1" "$tmp/err"
expect_exit 2 "$FIACHECK" db show --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base a --head b --db "$db"
expect_grep "no campaign, finding or benchmark run recorded at revision 'a'" "$tmp/err"
expect_exit 2 "$FIACHECK" db regressions --base a --db "$db"
expect_exit 0 "$FIACHECK" rules --coverage --db "$db"
expect_grep "0 covered" "$tmp/out"

# a small history written the way a fuzz campaign would (sqlite3 shell)
if command -v sqlite3 >/dev/null; then
  sqlite3 "$db" <<'SQL'
INSERT INTO campaigns(id, revision, target, profile, started, updated, execs)
  VALUES (1, 'base', 'fuzz_params', 'doc', 1700000000, 1700000100, 1000),
         (2, 'head', 'fuzz_params', 'doc', 1700001000, 1700001100, 2000);
INSERT INTO findings(id, signature, kind, target, profile, revision,
  last_revision, campaign_id, case_text, first_seen, last_seen, count, state,
  state_changed)
  VALUES (1, 'status|MASK-003|fp16|BNSD', 'status-mismatch', 'fuzz_params',
          'doc', 'base', 'head', 1, 'num_heads = 1', 1700000010, 1700001010,
          2, 'open', 1700000010),
         (2, 'accuracy|softmax|bf16|BSH', 'accuracy', 'fuzz_numeric', 'doc',
          'head', 'head', 2, 'x = "quoted"
second line', 1700001020, 1700001020, 1, 'open', 1700001020);
INSERT INTO sightings VALUES (1, 1, 'base', 1, 1700000010, 1700000010),
  (1, 2, 'head', 1, 1700001010, 1700001010),
  (2, 2, 'head', 1, 1700001020, 1700001020);
INSERT INTO accuracy VALUES (1, 'fp16/BNSD', 10, 1.0, 5.0, 1e-3),
  (2, 'fp16/BNSD', 10, 4.0, 20.0, 2e-3), (1, 'bf16/BSH', 3, 1, 3, 0),
  (2, 'bf16/BSH', 3, 1, 3, 0);
INSERT INTO rule_coverage VALUES (1, 'MASK-003', 4, 9), (2, 'MASK-003', 1, 1),
  (2, 'NO-SUCH-RULE', 1, 1);
SQL
  expect_exit 0 "$FIACHECK" db findings --db "$db"
  expect_grep "^2 findings" "$tmp/out"
  expect_exit 0 "$FIACHECK" db findings --json --db "$db"
  json_lines "$tmp/out"
  for k in id signature kind first_seen last_seen count state target profile revision; do
    expect_grep "\"$k\":" "$tmp/out"
  done
  expect_exit 0 "$FIACHECK" db findings --json --kind accuracy --db "$db"
  [ "$(wc -l <"$tmp/out")" -eq 1 ] && ok || bad "--kind filter"
  expect_exit 0 "$FIACHECK" db show 2 --json --db "$db"
  json_lines "$tmp/out"
  expect_grep '"case_text":"x = \\"quoted\\"\\nsecond line"' "$tmp/out"
  expect_exit 0 "$FIACHECK" db show 2 --db "$db"
  expect_grep "second line" "$tmp/out"
  expect_exit 0 "$FIACHECK" db stats --json --db "$db"
  json_lines "$tmp/out"
  expect_grep '"type":"accuracy","revision":"head","bucket":"fp16/BNSD","cases":10,"max_ulp":4' "$tmp/out"
  # what got worse: finding 2 is new at head; fp16/BNSD has 10 cases per
  # revision, too few to tell (tests/cli/regressions.sh tests accuracy)
  expect_exit 1 "$FIACHECK" db regressions --base base --head head --db "$db"
  expect_grep "^new .*accuracy\|softmax" "$tmp/out"
  expect_grep "^1 regression from base to head" "$tmp/out"
  expect_exit 1 "$FIACHECK" db regressions --json --base base --head head --db "$db"
  json_lines "$tmp/out"
  expect_exit 0 "$FIACHECK" db regressions --base head --head base --db "$db"
  expect_exit 2 "$FIACHECK" db regressions --base base --head head --alpha x --db "$db"
  # triage: mark fixed
  expect_exit 0 "$FIACHECK" db mark 1 fixed --db "$db"
  expect_exit 2 "$FIACHECK" db mark 1 bogus --db "$db"
  expect_exit 2 "$FIACHECK" db mark 99 fixed --db "$db"
  expect_exit 0 "$FIACHECK" db findings --state fixed --db "$db"
  expect_grep "^1 finding$" "$tmp/out"
  # rule coverage from the store (and cases on top)
  expect_exit 0 "$FIACHECK" rules --coverage --db "$db"
  expect_grep "^MASK-003 .* 5 +10" "$tmp/out"
  expect_grep "NO-SUCH-RULE" "$tmp/err"
  expect_exit 0 "$FIACHECK" rules --coverage --db "$db" corpus/cases/*/*.case
  expect_grep "covered, 0 never broken/applied, 0 never obeyed" "$tmp/out"
  # merge INTO FROM: the store stays consistent; merging what is already
  # there changes nothing (campaigns by UUID, findings by signature)
  expect_exit 0 "$FIACHECK" db merge "$tmp/m.db" "$db" "$db"
  expect_exit 0 "$FIACHECK" db stats --json --db "$tmp/m.db"
  expect_grep '"campaigns":2,.*"findings":2,.*"sightings":3,"accuracy_cases":26' "$tmp/out"
  head -1 "$tmp/out" >"$tmp/sum1"
  expect_exit 0 "$FIACHECK" db merge --db "$tmp/m.db" "$db"
  expect_exit 0 "$FIACHECK" db stats --json --db "$tmp/m.db"
  head -1 "$tmp/out" | cmp -s - "$tmp/sum1" && ok || bad "merging twice changed the counts"
  expect_exit 0 "$FIACHECK" db findings --db "$tmp/m.db"
  expect_grep "^ +1 +fixed +2 " "$tmp/out"
  expect_exit 2 "$FIACHECK" db merge "$tmp/m.db"
  # all or nothing: a bad file last leaves the store as it was
  "$FIACHECK" db export --json --db "$tmp/m.db" >"$tmp/exp1"
  "$FIACHECK" db init --db "$tmp/other.db" >/dev/null
  sqlite3 "$tmp/other.db" "INSERT INTO campaigns(revision, target, profile,
    started, updated, execs) VALUES ('x', 't', 'doc', 1, 2, 77);"
  head -c 8192 /dev/urandom >"$tmp/junk2.db"
  expect_exit 2 "$FIACHECK" db merge "$tmp/m.db" "$tmp/other.db" "$db" "$tmp/junk2.db"
  expect_grep "junk2.db" "$tmp/err"
  expect_exit 0 "$FIACHECK" db export --json --db "$tmp/m.db"
  cmp -s "$tmp/out" "$tmp/exp1" && ok || bad "a failed merge changed the store"
  # into itself: refused, nothing changes
  expect_exit 2 "$FIACHECK" db merge "$tmp/m.db" "$tmp/m.db"
  expect_grep "into itself" "$tmp/err"
  expect_exit 0 "$FIACHECK" db export --json --db "$tmp/m.db"
  cmp -s "$tmp/out" "$tmp/exp1" && ok || bad "a merge into itself changed the store"
  expect_exit 0 "$FIACHECK" db export --json --db "$tmp/m.db"
  json_lines "$tmp/out"
  expect_grep '"table":"sighting"' "$tmp/out"
  # another worker's store saw the fixed signature after the fix: merged,
  # it is reported as regressed
  "$FIACHECK" db init --db "$tmp/w.db" >/dev/null
  sqlite3 "$tmp/w.db" "INSERT INTO findings(signature, kind, case_text,
    first_seen, last_seen, state_changed, revision, last_revision) VALUES
    ('status|MASK-003|fp16|BNSD', 'status-mismatch', 'n = 1', 4000000000,
     4000000000, 4000000000, 'head', 'head');
    INSERT INTO sightings VALUES (1, 0, 'head', 1, 4000000000, 4000000000);"
  expect_exit 0 "$FIACHECK" db merge "$db" "$tmp/w.db"
  expect_exit 1 "$FIACHECK" db regressions --base base --head head --db "$db"
  expect_grep "^regressed +finding 1: status\|MASK-003" "$tmp/out"
  expect_exit 0 "$FIACHECK" db show 1 --json --db "$db"
  expect_grep '"state":"regressed".*"count":3' "$tmp/out"
fi

# reading never writes: the file (and an older schema) stays as it was,
# and a store in a directory we may not write to can be read
if command -v sqlite3 >/dev/null; then
  mkdir "$tmp/ro"
  sqlite3 "$tmp/ro/v1.db" <<'SQL'
CREATE TABLE campaigns(id INTEGER PRIMARY KEY, revision TEXT NOT NULL,
 target TEXT NOT NULL, profile TEXT NOT NULL, tolerance TEXT NOT NULL
 DEFAULT '', seed INTEGER NOT NULL DEFAULT 0, command TEXT NOT NULL
 DEFAULT '', started INTEGER NOT NULL, updated INTEGER NOT NULL,
 execs INTEGER NOT NULL DEFAULT 0, coverage INTEGER NOT NULL DEFAULT 0,
 seconds REAL NOT NULL DEFAULT 0, finished INTEGER NOT NULL DEFAULT 0);
CREATE TABLE findings(id INTEGER PRIMARY KEY, signature TEXT NOT NULL
 UNIQUE, kind TEXT NOT NULL, target TEXT NOT NULL DEFAULT '', profile
 TEXT NOT NULL DEFAULT '', revision TEXT NOT NULL DEFAULT '',
 campaign_id INTEGER NOT NULL DEFAULT 0, seed INTEGER NOT NULL DEFAULT
 0, case_text TEXT NOT NULL, metrics_json TEXT, message TEXT,
 first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, count INTEGER
 NOT NULL DEFAULT 1, state TEXT NOT NULL DEFAULT 'open' CHECK (state IN
 ('open', 'fixed', 'regressed')));
CREATE TABLE accuracy(campaign_id INTEGER NOT NULL, bucket TEXT NOT
 NULL, cases INTEGER NOT NULL, max_ulp REAL NOT NULL, sum_ulp REAL NOT
 NULL, max_rel_err REAL NOT NULL, PRIMARY KEY (campaign_id, bucket));
PRAGMA application_id = 1179205955; PRAGMA user_version = 1;
INSERT INTO campaigns VALUES (1, 'rev1', 'fuzz_params', 'doc', 'default',
 5, 'fiacheck fuzz', 1000, 1100, 5000, 77, 100.0, 1);
INSERT INTO findings VALUES (1, 'sig-a', 'status-mismatch', 'fuzz_params',
 'doc', '', 1, 9, 'num_heads = 1', NULL, 'm', 1000, 1050, 3, 'open');
SQL
  cp "$db" "$tmp/ro/cur.db"
  for f in v1 cur; do
    sum0=$(cksum <"$tmp/ro/$f.db"); mt0=$(stat -c %Y "$tmp/ro/$f.db")
    touch -d @1000000000 "$tmp/ro/$f.db"
    expect_exit 0 "$FIACHECK" db findings --db "$tmp/ro/$f.db"
    expect_exit 0 "$FIACHECK" db show 1 --db "$tmp/ro/$f.db"
    expect_exit 0 "$FIACHECK" db stats --db "$tmp/ro/$f.db"
    expect_exit 0 "$FIACHECK" db export --json --db "$tmp/ro/$f.db"
    expect_exit 0 "$FIACHECK" rules --coverage --db "$tmp/ro/$f.db"
    [ "$(cksum <"$tmp/ro/$f.db")" = "$sum0" ] && ok || bad "reading $f.db changed it"
    [ "$(stat -c %Y "$tmp/ro/$f.db")" = 1000000000 ] && ok || bad "reading $f.db touched it"
    # (SQLite's WAL readers may leave an empty -wal beside it; never data)
    [ ! -s "$tmp/ro/$f.db-wal" ] && ok || bad "reading $f.db wrote a journal"
  done
  expect_exit 0 "$FIACHECK" db findings --db "$tmp/ro/v1.db"
  expect_grep "sig-a" "$tmp/out"
  # a directory and files without write permission, read by a user that
  # the permissions bind (root ignores them: run as nobody when we can)
  rm -f "$tmp/ro/"*-wal "$tmp/ro/"*-shm
  chmod 444 "$tmp/ro/"*.db; chmod 555 "$tmp/ro"; chmod 711 "$tmp"
  as_user=()
  if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null &&
       setpriv --reuid=65534 --regid=65534 --clear-groups \
         test -x "$FIACHECK" -a -r "$tmp/ro/cur.db" 2>/dev/null; then
      as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    else
      echo "skip: read-only store test (root, and cannot run as nobody)" >&2
      as_user=(skip)
    fi
  fi
  if [ "${as_user[0]:-}" != skip ]; then
    for f in v1 cur; do
      for c in findings "show 1" stats "export --json"; do
        # shellcheck disable=SC2086
        expect_exit 0 "${as_user[@]}" "$FIACHECK" db $c --db "$tmp/ro/$f.db"
      done
      expect_exit 0 "${as_user[@]}" "$FIACHECK" rules --coverage --db "$tmp/ro/$f.db"
    done
    expect_exit 2 "${as_user[@]}" "$FIACHECK" db mark 1 fixed --db "$tmp/ro/cur.db"
  fi
  chmod 755 "$tmp/ro"; chmod 644 "$tmp/ro/"*.db
fi

# a store in a directory that does not exist: an error naming the
# directory, and no directory made
expect_exit 2 "$FIACHECK" db init --db "$tmp/nodir/sub/x.db"
expect_grep "$tmp/nodir/sub" "$tmp/err"
[ ! -e "$tmp/nodir" ] && ok || bad "db init made a directory"
expect_exit 2 "$FIACHECK" db merge "$tmp/nodir/m.db" "$db"
expect_grep "$tmp/nodir" "$tmp/err"
[ ! -e "$tmp/nodir" ] && ok || bad "db merge made a directory"

# corrupt, truncated and foreign files: exit 2 with a message
head -c 8192 /dev/urandom >"$tmp/junk.db"
for c in findings stats "show 1" "regressions --base a --head b" "export --json"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$FIACHECK" db $c --db "$tmp/junk.db"
  expect_grep "junk.db: .*not a database" "$tmp/err"
done
expect_exit 2 "$FIACHECK" rules --coverage --db "$tmp/junk.db"
expect_exit 2 "$FIACHECK" db merge "$db" "$tmp/junk.db"
expect_exit 2 "$FIACHECK" db init --db "$tmp/junk.db"
if command -v sqlite3 >/dev/null; then
  sqlite3 "$tmp/foreign.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
  expect_exit 2 "$FIACHECK" db findings --db "$tmp/foreign.db"
  expect_grep "not a fiacheck store" "$tmp/err"
  expect_exit 2 "$FIACHECK" db init --db "$tmp/foreign.db"
  # a real store cut in half
  sqlite3 "$tmp/big.db" "PRAGMA page_size=1024;" >/dev/null
  "$FIACHECK" db init --db "$tmp/big.db" >/dev/null
  sqlite3 "$tmp/big.db" "INSERT INTO findings(signature, kind, case_text,
    first_seen, last_seen) SELECT 'sig' || value, 'crash',
    printf('%.500c', 'x'), 0, 0 FROM generate_series(1, 300);"
  truncate -s $(( $(stat -c %s "$tmp/big.db") / 2 )) "$tmp/big.db"
  expect_exit 2 "$FIACHECK" db stats --db "$tmp/big.db"
  expect_grep "damaged|malformed" "$tmp/err"
fi
finish
