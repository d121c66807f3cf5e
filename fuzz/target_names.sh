#!/usr/bin/env bash
# target_names.sh: prints the fuzz targets' names (params, numeric, ...), one
# a line, from fuzz/targets.def, the one list the C code, CMake and the
# scripts share.
sed -n 's/^FUZZ_TARGET(\([a-z_0-9]*\),.*/\1/p' "$(dirname "$0")/targets.def"
