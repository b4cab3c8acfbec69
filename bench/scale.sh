#!/usr/bin/env bash
# Time and memory against N (issue 26, item 3): for each atom count, the
# seeded workload structure (make-so2-workload: the bench density, ~158
# neighbours within 6 A), the artifact's planned peak (sezm-run --plan),
# and, where the plan fits the device, one run of its energy_forces entry
# on the structure with the graph built on the GPU (sezm-run --bench: the
# median step, the device peak, the neighbour search's median). Then
# bench/scale_table.py prints the table and plots time and memory against N.
# With SCALE_GRAPH_CHECK=1, each structure's GPU graph is also compared with
# the host list edge by edge (bench/graph_check.mlir, sezm-run --verify;
# SCALE_CUTOFF, default 6 A: the artifact's cutoff).
#   scale.sh ARTIFACT BIN_DIR DEVICE_GB N[,N...] [RUNS] [OUT_DIR]
set -euo pipefail
artifact=$1
bin=$2
device_gb=$3
sizes=$4
runs=${5:-5}
out=${6:-/tmp/sezm-scale}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for atoms in $(echo "$sizes" | tr , ' '); do
  work=/tmp/sezm-scale-$atoms
  rm -rf "$work"
  "$bin/make-so2-workload" "$atoms" "$work" --structure-only > /dev/null
  log=$out/scale-$atoms.log
  "$bin/sezm-run" "$artifact" --entry energy_forces \
    --structure "$work/structure.xyz" --plan "$atoms" \
    --plan-memory "$device_gb" > "$log"
  # Past the plan's largest N the run would only fail for memory.
  fits=$(sed -n 's/.*up to N = \([0-9]*\) atoms.*/\1/p' "$log")
  if [ -n "$fits" ] && [ "$atoms" -le "$fits" ]; then
    "$bin/sezm-run" "$artifact" --entry energy_forces \
      --structure "$work/structure.xyz" --bench "$runs" 2>&1 |
      grep -v "^  kernel" >> "$log" || echo "run failed" >> "$log"
  else
    echo "does not fit in $device_gb GB" >> "$log"
  fi
  if [ "${SCALE_GRAPH_CHECK:-0}" = 1 ]; then
    "$bin/sezm-run" "$here/graph_check.mlir" --structure "$work/structure.xyz" \
      --cutoff "${SCALE_CUTOFF:-6}" --verify --rtol 0 --atol 0 \
      > "$out/graph-$atoms.log" 2>&1 ||
      echo "graph check failed" >> "$out/graph-$atoms.log"
  fi
  rm -rf "$work"
done
python3 "$here/scale_table.py" "$out"/scale-*.log --plot "$out/scale.png"
