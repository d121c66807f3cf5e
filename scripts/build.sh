#!/usr/bin/env bash
# build.sh DIR [cmake options...]: configure and build fiacheck into DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$1; shift
cmake -S "$root" -B "$dir" -DFIA_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
