#!/usr/bin/env bash
# ggml_coverage.sh TARGET:DIR...: how much of ggml's CPU flash attention a
# corpus reaches -- line and branch coverage (llvm-cov) of the functions of
# ggml/src/ggml-cpu/ops.cpp that compute ggml_flash_attn_ext, after
# replaying each DIR's inputs through fuzz_TARGET's replay driver with the
# ggml plug-in as the system under test.  A campaign's corpus is its
# working directory's corpus/fuzz_<target>:
#
#   build/fuzz/fiacheck fuzz --sut build/fuzz/plugins/libfiacheck_sut_ggml.so \
#       --target numeric --time 600 --workdir /tmp/camp
#   bash scripts/ggml_coverage.sh numeric:/tmp/camp/corpus/fuzz_numeric
#
# Builds ggml with clang's source coverage (scripts/thirdparty.sh
# --coverage) and the plug-in and replay drivers against it in
# build/ggml-cov/.  Exit 2 on bad usage or a failed build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if [ $# -eq 0 ]; then
  echo "usage: ggml_coverage.sh TARGET:DIR... (TARGET numeric or metamorphic)" >&2
  exit 2
fi
for a in "$@"; do
  case ${a%%:*} in
  numeric | metamorphic) ;;
  *) echo "ggml_coverage.sh: $a: TARGET is numeric or metamorphic" >&2; exit 2 ;;
  esac
  [ -d "${a#*:}" ] || { echo "ggml_coverage.sh: ${a#*:}: no such directory" >&2; exit 2; }
done
bash scripts/thirdparty.sh --coverage || exit 2
out=$root/build/ggml-cov
flags="-O1 -g -fprofile-instr-generate -fcoverage-mapping"
cmake -S "$root" -B "$out" -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_BUILD_TYPE=None >/dev/null || exit 2
cmake --build "$out" -j"$(nproc)" --target fiacheck_sut_ggml \
  fuzz_numeric_replay fuzz_metamorphic_replay >/dev/null || exit 2
so=$out/plugins/libfiacheck_sut_ggml.so
rm -rf "$out/profiles"
mkdir -p "$out/profiles"
for a in "$@"; do
  t=${a%%:*} d=${a#*:}
  echo "replaying $(ls "$d" | wc -l) inputs of $d through fuzz_${t}_replay" >&2
  LLVM_PROFILE_FILE="$out/profiles/$t-%p.profraw" FIACHECK_SUT=$so \
    FIACHECK_ON_FINDING=record "$out/fuzz_${t}_replay" "$d" \
    >"$out/replay-$t.log" 2>&1 || true # findings are not this script's business
done
llvm-profdata merge -sparse "$out"/profiles/*.profraw -o "$out/ggml.profdata"
ops=$root/build/thirdparty/llama.cpp/ggml/src/ggml-cpu/ops.cpp
# per function of ops.cpp: regions, functions, lines, branches
llvm-cov report --show-functions -instr-profile "$out/ggml.profdata" "$so" \
  "$ops" >"$out/functions.txt"
head -2 "$out/functions.txt"
grep -E "flash_attn_ext" "$out/functions.txt" | grep -v "flash_attn_back"
# the flash-attention functions together: lines and branches
awk '/flash_attn_ext/ && !/flash_attn_back/ {
       # Name Regions Miss Cover Lines Miss Cover Branches Miss Cover
       l += $5; lm += $6; b += $8; bm += $9 }
     END { printf "flash attention (ops.cpp): lines %d/%d (%.1f%%), branches %d/%d (%.1f%%)\n",
           l - lm, l, l ? 100 * (l - lm) / l : 0, b - bm, b, b ? 100 * (b - bm) / b : 0 }' \
  "$out/functions.txt"
