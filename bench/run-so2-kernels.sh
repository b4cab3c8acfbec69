#!/usr/bin/env bash
# On a GPU machine: builds the N-atom workload and times the SO(2) kernels
# of bench/so2_kernels.mlir (compiled by sezm-compile) with sezm-exec:
# median of 20 runs after a warm-up run, per kernel (CUDA events).
#   run-so2-kernels.sh SO2_KERNELS.so BIN_DIR [N] [WORK_DIR]
set -euo pipefail
library=$1
bin=$2
atoms=${3:-4096}
work=${4:-/tmp/so2-workload-$atoms}
"$bin/make-so2-workload" "$atoms" "$work"
inputs() { for name in "$@"; do echo --input "$name=$work/$name.npy"; done; }
forward=$(inputs x src wigner kc cb)
backward=$(inputs grad x src wigner kc cb src_order src_rowptr)
echo "== rotate_mix"
"$bin/sezm-exec" "$library" --entry rotate_mix $forward --bench 20 --profile
echo "== fused_backward"
"$bin/sezm-exec" "$library" --entry fused_backward $backward --bench 20 --profile \
  --output-dir "$work/fused"
echo "== unfused_backward"
"$bin/sezm-exec" "$library" --entry unfused_backward $backward --bench 5 --profile \
  --expect "$work/fused" --rtol 2e-5
