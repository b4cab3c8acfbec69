#!/usr/bin/env bash
# The main job (`make demo`): sezm-run with no arguments runs the bundled
# SeZM-min model (examples/sezm-min, weights made by the build from their
# seed) on a periodic box of 32 water molecules, reading the structure and
# building its neighbour graph itself, with forces and the virial by
# sezm-autodiff; on the GPU when there is one, else on the CPU, and it says
# which.
set -euo pipefail
build=${1:-build}
"$build/bin/sezm-run"
