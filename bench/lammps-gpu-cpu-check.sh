#!/usr/bin/env bash
# An artifact with CPU and GPU code (sezm-compile --target all), xz'd under
# gpu-run/, on the H200: LAMMPS step 0 through the pair style's GPU path
# against its CPU path on the same artifact (bench/water-model/in.step0,
# bench/compare-lammps-step0.py, 96-atom water), then sezm-md-example's time
# per call (the device-resident entry) at 96 and 2,592 atoms. Unpacks LAMMPS
# and MPICH as bench/lammps-md.sh does. Carried: gpu-run/lammps.tar.xz,
# gpu-run/mpich-libs.zip, gpu-run/standalone, the artifact, and
# gpu-run/water-md/water-300K{,-x3}.data and water-300K-x3.xyz.
#   lammps-gpu-cpu-check.sh gpu-run/ARTIFACT.sezm.xz   (logs under $OUT)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
packed=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${OUT:-/tmp/gpu-cpu-check}
mkdir -p "$out" /tmp/lammps-pack /tmp/mpich
tar xJf "$root/gpu-run/lammps.tar.xz" -C /tmp/lammps-pack
python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, '/tmp/mpich') for n in z.namelist() if '/data/lib/' in n]" \
  "$root/gpu-run/mpich-libs.zip"
mpich_lib=$(dirname "$(find /tmp/mpich -name libmpi.so.12 | head -1)")
export LD_LIBRARY_PATH=$mpich_lib:$root/gpu-run/standalone/lib
xz -d -k -f "$packed"
model=${packed%.xz}
name=$(basename "$model" .sezm)
cd "$root/gpu-run/water-md"
echo "=== $name: LAMMPS step 0, GPU against CPU"
for d in cpu gpu; do
  /tmp/lammps-pack/lammps/lmp -in "$root/bench/water-model/in.step0" \
    -log "$out/$name-$d.log" -var plugin "$root/gpu-run/standalone/lib/sezmplugin.so" \
    -var model "$model" -var data water-300K.data -var device $d \
    -var out "$out/$name-$d" > /dev/null 2>&1 || grep ERROR "$out/$name-$d.log"
done
python3 "$root/bench/compare-lammps-step0.py" "$out/$name-cpu.log" \
  "$out/$name-cpu.dump" "$out/$name-gpu.log" "$out/$name-gpu.dump"
for box in "$root/bench/water-model/water-300K.xyz" water-300K-x3.xyz; do
  "$root/gpu-run/standalone/bin/sezm-md-example" "$model" "$box" --double \
    --steps 20 2>&1 | tail -4
done
