# One device call: SeZM-min chunked (65536 edges) at 1024 and 65,536 atoms.
B=bench/h200-run.sh
SCALE_ARTIFACT=gpu-run/sezm-min-chunk.sezm OUT=$OUT/chunk timeout 500 bash $B scale:1024,65536 2>&1 | grep -A5 "^| atoms"
