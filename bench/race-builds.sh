#!/usr/bin/env bash
# The race of one imported model at 4096 atoms: DeePMD-kit, then sezm's
# build of this work tree (gpu-run/MODEL-new.sezm.xz) and every other build
# carried (gpu-run/MODEL-X.sezm.xz, timed beside it as dpa4-X.sezm) in the
# same process; MODEL-base, where carried (main's build), is also the
# reference, so each build's distance from it is printed ("against the fp64
# build" in dpa4_race.py's words).
#   race-builds.sh MODEL [ATOMS]   (MODEL: mini, default: test/Import/fixtures/dpa4-MODEL.model.ckpt.pt)
root=$(cd "$(dirname "$0")/.." && pwd)
model=$1
rm -f "$root"/gpu-run/dpa4-*.sezm
for packed in "$root"/gpu-run/$model-*.sezm.xz; do
  xz -d -k -f "$packed"
  build=$(basename "$packed" .sezm.xz)
  build=${build#$model-}
  [ "$build" = new ] || cp "${packed%.xz}" "$root/gpu-run/dpa4-$build.sezm"
done
reference=
[ -e "$root/gpu-run/$model-base.sezm" ] && reference=$root/gpu-run/$model-base.sezm
OUT=${OUT:-/tmp/out}/$model RACE_MODEL=$root/test/Import/fixtures/dpa4-$model.model.ckpt.pt \
  RACE_ARTIFACT=$root/gpu-run/$model-new.sezm RACE_REFERENCE=$reference \
  bash "$root/bench/h200-run.sh" "race:${2:-4096}"
rm -f "$root"/gpu-run/dpa4-*.sezm
