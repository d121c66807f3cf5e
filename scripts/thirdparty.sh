#!/usr/bin/env bash
# thirdparty.sh [--fuzz] [--coverage]: the kernels nobody here wrote, installed into the
# build tree (never committed): llama.cpp's ggml and ONNX Runtime, from the
# npm registry at pinned versions.
#
#   build/thirdparty/npm/            the npm packages (node-llama-cpp ships
#                                    llama.cpp's source as a git bundle;
#                                    onnxruntime-node ships libonnxruntime)
#   build/thirdparty/llama.cpp/      the bundle, cloned (offline)
#   build/thirdparty/ggml/           ggml's static libraries, built plain
#                                    (Release, position independent)
#   build/thirdparty/ggml-fuzz/      --fuzz: again with clang and the fuzz
#                                    build's flags, so that a campaign's
#                                    coverage feedback includes ggml's code
#                                    (UBSan without its C++-only vptr and
#                                    function checks, whose runtime a C
#                                    program lacks)
#   build/thirdparty/ggml-cov/       --coverage: again with clang's source
#                                    coverage (-fprofile-instr-generate
#                                    -fcoverage-mapping), for
#                                    scripts/ggml_coverage.sh
#   build/thirdparty/onnxruntime/    libonnxruntime.so.1 and its version
#
# CMake finds them there (plugins/CMakeLists.txt).  Exit status: 0 done (or
# already there), 3 not available here -- the registry could not be
# reached; the reason is in build/thirdparty/UNAVAILABLE and the plug-ins'
# tests report SKIPPED with it -- and 2 anything else that went wrong.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${FIACHECK_THIRDPARTY_DIR:-$root/build/thirdparty}
fuzz=0 cov=0
for a in "$@"; do
  case $a in
  --fuzz) fuzz=1 ;;
  --coverage) cov=1 ;;
  *) echo "thirdparty.sh: unknown option $a (--fuzz, --coverage)" >&2; exit 2 ;;
  esac
done
# The versions are part of every campaign's record (the plug-ins' version
# strings name them): change them here only.
LLAMA_NPM=node-llama-cpp@3.21.1
ORT_NPM=onnxruntime-node@1.30.0
mkdir -p "$dir"
rm -f "$dir/UNAVAILABLE"

unavailable() {
  echo "$*" >"$dir/UNAVAILABLE"
  echo "thirdparty.sh: $*" >&2
  exit 3
}

# 1. The npm packages.  --ignore-scripts: onnxruntime-node's install script
# fetches GPU binaries from a host these machines cannot reach;
# --omit=optional: node-llama-cpp's prebuilt binaries (CUDA and Vulkan
# builds among them, ~700 MB) are not used, ggml is built from the bundle.
stamp="$dir/npm/.installed"
want="$LLAMA_NPM $ORT_NPM"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # a fresh Debian 12 has neither: its own packages, when root
  for tool in npm git; do
    command -v "$tool" >/dev/null && continue
    if [ "$(id -u)" -eq 0 ]; then
      echo "thirdparty.sh: installing $tool (apt)" >&2
      export DEBIAN_FRONTEND=noninteractive
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
          "$tool"; } >"$dir/apt-$tool.log" 2>&1 ||
        unavailable "apt-get install $tool failed: see $dir/apt-$tool.log"
    else
      unavailable "$tool not found and not root (Debian: apt-get install $tool)"
    fi
  done
  rm -rf "$dir/npm"
  mkdir -p "$dir/npm"
  echo '{"name":"fiacheck-thirdparty","private":true}' >"$dir/npm/package.json"
  if ! (cd "$dir/npm" && timeout 600 npm install --no-audit --no-fund \
          --ignore-scripts --omit=optional --save-exact $want) \
          >"$dir/npm.log" 2>&1; then
    tail -5 "$dir/npm.log" >&2
    unavailable "npm install $want failed (no registry?): see $dir/npm.log"
  fi
  echo "$want" >"$stamp"
fi
nm=$dir/npm/node_modules

# 2. llama.cpp's source from the bundle, at the bundle's one commit.
bundle=$nm/node-llama-cpp/llama/gitRelease.bundle
[ -f "$bundle" ] || { echo "thirdparty.sh: $bundle missing" >&2; exit 2; }
if [ ! -f "$dir/llama.cpp/.bundle-stamp" ] ||
   [ "$(cat "$dir/llama.cpp/.bundle-stamp")" != "$LLAMA_NPM" ]; then
  rm -rf "$dir/llama.cpp"
  git clone -q "$bundle" "$dir/llama.cpp" 2>"$dir/clone.log" ||
    { cat "$dir/clone.log" >&2; exit 2; }
  echo "$LLAMA_NPM" >"$dir/llama.cpp/.bundle-stamp"
fi

# 3. ggml, CPU backend only, static and position independent (linked into
# the plug-in), its own thread pool (no OpenMP: the plug-in sets threads).
build_ggml() { # OUTDIR CC CXX CFLAGS
  local out=$1 cc=$2 cxx=$3 flags=$4
  local key="$LLAMA_NPM|$cc|$flags"
  if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$key" ]; then
    return 0
  fi
  rm -rf "$out"
  if ! { cmake -S "$dir/llama.cpp" -B "$out" -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
           -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
           -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
           -DGGML_NATIVE=ON -DGGML_OPENMP=OFF -DGGML_CCACHE=OFF \
           -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
           -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
           -DLLAMA_BUILD_COMMON=OFF -DLLAMA_CURL=OFF &&
         cmake --build "$out" -j"$(nproc)" --target ggml-base ggml-cpu; } \
       >"$out.log" 2>&1; then
    tail -20 "$out.log" >&2
    echo "thirdparty.sh: building ggml into $out failed: $out.log" >&2
    exit 2
  fi
  echo "$key" >"$out/.stamp"
}
# line tables only (-g1): a stack still names file and line, and the
# build takes a quarter less CPU than with -g
build_ggml "$dir/ggml" "${CC:-gcc}" "${CXX:-g++}" "-O2 -g1"
if [ "$fuzz" = 1 ]; then
  build_ggml "$dir/ggml-fuzz" clang clang++ \
    "-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr,function"
fi
if [ "$cov" = 1 ]; then
  build_ggml "$dir/ggml-cov" clang clang++ \
    "-O1 -g -fprofile-instr-generate -fcoverage-mapping"
fi

# 4. ONNX Runtime's CPU library, as the package ships it.
ort=$nm/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
[ -f "$ort" ] || { echo "thirdparty.sh: $ort missing" >&2; exit 2; }
mkdir -p "$dir/onnxruntime"
cp -f "$ort" "$dir/onnxruntime/libonnxruntime.so.1"
sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' \
  "$nm/onnxruntime-node/package.json" | head -1 >"$dir/onnxruntime/VERSION"
echo "thirdparty.sh: ggml ($LLAMA_NPM) and onnxruntime ($ORT_NPM) in $dir" >&2
