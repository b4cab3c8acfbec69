#!/usr/bin/env bash
# Builds what `h200-run.sh gemm-precision:E` runs into gpu-run/: the GEMM-
# shaped ops of bench/gemm_precision.mlir for the GPU with --gemm-precision
# ieee and tf32x3, and in fp64 for the CPU (the reference).
#   pack-gemm-precision.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/gpu-run/gemm-precision"
for precision in ieee tf32x3; do
  "$build/bin/sezm-compile" "$root/bench/gemm_precision.mlir" --target gpu \
    --gemm-precision "$precision" -o "$root/gpu-run/gemm-precision/$precision.sezm"
done
sed 's/f32/f64/g' "$root/bench/gemm_precision.mlir" > /tmp/gemm_precision_f64.mlir
"$build/bin/sezm-compile" /tmp/gemm_precision_f64.mlir --target cpu \
  -o "$root/gpu-run/gemm-precision/f64.sezm"
du -sh "$root"/gpu-run/gemm-precision
# The fp64 module's CPU code needs the OpenMP runtime where it runs.
mkdir -p "$root/gpu-run/standalone/lib"
cp -L /usr/lib/x86_64-linux-gnu/libomp.so.5 \
  "$root/gpu-run/standalone/lib/"
