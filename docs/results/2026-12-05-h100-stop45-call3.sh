# One device call: why the chunked build is slower (its kernels at 4096), and
# the unchunked build at 16384.
B=bench/h200-run.sh
T=gpu-run/standalone/bin
xz -d -k -f $T/sezm-run.xz; chmod +x $T/sezm-run
for a in sezm-min sezm-min-chunk; do xz -d -k -f gpu-run/$a.sezm.xz; done
export LD_LIBRARY_PATH=$PWD/gpu-run/standalone/lib:$LD_LIBRARY_PATH
$T/make-so2-workload 4096 /tmp/w4096 --structure-only > /dev/null
for a in sezm-min-chunk sezm-min; do
  timeout 60 $T/sezm-run gpu-run/$a.sezm --entry energy_forces --structure /tmp/w4096/structure.xyz --bench 5 > $OUT/kernels-$a-4096.log 2>&1
  echo "=== $a"; grep -E "median|kernel" $OUT/kernels-$a-4096.log | head -40
done
SCALE_ARTIFACT=gpu-run/sezm-min.sezm OUT=$OUT/current timeout 200 bash $B scale:16384 2>&1 | grep -A3 "^| atoms"
