# One device call: the imported SeZM-min shape, whole and chunked, against
# DeePMD-kit at 4096 and 8192 atoms (peaks for the largest-N estimate).
B=bench/h200-run.sh
OUT=$OUT/shape timeout 540 bash $B race:4096,8192 2>&1 | grep -E "structure.xyz|DeePMD-kit forward|sezm compute|relative error" | tail -20
