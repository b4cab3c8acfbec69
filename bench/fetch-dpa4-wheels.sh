#!/usr/bin/env bash
# Fetches what the GPU machine (no internet, PyTorch already there) needs to
# run DeePMD-kit 3.2.0's own eval beside sezm in bench/h200-run.sh's dpa4
# steps and to train bench/water-model, into gpu-run/: the wheels of deepmd-kit and of what it imports that
# the machine lacks (gpu-run/wheels), and mpich's libraries alone
# (gpu-run/mpich-libs.zip: libmpi and the five libraries it links, LZMA,
# 4.2 MB; the whole wheel does not fit the device tool's carry beside an
# artifact, and the network providers it loads at MPI_Init are not needed
# on one rank).
#   fetch-dpa4-wheels.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wheels=$root/gpu-run/wheels
mkdir -p "$wheels"
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64
           --platform manylinux_2_17_x86_64 --platform any)
python3 -m pip download -q --no-deps --only-binary=:all: "${platforms[@]}" \
  --python-version 3.12 -d "$wheels" "deepmd-kit==3.2.0" dargs wcmatch \
  bracex array-api-compat lmdb vesin vesin-torch typeguard
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: "${platforms[@]}" \
  --python-version 3.12 -d "$scratch" mpich
(cd "$scratch" && python3 -c "
import glob, zipfile
wheel = zipfile.ZipFile(glob.glob('mpich-*.whl')[0])
keep = ('libmpi.so.12', 'libfabric.so.1', 'libucp.so.0', 'libuct.so.0',
        'libucs.so.0', 'libucm.so.0')
with zipfile.ZipFile('$root/gpu-run/mpich-libs.zip', 'w', zipfile.ZIP_LZMA) as out:
    for name in wheel.namelist():
        if '/data/lib/' in name and name.rsplit('/', 1)[-1] in keep:
            out.writestr(name, wheel.read(name))
")
du -sh "$wheels" "$root/gpu-run/mpich-libs.zip"
