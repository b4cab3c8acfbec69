#!/usr/bin/env bash
# Compiles every module of a case folder written by the execution tests
# (SEZM_GPU_CASES=<dir> SeZMExecutionTests) into a GPU library.
#   compile-cases.sh CASES_DIR [BUILD_DIR]
set -euo pipefail
cases=$1
build=${2:-build}
for module in "$cases"/*/module.mlir; do
  dir=$(dirname "$module")
  "$build/bin/sezm-compile" "$module" -o "$dir/module.so" --chip sm_90
  echo "compiled $(basename "$dir")"
done
