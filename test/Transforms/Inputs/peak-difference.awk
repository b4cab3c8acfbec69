# Reads the plan-memory remarks of @energy_forces under the inference and
# the training schedule and prints how far apart their planned peaks are,
# next to the per-edge node gradient E*16*64*4 at E = 647,642.
/@energy_forces planned peak/ {
  match($0, /: planned [0-9]+ bytes/)
  bytes = substr($0, RSTART + 10, RLENGTH - 16)
  if ($0 ~ /inference schedule/) inference = bytes
  if ($0 ~ /training schedule/) training = bytes
}
END {
  gradient = 647642 * 16 * 64 * 4
  printf "training - inference = %.0f bytes; per-edge node gradient %.0f bytes; at least the gradient: %s\n",
         training - inference, gradient,
         (inference != "" && training != "" && training - inference >= gradient) ? "yes" : "no"
}
