# One device call: the chunked build after sezm-chunk-edges stopped
# recomputing the aggregation's backward, against the whole build.
B=bench/h200-run.sh
T=gpu-run/standalone/bin
xz -d -k -f $T/sezm-run.xz; chmod +x $T/sezm-run
for a in sezm-min sezm-min-chunk; do xz -d -k -f gpu-run/$a.sezm.xz; done
export LD_LIBRARY_PATH=$PWD/gpu-run/standalone/lib:$LD_LIBRARY_PATH
$T/make-so2-workload 4096 /tmp/w4096 --structure-only > /dev/null
for a in sezm-min-chunk sezm-min; do
  timeout 60 $T/sezm-run gpu-run/$a.sezm --entry energy_forces --structure /tmp/w4096/structure.xyz --bench 5 > $OUT/kernels-$a-4096.log 2>&1
  echo "=== $a"; grep -E "median" $OUT/kernels-$a-4096.log | grep -v kernel
done
SCALE_ARTIFACT=gpu-run/sezm-min-chunk.sezm OUT=$OUT/chunk timeout 200 bash $B scale:4096,16384 2>&1 | grep -A4 "^| atoms"
