#!/usr/bin/env bash
# Installs the Debian packages fiacheck needs, when they are missing.
# Safe to run repeatedly; does nothing when everything is there.
set -euo pipefail
# gnuplot-nox draws the plots of `fiacheck report`; chromium renders its page
# headless in tests/cli/report.sh.  python3-numpy runs the NumPy worker
# (workers/numpy) and the interface scripts `fiacheck export` writes;
# python3-torch the torch_npu stand-in they are tested against.
pkgs=(gcc make cmake clang libclang-rt-14-dev libmpfr-dev libgmp-dev
      libsqlite3-dev sqlite3 libopenblas-dev libdnnl-dev gnuplot-nox chromium
      python3-numpy python3-torch)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fiacheck: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "fiacheck: need root to install packages: ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
