#!/usr/bin/env bash
# On a GPU machine: SeZM-min's energy, forces and virial at N atoms (the
# positions of the SO(2) kernel workload, performance.md) through its
# artifact on the GPU, timed by sezm-run (CUDA events, per-kernel medians),
# then the PyTorch implementation of the same model with the same weights
# (bench/sezm_min_torch.py), eager and torch.compile, checked against sezm's
# results in the same run.
#   sezm-min-bench.sh SEZM_MIN.sezm BIN_DIR N [RUNS]
set -euo pipefail
artifact=$1
bin=$2
atoms=$3
runs=${4:-20}
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/sezm-min-$atoms
rm -rf "$work"
"$bin/make-so2-workload" "$atoms" "$work" --structure-only
python3 "$here/../examples/sezm-min/make_weights.py" "$work/weights.safetensors"
"$bin/sezm-run" "$artifact" --entry energy_forces \
  --structure "$work/structure.xyz" --cutoff 6 --species H,O \
  --output-dir "$work/sezm" --bench "$runs"
python3 "$here/sezm_min_torch.py" --structure "$work/structure.xyz" \
  --weights "$work/weights.safetensors" --expect "$work/sezm" \
  --bench "$runs" --compile
