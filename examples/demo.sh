#!/usr/bin/env bash
# The main job (`make demo`): energy, forces and virial of a periodic box of
# 32 water molecules under a two-block SO(2) message-passing model, compiled
# by sezm (forces by sezm-autodiff) and run on the CPU with sezm-run, which
# reads the structure and builds its neighbour graph itself.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
work="$build/demo"
rm -rf "$work"
python3 "$here/water/make_weights.py" "$work/weights"
"$build/bin/sezm-run" "$here/water/model.mlir" --forces-of energy \
  --structure "$here/water/water-box.xyz" --cutoff 6 --species H,O \
  --input embedding="$work/weights/embedding.npy" \
  --input radial_to_kernel="$work/weights/radial_to_kernel.npy" \
  --input channel_basis="$work/weights/channel_basis.npy" \
  --device cpu --output-dir "$work/outputs"
echo "energy, forces and virial written to $work/outputs/ (.npy)"
