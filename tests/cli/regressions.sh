#!/usr/bin/env bash
# `fiacheck db regressions` on accuracy: per bucket and facet, the
# error-to-bound ratios of the cases run at both revisions (same case key)
# are compared with a one-sided sign test (Bonferroni over the groups
# compared) and a minimum effect size; --unpaired compares two samples
# (Mann-Whitney U); groups with too few cases are not compared; buckets
# seen at one revision only are listed.  The samples are written the way a
# fuzz campaign writes them; then real surveys of one build twice must
# report nothing.
. "$(dirname "$0")/lib.sh"

# option validation (exit 2, never an empty listing)
db=$tmp/r.db
expect_exit 0 "$FIACHECK" db init --db "$db"
expect_exit 2 "$FIACHECK" db findings --state bogus --db "$db"
expect_grep "state" "$tmp/err"
expect_exit 2 "$FIACHECK" db findings --kind bogus --db "$db"
expect_grep "kind" "$tmp/err"
expect_exit 0 "$FIACHECK" db findings --state regressed --kind nan-leak --db "$db"

command -v sqlite3 >/dev/null || { echo "sqlite3 missing: skipped the rest"; finish; exit; }

case_file=corpus/cases/mask/$(ls corpus/cases/mask | head -1)
# samples(campaign, bucket, n, seed, shift): n cases keyed bucket:1..n, each
# with a ratio hashed from its key (one build gives a case one ratio),
# plus shift; seed is only the campaign's
samples() {
  cat <<SQL
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $3)
INSERT INTO accuracy_samples(campaign_id, bucket, ratio, case_key)
SELECT $1, '$2', ((i * 2654435761) % 1000003) / 1000003.0 * 0.5
  + $5, '$2:' || i FROM k;
INSERT INTO accuracy VALUES ($1, '$2', $3, 3, 1.5 * $3, 1e-3)
  ON CONFLICT DO NOTHING;
SQL
}
{
  echo "INSERT INTO campaigns(id, revision, target, profile, started, updated)
    VALUES (1, 'A', 'fuzz_numeric', 'doc', 1, 2), (2, 'B', 'fuzz_numeric', 'doc', 3, 4),
           (3, 'C', 'fuzz_numeric', 'doc', 5, 6);"
  samples 1 fp16/BNSD 400 1 0;   samples 2 fp16/BNSD 600 2 0
  samples 1 bf16/BSH 10 1 0;     samples 2 bf16/BSH 12 2 0
  samples 1 only-a 50 1 0;       samples 2 only-b 50 2 0
  samples 3 fp16/BNSD 400 3 0.08; samples 3 bf16/BSH 10 3 0
  echo "INSERT INTO accuracy_worst VALUES (3, 'fp16/BNSD', 0.58, readfile('$case_file'));"
} | sqlite3 "$db"

# the same build twice: nothing got worse, exit 0
expect_exit 0 "$FIACHECK" db regressions --base A --head B --db "$db"
expect_grep "^0 regressions from A to B" "$tmp/out"
expect_grep "sign test" "$tmp/out"
expect_grep "^same +bucket fp16/BNSD.*400 paired" "$tmp/out"
expect_grep "^same +facet \*" "$tmp/out"
expect_grep "^only-base +bucket only-a" "$tmp/out"
expect_grep "^only-head +bucket only-b" "$tmp/out"
expect_grep "^.1 bucket and facets with fewer than 30" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --base A --head B --all-buckets --db "$db"
expect_grep "^too-few +bucket bf16/BSH" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --base B --head A --db "$db"
expect_exit 0 "$FIACHECK" db regressions --json --base A --head B --db "$db"
expect_grep '"bucket":"fp16/BNSD".*"pairs":400.*"test":"sign".*"p_value":' "$tmp/out"

