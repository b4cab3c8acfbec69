# One device call: checks, then SeZM-min's step and profile at 4096 atoms.
B=bench/h200-run.sh
T=gpu-run/standalone/bin
timeout 90 bash $B graph 2>&1 | tail -8
$T/make-so2-workload 4096 /tmp/w4096 --structure-only > /dev/null
$T/make-so2-workload 1024 /tmp/w1024 --structure-only > /dev/null
for n in 1024 4096; do
  timeout 60 $T/sezm-run /tmp/graph-on-gpu/graph.mlir --cutoff 6 --verify --atol 1e-4 \
    --structure /tmp/w$n/structure.xyz 2>&1 | grep -E "sources|destinations|FAIL" | head -4
done
timeout 150 bash $B demo artifact stages 2>&1 | grep -v "^  kernel" | grep -E "error|rel|ok|FAIL|median|verify|equal|diff" | tail -30
for v in unfused fusedonly chunk current; do
  A=gpu-run/sezm-min-$v.sezm; sizes=4096
  [ $v = current ] && A=gpu-run/sezm-min.sezm && sizes=1024,4096
  [ $v = chunk ] && sizes=4096,16384
  echo "--- $v"
  SCALE_ARTIFACT=$A OUT=$OUT/$v timeout 60 bash $B scale:$sizes 2>&1 | grep -A3 "^| atoms"
done
timeout 40 $T/sezm-run gpu-run/sezm-min.sezm --entry energy_forces --structure /tmp/w4096/structure.xyz --bench 5 > $OUT/kernels-4096.log 2>&1
grep -c "^  kernel" $OUT/kernels-4096.log
OUT=$OUT/ncu timeout 170 bash $B ncu-model:4096 2>&1 | tail -34
