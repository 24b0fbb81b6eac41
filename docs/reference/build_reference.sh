#!/usr/bin/env bash
# Builds the API reference (Doxygen: HTML + XML in <out>) and writes docs/functions.md from its
# XML, or with --check fails when docs/functions.md is stale. Any Doxygen warning fails the build
# (docs/reference/Doxyfile: WARN_AS_ERROR). Run by the CMake targets lazuli_doc and
# lazuli_function_index and by the test api_reference_builds_without_warnings_and_the_index_is_current.
# Usage: build_reference.sh <doxygen> <python3> <lazuli source> <out dir> [--check]
set -euo pipefail
doxygen=$1 python=$2 src=$3 out=$4 mode=${5:-}
rm -rf "$out"
mkdir -p "$out"
cd "$src"
LZ_DOC_OUT=$out "$doxygen" docs/reference/Doxyfile
"$python" docs/reference/function_index.py "$out/xml" docs/functions.md $mode
echo "API reference: $out/html/index.html"