# a shifted build: reported, exit 1, with the way to its worst case
expect_exit 1 "$FIACHECK" db regressions --base A --head C --db "$db"
expect_grep "^accuracy +bucket fp16/BNSD.*400 paired: 400 worse" "$tmp/out"
expect_grep "db worst --revision C --bucket 'fp16/BNSD'" "$tmp/out"
expect_grep "^accuracy +facet \*" "$tmp/out"
expect_grep "^2 regressions from A to C" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --base C --head A --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base A --head C --min-effect 2 --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base A --head C --alpha 0 --db "$db"
expect_exit 2 "$FIACHECK" db regressions --base A --head C --min-cases x --db "$db"

# samples without a case key (two fuzz campaigns' different cases) are not
# compared unless --unpaired: then Mann-Whitney U
echo "INSERT INTO campaigns(id, revision, target, profile, started, updated)
        VALUES (4, 'U1', 'fuzz_numeric', 'doc', 7, 8), (5, 'U2', 'fuzz_numeric', 'doc', 9, 10);
      INSERT INTO accuracy_samples(campaign_id, bucket, ratio)
        SELECT 4, 'u', ratio FROM accuracy_samples WHERE campaign_id = 1;
      INSERT INTO accuracy_samples(campaign_id, bucket, ratio)
        SELECT 5, 'u', ratio FROM accuracy_samples WHERE campaign_id = 3;" | sqlite3 "$db"
expect_exit 0 "$FIACHECK" db regressions --base U1 --head U2 --db "$db"
expect_grep "^.2 buckets and facets" "$tmp/out"
expect_exit 0 "$FIACHECK" db regressions --base U1 --head U2 --all-buckets --db "$db"
expect_grep "^unpaired +bucket u: 460 -> 410 cases but 0 run at both" "$tmp/out"
expect_exit 1 "$FIACHECK" db regressions --base U1 --head U2 --unpaired --db "$db"
expect_grep "^accuracy +bucket u: .*.unpaired: Mann-Whitney U." "$tmp/out"
# a larger minimum effect hides it
expect_exit 0 "$FIACHECK" db regressions --base U1 --head U2 --unpaired --min-effect 0.99 --db "$db"

# the worst case comes out as a case file fiacheck repro reads
"$FIACHECK" db worst --revision C --bucket fp16/BNSD --db "$db" >"$tmp/w.case"
cmp -s "$tmp/w.case" "$case_file" && ok || bad "db worst printed another text"
expect_exit 0 "$FIACHECK" repro "$tmp/w.case"
expect_exit 2 "$FIACHECK" db worst --revision A --bucket fp16/BNSD --db "$db"
expect_grep "no worst case" "$tmp/err"
expect_exit 2 "$FIACHECK" db worst --revision C --db "$db"

