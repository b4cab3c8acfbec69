#!/usr/bin/env bash
# DeePMD-kit's argcheck default DPA4 (test/Import/fixtures/dpa4-default.model.ckpt.pt,
# compiled here with `sezm-compile --target all` and xz'd to
# gpu-run/default-dpa4.sezm.xz) on the H200: sezm-md-example on the CPU code
# (host entry, all cores) against the GPU code (device-resident f64 entry)
# at 96 atoms, then the GPU's time per call and peak at 2,592 atoms.
# Carried: gpu-run/standalone, the artifact, gpu-run/water-md/water-300K-x3.xyz.
#   default-dpa4-check.sh   (logs under $OUT)
set -u
export LD_LIBRARY_PATH=$PWD/gpu-run/standalone/lib
xz -d -k -f gpu-run/default-dpa4.sezm.xz
m=gpu-run/default-dpa4.sezm
ex=gpu-run/standalone/bin/sezm-md-example
box=bench/water-model/water-300K.xyz
echo "=== default DPA4, 96 atoms: CPU (host entry, 16 threads) then GPU (device-resident f64 entry)"
$ex $m $box --device cpu --steps 2 --output-dir $OUT/cpu96 2>&1 | tail -3
$ex $m $box --double --steps 20 --output-dir $OUT/gpu96 2>&1 | tail -3
for q in energy forces virial; do echo -n "$q GPU vs CPU: "; python3 utils/npytool.py relerr $OUT/gpu96/$q.npy $OUT/cpu96/$q.npy 1 | tail -1; done
echo "=== 2592 atoms, GPU"
$ex $m gpu-run/water-md/water-300K-x3.xyz --double --steps 20 2>&1 | tail -3
