#!/usr/bin/env bash
# sezm's CPU artifact against DeePMD-kit 3.2.0's own CPU eval of the same
# checkpoint, on the same structure and the same cores, one after the other:
#   bench/cpu-race.sh [checkpoint] [structure.xyz] [threads]
# (defaults: the imported SeZM-min-shape fixture, the 96-atom water box, 2
# threads). Needs a venv with deepmd-kit[torch]==3.2.0 outside the repo:
# DP_PYTHON=/path/to/venv/bin/python (CI never runs this). Prints each
# side's median time per energy + forces + virial call (DeePMD-kit's
# DeepPot.eval, which builds its own neighbour list; sezm-md-example's
# sezm_model_compute_edges on a neighbour list built once), the ratio and
# the relative errors of sezm's outputs against DeePMD-kit's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
model=${1:-$root/test/Import/fixtures/sezm-min-shape.model.ckpt.pt}
structure=${2:-$root/examples/water/water-box.xyz}
threads=${3:-2}
python=${DP_PYTHON:?set DP_PYTHON to the python of a venv with deepmd-kit[torch]==3.2.0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=$threads DP_INTRA_OP_PARALLELISM_THREADS=$threads \
       DP_INTER_OP_PARALLELISM_THREADS=1
"$build/bin/sezm-compile" "$model" --target cpu -o "$work/model.sezm" >/dev/null
sezm=$("$build/bin/sezm-md-example" "$work/model.sezm" "$structure" \
         --device cpu --steps 10 --output-dir "$work/sezm")
echo "$sezm"
deepmd=$("$python" "$root/bench/deepmd_eval.py" --model "$model" \
           --structure "$structure" --repeat 10 --sezm "$work/sezm" 2>/dev/null)
echo "$deepmd"
ours=$(sed -n 's/.*on the CPU: median \([0-9.]*\) ms.*/\1/p' <<<"$sezm")
theirs=$(sed -n 's/.*median \([0-9.]*\) ms of.*/\1/p' <<<"$deepmd")
python3 -c "print(f'{$threads} threads: DeePMD-kit {$theirs:.1f} ms, sezm {$ours:.1f} ms: sezm {$theirs / $ours:.2f}x DeePMD-kit\'s speed')"
