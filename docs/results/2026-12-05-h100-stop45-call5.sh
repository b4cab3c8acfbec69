# One device call: the chunked build's energy, forces and virial against the
# whole build's on the GPU, 4096 atoms.
T=gpu-run/standalone/bin
xz -d -k -f $T/sezm-run.xz; chmod +x $T/sezm-run
for a in sezm-min sezm-min-chunk; do xz -d -k -f gpu-run/$a.sezm.xz; done
export LD_LIBRARY_PATH=$PWD/gpu-run/standalone/lib:$LD_LIBRARY_PATH
$T/make-so2-workload 4096 /tmp/w4096 --structure-only > /dev/null
for a in sezm-min sezm-min-chunk; do
  $T/sezm-run gpu-run/$a.sezm --entry energy_forces --structure /tmp/w4096/structure.xyz --output-dir /tmp/out-$a 2>&1 | tail -2
done
python3 bench/compare-npy.py /tmp/out-sezm-min /tmp/out-sezm-min-chunk 2>&1 | tail -4
for a in sezm-min sezm-min-chunk; do $T/sezm-run gpu-run/$a.sezm --entry energy_forces --structure /tmp/w4096/structure.xyz --output-dir /tmp/again-$a > /dev/null 2>&1; cmp /tmp/out-$a/forces.npy /tmp/again-$a/forces.npy && echo "$a: forces repeat bit for bit"; done
