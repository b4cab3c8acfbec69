#!/usr/bin/env bash
# On a GPU machine: for each atom count N (default 4096), builds the
# workload with make-so2-workload and runs so2_compare.py: sezm's rotate_mix,
# fused and unfused backward and segment_reduce (bench/so2_kernels.mlir,
# compiled by sezm-compile) beside eager PyTorch, torch.compile and, with
# --deepmd, DeePMD-kit's Triton kernels, all on the same inputs.
#   so2-bench.sh SO2_KERNELS.sezm BIN_DIR [--deepmd DIR] [--no-compile] [N ...]
set -euo pipefail
library=$1
bin=$2
shift 2
options=()
while [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do
  case $1 in
    --deepmd) options+=(--deepmd "$2"); shift 2 ;;
    --no-compile) options+=(--no-compile); shift ;;
    *) echo "so2-bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || set -- 4096
# The workload (about 20 GB of .npy at N = 16384) is written to memory where
# the machine has a tmpfs: through the disk it took minutes.
scratch=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
for atoms in "$@"; do
  work=$scratch/so2-workload-$atoms
  "$bin/make-so2-workload" "$atoms" "$work"
  python3 "$(dirname "$0")/so2_compare.py" --workload "$work" \
    --sezm-exec "$bin/sezm-exec" --library "$library" "${options[@]}"
  rm -rf "$work"
done
