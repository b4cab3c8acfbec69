#!/usr/bin/env bash
# The main job (`make demo`): one SO(2) message-passing block of a SeZM model,
# compiled by sezm and run on the CPU with sezm-run.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
work="$build/demo"
rm -rf "$work"
python3 "$here/so2-block/make_inputs.py" "$work/inputs"
inputs=()
for name in positions src dst dst_order dst_rowptr features radial_to_kernel channel_basis; do
  inputs+=(--input "$name=$work/inputs/$name.npy")
done
"$build/bin/sezm-run" "$here/so2-block/so2_block.mlir" --entry message_block \
  "${inputs[@]}" --device cpu --output-dir "$work/outputs"
echo "results written to $work/outputs/"
