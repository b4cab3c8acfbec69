# One device call: the imported models against DeePMD-kit's compiled model.
B=bench/h200-run.sh
OUT=$OUT/shape timeout 290 bash $B race:4096 2>&1 | grep -v "^\[" | tail -32
rm -f gpu-run/dpa4-*.sezm gpu-run/dpa4-*.sezm.xz
RACE_MODEL=test/Import/fixtures/dpa4-mini.model.ckpt.pt RACE_ARTIFACT=gpu-run/mini.sezm \
  OUT=$OUT/mini timeout 290 bash $B race:4096 2>&1 | grep -v "^\[" | tail -32
