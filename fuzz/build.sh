#!/usr/bin/env bash
# Builds the fuzz targets under the OSS-Fuzz build contract, so OSS-Fuzz,
# ClusterFuzzLite or Centipede can run them unchanged:
#   $CC, $CFLAGS             compiler and flags (sanitizers and coverage come
#                            from here: nothing is hard-coded)
#   $LIB_FUZZING_ENGINE      the engine to link (-fsanitize=fuzzer for
#                            libFuzzer, a library path for Centipede)
#   $OUT                     where the binaries, dictionaries and seed
#                            corpora go
# Optional: $WORK (scratch; default $OUT/.build), $FIA_CMAKE_ARGS,
# $FIA_FUZZ_NOSAN (default 1).
# Produces $OUT/fuzz_<t> for each target t of fuzz/targets.def, their .dict and
# _seed_corpus.zip (when zip exists), the replay drivers, fiacheck-plugin-worker and fiacheck
# itself (so `$OUT/fiacheck fuzz` finds the targets beside it).  When
# $CFLAGS asks for ASan or UBSan (and FIA_FUZZ_NOSAN is not 0), also
# $OUT/fuzz_<t>_nosan: the same targets without those sanitizers, several
# times faster; `fiacheck fuzz` runs them beside the sanitized ones (every
# target keeps sanitized workers: docs/cli.md), and fiacheck-bench-fuzz
# built the same way (`$OUT/fiacheck bench --fuzz`).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
: "${CC:?set CC (e.g. clang)}" "${OUT:?set OUT}"
: "${LIB_FUZZING_ENGINE:?set LIB_FUZZING_ENGINE (e.g. -fsanitize=fuzzer)}"
CFLAGS=${CFLAGS:-}
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd) # the seed zips are made from elsewhere
work=${WORK:-$OUT/.build}/fiacheck-fuzz
mapfile -t targets < <(bash "$src/fuzz/target_names.sh")
binaries=() replays=()
for t in "${targets[@]}"; do binaries+=("fuzz_$t"); replays+=("fuzz_${t}_replay"); done
mkdir -p "$OUT" "$work"
# shellcheck disable=SC2086
cmake -S "$src" -B "$work" -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$CFLAGS" \
      -DCMAKE_BUILD_TYPE=None -DFIA_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
      ${FIA_CMAKE_ARGS:-} >/dev/null
cmake --build "$work" -j"$(nproc)" --target fiacheck fiacheck-plugin-worker \
      "${binaries[@]}" "${replays[@]}" >/dev/null
for t in "${targets[@]}"; do
  cp "$work/fuzz_$t" "$work/fuzz_${t}_replay" "$OUT/"
  if [ -f "$src/corpus/fuzz_$t/fuzz_$t.dict" ]; then
    cp "$src/corpus/fuzz_$t/fuzz_$t.dict" "$OUT/"
  fi
  if command -v zip >/dev/null 2>&1; then
    rm -f "$OUT/fuzz_${t}_seed_corpus.zip"
    (cd "$src/corpus/fuzz_$t" && zip -q -j "$OUT/fuzz_${t}_seed_corpus.zip" \
       $(ls | grep -v '\.dict$')) || true
  fi
done
cp "$work/fiacheck" "$OUT/"
# the worker `$OUT/fiacheck survey --sut PLUGIN.so` calls a plug-in in
# (run, repro, minimize and survey call plug-ins out of process)
cp "$work/fiacheck-plugin-worker" "$OUT/"
# The third-party kernels' plug-ins, built with the same flags when
# scripts/thirdparty.sh installed them (ggml from its copy built with the
# fuzz flags: `fiacheck fuzz --sut $OUT/plugins/libfiacheck_sut_ggml.so`
# is then guided by ggml's own coverage too)
for p in ggml onnxruntime; do
  if cmake --build "$work" --target help | grep "fiacheck_sut_$p\$" >/dev/null; then
    cmake --build "$work" -j"$(nproc)" --target "fiacheck_sut_$p" >/dev/null
    mkdir -p "$OUT/plugins"
    cp "$work/plugins/libfiacheck_sut_$p.so" "$OUT/plugins/"
  fi
done

# CFLAGS without address/undefined in its -fsanitize= lists (and without
# the sanitizers' recover switches)
nosan=
for w in $CFLAGS; do
  case $w in
    -fno-sanitize-recover*|-fsanitize-recover*) ;;
    -fsanitize=*)
      keep=
      IFS=, read -ra parts <<<"${w#-fsanitize=}"
      for p in "${parts[@]}"; do
        case $p in address|undefined) ;; *) keep=${keep:+$keep,}$p ;; esac
      done
      [ -n "$keep" ] && nosan="$nosan -fsanitize=$keep" ;;
    *) nosan="$nosan $w" ;;
  esac
done
for t in "${targets[@]}"; do rm -f "$OUT/fuzz_${t}_nosan"; done
if [ "${FIA_FUZZ_NOSAN:-1}" != 0 ] && [ "$nosan" != " $CFLAGS" ] &&
   [ "$(echo $nosan)" != "$(echo $CFLAGS)" ]; then
  # shellcheck disable=SC2086
  cmake -S "$src" -B "$work-nosan" -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_C_FLAGS="$nosan" -DCMAKE_BUILD_TYPE=None \
        -DFIA_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" ${FIA_CMAKE_ARGS:-} >/dev/null
  cmake --build "$work-nosan" -j"$(nproc)" --target "${binaries[@]}" \
        fiacheck-bench-fuzz >/dev/null
  for t in "${targets[@]}"; do
    cp "$work-nosan/fuzz_$t" "$OUT/fuzz_${t}_nosan"
  done
  # `$OUT/fiacheck bench --fuzz`: the in-process figure without sanitizers,
  # then real campaigns of the binaries beside it
  cp "$work-nosan/fiacheck-bench-fuzz" "$OUT/"
fi
