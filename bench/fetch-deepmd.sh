#!/usr/bin/env bash
# On the development machine (the GPU machine has no internet): downloads
# the deepmd-kit wheel and unpacks the files its SeZM Triton kernels need
# into DIR, for so2_compare.py --deepmd DIR.
#   fetch-deepmd.sh DIR [VERSION]
set -euo pipefail
dir=$1
version=${2:-3.2.0}
wheels=$(mktemp -d)
python3 -m pip download -q --no-deps --only-binary=:all: \
  --platform manylinux_2_28_x86_64 --python-version 3.12 \
  -d "$wheels" "deepmd-kit==$version"
mkdir -p "$dir"
python3 - "$wheels"/deepmd_kit-*.whl "$dir" <<'PY'
import sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if (name.startswith("deepmd/kernels/triton/sezm/")
                or name == "deepmd/pt/model/descriptor/sezm_nn/indexing.py"):
            archive.extract(name, target)
PY
rm -rf "$wheels"
echo "deepmd-kit $version SeZM Triton kernels in $dir"