# real cases: one build surveyed twice (the same cases, paired by digest)
# reports nothing; each sample carries its case's digest
sdb=$tmp/survey.db
expect_exit 0 "$FIACHECK" survey --cases 120 --seed 7 --revision S1 --quiet --db "$sdb"
expect_grep "^survey of 120 cases .seed 7. at S1" "$tmp/out"
expect_exit 0 "$FIACHECK" survey --cases 120 --seed 7 --revision S2 --quiet --db "$sdb"
expect_exit 0 "$FIACHECK" db regressions --base S1 --head S2 --db "$sdb"
expect_grep "^same +facet \*: .* paired: 0 worse, 0 better" "$tmp/out"
expect_grep "^0 regressions from S1 to S2" "$tmp/out"
keys=$(sqlite3 "$sdb" "SELECT count(DISTINCT case_key) FROM accuracy_samples WHERE case_key GLOB '[0-9a-f]*' AND length(case_key) = 16")
[ "$keys" -gt 60 ] && ok || bad "survey samples carry $keys distinct case digests"
# every bucket keeps its worst case: the ratio of its largest sample, with
# a case text fiacheck reads back
worst=$(sqlite3 "$sdb" "SELECT count(*) FROM accuracy_worst w JOIN campaigns c ON c.id = w.campaign_id WHERE c.revision = 'S1'")
buckets=$(sqlite3 "$sdb" "SELECT count(DISTINCT bucket) FROM accuracy_samples s JOIN campaigns c ON c.id = s.campaign_id WHERE c.revision = 'S1'")
[ "$worst" -gt 0 ] && [ "$worst" = "$buckets" ] && ok || bad "$worst worst cases for $buckets buckets"
off=$(sqlite3 "$sdb" "SELECT count(*) FROM accuracy_worst w WHERE w.ratio < (SELECT max(ratio) FROM accuracy_samples s WHERE s.campaign_id = w.campaign_id AND s.bucket = w.bucket)")
[ "$off" = 0 ] && ok || bad "$off worst cases below their bucket's largest sample"
b1=$(sqlite3 "$sdb" "SELECT w.bucket FROM accuracy_worst w JOIN campaigns c ON c.id = w.campaign_id WHERE c.revision = 'S1' ORDER BY w.ratio DESC LIMIT 1")
expect_exit 0 "$FIACHECK" db worst --revision S1 --bucket "$b1" --db "$sdb"
cp "$tmp/out" "$tmp/worst.case"
expect_exit 0 "$FIACHECK" run "$tmp/worst.case"
# another seed: other cases, nothing paired with S1
expect_exit 0 "$FIACHECK" survey --cases 40 --seed 8 --revision S3 --quiet --db "$sdb"
expect_exit 0 "$FIACHECK" db regressions --base S1 --head S3 --db "$sdb"
expect_grep "^0 regressions from S1 to S3" "$tmp/out"
expect_exit 2 "$FIACHECK" survey --cases 0 --db "$sdb"
expect_exit 2 "$FIACHECK" survey --seed x --db "$sdb"
expect_exit 2 "$FIACHECK" survey --bogus --db "$sdb"
expect_exit 0 "$FIACHECK" survey --help
# --only: the cases of the stream with one feature word, the same ones at
# every revision; a word no case has is bad usage (exit 2), not a hang
expect_exit 0 "$FIACHECK" survey --cases 5 --seed 9 --only pse --revision S4 --quiet --db "$sdb"
expect_grep "^--only pse: 5 of [0-9]* cases drawn" "$tmp/out"
n=$(sqlite3 "$sdb" "SELECT count(*) FROM accuracy_samples a JOIN campaigns c ON c.id = a.campaign_id WHERE c.revision = 'S4' AND a.bucket NOT LIKE '%+pse%'")
[ "$n" = 0 ] && ok || bad "--only pse stored $n samples of cases without pse"
expect_exit 0 "$FIACHECK" survey --cases 5 --seed 9 --only pse --revision S5 --quiet --db "$sdb"
expect_exit 0 "$FIACHECK" db regressions --base S4 --head S5 --db "$sdb"
expect_grep "^0 regressions from S4 to S5" "$tmp/out"
expect_exit 2 "$FIACHECK" survey --cases 2 --only nosuchword --quiet --db "$sdb"
expect_grep "nosuchword: none of the first 1000 cases of the stream" "$tmp/err"
# a quantization word also focuses the decoder: most cases drawn have it
expect_exit 0 "$FIACHECK" survey --cases 20 --seed 9 --only int8q --revision S6 --quiet --db "$sdb"
drawn=$(sed -n 's/^--only int8q: 20 of \([0-9]*\) cases drawn/\1/p' "$tmp/out")
[ -n "$drawn" ] && [ "$drawn" -lt 100 ] && ok || bad "--only int8q drew '$drawn' cases for 20 (focus off?)"
n=$(sqlite3 "$sdb" "SELECT count(*) FROM accuracy_samples a JOIN campaigns c ON c.id = a.campaign_id WHERE c.revision = 'S6' AND a.bucket NOT LIKE '%+int8q%'")
[ "$n" = 0 ] && ok || bad "--only int8q stored $n samples of other cases"
expect_exit 2 "$FIACHECK" survey --only +pse --db "$sdb"
expect_exit 2 "$FIACHECK" survey --only "" --db "$sdb"
finish
