#!/usr/bin/env bash
# On a GPU machine: SeZM-min's energy, forces and virial at N atoms (the
# positions of the SO(2) kernel workload, performance.md) through its
# artifact on the GPU, timed by sezm-run (CUDA events, median of 20).
#   sezm-min-bench.sh SEZM_MIN.sezm BIN_DIR N
set -euo pipefail
artifact=$1
bin=$2
atoms=$3
root=$(cd "$(dirname "$0")/.." && pwd)
work=/tmp/sezm-min-$atoms
rm -rf "$work"
"$bin/make-so2-workload" "$atoms" "$work" --structure-only
"$bin/sezm-run" "$artifact" --entry energy_forces \
  --structure "$work/structure.xyz" --cutoff 6 --species H,O \
  --output-dir "$work/sezm" --bench 20
