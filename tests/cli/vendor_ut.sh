#!/usr/bin/env bash
# The vendor's own tiling unit tests (../shared/vendor-ut, issue 33): each
# is a call with the released code's verdict, so profile cann must accept
# what they accept and reject what they reject.  Statuses only (the tests
# say nothing about numbers).  A call cann leaves "not modeled" counts as
# accepted: fiacheck refuses to judge it, the released code is not said to
# reject it; it would hide a rejection, so on a rejected test it disagrees.
. "$(dirname "$0")/lib.sh"

ut=${FIA_VENDOR_UT:-../shared/vendor-ut}
[ -f "$ut/cases/expected.tsv" ] || skip "no vendor tests at $ut (../shared/vendor-ut of the source tree)"
command -v python3 >/dev/null || skip "python3 reads the JSON lines"

"$FIACHECK" run --profile cann --status-only --json "$ut"/cases/*.case \
  >"$tmp/run.json" 2>"$tmp/err"
rc=$?
# 0 all pass, 1 a finding (fast/ against the profile: not this test's
# subject); anything else is a bad input and says nothing about the profile.
if [ "$rc" -le 1 ]; then ok; else bad "fiacheck run exited $rc"; sed 's/^/    /' "$tmp/err" >&2; fi

python3 - "$ut/cases/expected.tsv" "$tmp/run.json" >"$tmp/cmp" <<'PY'
import json, os, sys
NOT_MODELED = 990001
want = {}
for line in open(sys.argv[1], encoding="utf-8"):
    cols = line.rstrip("\n").split("\t")
    if len(cols) >= 2 and cols[1] in ("accept", "reject"):
        want[cols[0]] = cols[1]
seen, agree, nm = set(), 0, []
for line in open(sys.argv[2], encoding="utf-8"):
    r = json.loads(line)
    name = os.path.splitext(os.path.basename(r["case"]))[0]
    if name not in want:
        continue
    seen.add(name)
    st = r.get("expected_status")
    got = "accept" if st in (0, NOT_MODELED) else "reject"
    if st == NOT_MODELED:
        nm.append(name)
    if got == want[name] and not (st == NOT_MODELED and want[name] == "reject"):
        agree += 1
        continue
    print("DISAGREE %s: expected %s, cann %s (status %s, rules %s)" %
          (name, want[name], "not-modeled" if st == NOT_MODELED else got, st,
           ",".join(r.get("rules", [])) or "none"))
for name in sorted(set(want) - seen):
    print("DISAGREE %s: expected %s, no result from fiacheck" % (name, want[name]))
print("AGREE %d of %d" % (agree, len(want)))
for name in nm:
    print("NOTE %s: not modeled in cann" % name)
PY
sed 's/^/    /' "$tmp/cmp"
if grep -q '^DISAGREE' "$tmp/cmp"; then
  bad "profile cann disagrees with the vendor's tests ($(grep -c '^DISAGREE' "$tmp/cmp") of them, listed above)"
elif grep -q '^AGREE' "$tmp/cmp"; then ok; else bad "no comparison made"; fi
finish
