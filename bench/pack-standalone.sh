#!/usr/bin/env bash
# Packs what the GPU machine (which has no MLIR) runs into gpu-run/: the
# standalone tools of a build configured with -DSEZM_STANDALONE_TOOLS=ON
# (see docs/performance.md), SeZM-min's artifact and the SO(2) kernels'
# artifact, compiled here by sezm-compile.
#   pack-standalone.sh STANDALONE_BUILD_DIR [BUILD_DIR]
set -euo pipefail
standalone=$1
build=${2:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/gpu-run/standalone
mkdir -p "$out/bin" "$out/lib"
cmake --build "$standalone" -j2 --target sezm-run sezm-exec make-so2-workload \
  SeZMExecutionTests sezm-md-example
xz -T2 -6 -c "$standalone/bin/sezm-run" > "$out/bin/sezm-run.xz"
xz -T2 -6 -c "$standalone/unittests/SeZMExecutionTests" \
  > "$out/bin/SeZMExecutionTests.xz"
cp "$standalone/bin/sezm-exec" "$standalone/bin/make-so2-workload" \
  "$standalone/bin/sezm-md-example" "$out/bin/"
cp "$standalone/lib/libsezm_runtime.so" "$out/lib/"
# The CPU JIT (sezm-run --verify, the execution tests) and CPU artifacts
# need OpenMP's runtime, which the GPU machine lacks.
cp -L /usr/lib/x86_64-linux-gnu/libomp.so.5 "$out/lib/"
python3 "$root/examples/sezm-min/make_weights.py" /tmp/sezm-min.safetensors
"$build/bin/sezm-compile" "$root/examples/sezm-min/model.mlir" \
  --forces-of energy --weights /tmp/sezm-min.safetensors \
  -o "$root/gpu-run/sezm-min.sezm"
"$build/bin/sezm-compile" "$root/bench/so2_kernels.mlir" \
  -o "$root/gpu-run/so2_kernels.sezm"
# The tools and SeZM-min's artifact together pass the device tool's 64 MiB
# carry only with the artifact compressed (h200-run.sh unpacks it).
xz -6 -k -f "$root/gpu-run/sezm-min.sezm"
du -sh "$root/gpu-run/standalone" "$root/gpu-run/"*.sezm*
