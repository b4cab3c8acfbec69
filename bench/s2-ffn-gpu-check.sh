#!/usr/bin/env bash
# The imported S2-FFN model (test/Import/fixtures/sezm-min-s2-ffn.model.ckpt.pt,
# compiled here with `sezm-compile --target all`, xz'd to
# gpu-run/s2ffn-all.sezm.xz) on the H200: LAMMPS step 0 through the GPU path
# against the CPU path of the same artifact (bench/water-model/in.step0,
# bench/compare-lammps-step0.py), and sezm-md-example's time per call at 96
# and 2,592 atoms. Runs bench/lammps-md.sh's peratom part first (which also
# unpacks LAMMPS and MPICH). Carried: what lammps-md.sh needs, and
# gpu-run/s2ffn-all.sezm.xz.
#   s2-ffn-gpu-check.sh   (logs under $OUT)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/s2-ffn-check}
mkdir -p "$out"
bash "$root/bench/lammps-md.sh" "$out/md" peratom 2>&1 | tail -5
xz -d -k -f "$root/gpu-run/s2ffn-all.sezm.xz"
mpich_lib=$(dirname "$(find /tmp/mpich -name libmpi.so.12 | head -1)")
export LD_LIBRARY_PATH=$mpich_lib:$root/gpu-run/standalone/lib
model=$root/gpu-run/s2ffn-all.sezm
cd "$root/gpu-run/water-md"
echo "=== S2-FFN model: LAMMPS step 0, GPU against CPU"
for d in cpu gpu; do
  /tmp/lammps-pack/lammps/lmp -in "$root/bench/water-model/in.step0" \
    -log "$out/s2-$d.log" -var plugin "$root/gpu-run/standalone/lib/sezmplugin.so" \
    -var model "$model" -var data water-300K.data -var device $d \
    -var out "$out/s2-$d" > /dev/null 2>&1 || grep ERROR "$out/s2-$d.log"
done
python3 "$root/bench/compare-lammps-step0.py" "$out/s2-cpu.log" "$out/s2-cpu.dump" \
  "$out/s2-gpu.log" "$out/s2-gpu.dump"
for box in "$root/bench/water-model/water-300K.xyz" water-300K-x3.xyz; do
  "$root/gpu-run/standalone/bin/sezm-md-example" "$model" "$box" --double \
    --steps 20 2>&1 | tail -4
done
