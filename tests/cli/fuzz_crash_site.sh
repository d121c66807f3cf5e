#!/usr/bin/env bash
# A crash finding is named by the site its sanitizer reported (kind or
# access, and source file without the ISA suffix), not by the case's
# feature bucket:
# one out-of-bounds read at two ISA levels is one finding per target; a
# crash without a SUMMARY keeps the bucket.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fuzz_fake.inc"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"

db=$tmp/w/c.db
expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 \
  FAKE_SUMMARY="AddressSanitizer: heap-buffer-overflow /src/fast/kernel/widen_avx512.c:14:21 in fast_widen_avx512" \
  "$fz" fuzz --time 1 --jobs 3 --db "$db" --seed 1
got=$(sqlite3 "$db" "SELECT signature FROM findings WHERE kind = 'crash' ORDER BY signature" | tr '\n' ' ')
want="crash|fuzz_metamorphic|heap-buffer-overflow@fast/kernel/widen crash|fuzz_numeric|heap-buffer-overflow@fast/kernel/widen crash|fuzz_params|heap-buffer-overflow@fast/kernel/widen "
[ "$got" = "$want" ] && ok || bad "crash signatures '$got'"

# a SUMMARY that names an interceptor (no source file): the report's first
# frame in the tree names the site
db3=$tmp/w/c3.db
expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 \
  FAKE_SUMMARY="AddressSanitizer: heap-buffer-overflow (/out/fuzz_numeric+0x1edebb) (BuildId: c3e5) in __asan_memset" \
  FAKE_FRAMES="    #0 0x55d2 in __asan_memset (/out/fuzz_numeric+0x1edebb)\n    #1 0x55d3 in fast_store_zero /src/fiacheck/fast/run_output.c:24:5\n    #2 0x55d4 in task_store /src/fiacheck/fast/attention.c" \
  "$fz" fuzz --time 1 --jobs 3 --db "$db3" --seed 1
got=$(sqlite3 "$db3" "SELECT DISTINCT substr(signature, instr(signature, '|') + 1) FROM findings WHERE kind = 'crash'" | sed 's/^[a-z_]*|//' | sort -u | tr '\n' ' ')
[ "$got" = "heap-buffer-overflow@fast/run_output " ] && ok || bad "interceptor crash signatures '$got'"

# an out-of-bounds read inside a micro-kernel: named by its access at the
# first frame outside fast/kernel/ (where the offset was made), so the same
# bad pointer read by widen and by widen_t is one finding
db4=$tmp/w/c4.db
expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 \
  FAKE_SUMMARY="AddressSanitizer: heap-buffer-overflow /src/fiacheck/fast/kernel/widen_t_avx512.c:30:9 in fast_widen_t_avx512" \
  FAKE_FRAMES="READ of size 32 at 0x1 thread T0\n    #0 0x55d2 in fast_widen_t_avx512 /src/fiacheck/fast/kernel/widen_t_avx512.c:30:9\n    #1 0x55d3 in task_load_q /src/fiacheck/fast/attention.c:301:5\n0x1 is located 0 bytes after 512-byte region\nallocated by thread T0 here:\n    #0 0x55d5 in malloc /src/fiacheck/core/case_data.c:99" \
  "$fz" fuzz --time 1 --jobs 3 --db "$db4" --seed 1
got=$(sqlite3 "$db4" "SELECT DISTINCT signature FROM findings WHERE kind = 'crash'" | sed 's/^crash|[a-z_]*|//' | sort -u | tr '\n' ' ')
[ "$got" = "READ@fast/attention " ] && ok || bad "kernel crash signatures '$got'"

# no SUMMARY: the bucket, as before
db2=$tmp/w/c2.db
expect_exit 1 env FAKE_CRASH=1 FAKE_SLEEP=1 "$fz" fuzz --time 1 --jobs 3 --db "$db2" --seed 1
n=$(sqlite3 "$db2" "SELECT count(*) FROM findings WHERE kind = 'crash' AND signature NOT LIKE '%@%'")
[ "$n" = 3 ] && ok || bad "$n bucket-named crash findings, wanted 3"
finish
