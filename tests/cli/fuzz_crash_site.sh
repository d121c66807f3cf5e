#!/usr/bin/env bash
# A crash finding is named by the site its sanitizer reported (kind and
# source file without the ISA suffix), not by the case's feature bucket:
# one out-of-bounds read at two ISA levels is one finding per target; a
# crash without a SUMMARY keeps the bucket.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
command -v sqlite3 >/dev/null || { echo "sqlite3 missing: skipped"; finish; exit; }

db=$tmp/w/c.db
expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 \
  FAKE_SUMMARY="AddressSanitizer: heap-buffer-overflow /src/fast/kernel/widen_avx512.c:14:21 in fast_widen_avx512" \
  "$fz" fuzz --time 1 --jobs 3 --db "$db" --seed 1
got=$(sqlite3 "$db" "SELECT signature FROM findings WHERE kind = 'crash' ORDER BY signature" | tr '\n' ' ')
want="crash|fuzz_metamorphic|heap-buffer-overflow@fast/kernel/widen crash|fuzz_numeric|heap-buffer-overflow@fast/kernel/widen crash|fuzz_params|heap-buffer-overflow@fast/kernel/widen "
[ "$got" = "$want" ] && ok || bad "crash signatures '$got'"

# no SUMMARY: the bucket, as before
db2=$tmp/w/c2.db
expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 "$fz" fuzz --time 1 --jobs 3 --db "$db2" --seed 1
n=$(sqlite3 "$db2" "SELECT count(*) FROM findings WHERE kind = 'crash' AND signature NOT LIKE '%@%'")
[ "$n" = 3 ] && ok || bad "$n bucket-named crash findings, wanted 3"
finish
