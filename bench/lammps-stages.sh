#!/usr/bin/env bash
# pair_style sezm whole and in stages (sezm-compile --stages) on 1..K MPI
# ranks, on the CPU of this machine: the time per force call (the pair
# style's `timing yes`, rank 0's) and LAMMPS's loop time, for the 96-atom
# water box replicated REP times. OMP_NUM_THREADS is the cores over the
# ranks, so that every run uses the same cores.
#   lammps-stages.sh ARTIFACT [REP] [RANKS...]   e.g. model.sezm "2 2 1" 2 4
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
artifact=$1
rep=${2:-"1 1 1"}
shift 2 || shift $#
ranks=${*:-2}
venv=$root/build/python-venv/bin
plugin=$root/build/lib/sezmplugin.so
cores=$(nproc)
run() { # label ranks style_args
  OMP_NUM_THREADS=$(( cores / $2 > 0 ? cores / $2 : 1 )) \
    "$venv/mpirun" -np "$2" "$venv/lmp" -in "$root/bench/lammps-stages.in" \
    -log none -var model "$artifact" -var plugin "$plugin" \
    -var data "$root/examples/lammps/water.data" -var rep "$rep" \
    -var style_args "$3" |
    grep -E "sezm timing|Loop time" | sed "s/^/$1, $2 rank(s): /"
}
run whole 1 ""
run stages 1 "stages yes"
for n in $ranks; do run stages "$n" ""; done
