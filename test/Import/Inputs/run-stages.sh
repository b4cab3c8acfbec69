#!/bin/sh
# Runs the stages of an artifact of sezm-compile --stages on one structure,
# forward then backward, and checks them against the whole model's
# energy_forces: run-stages.sh SEZM-RUN ARTIFACT STRUCTURE DIR NPYTOOL LIMIT.
set -e
sezm_run=$1 artifact=$2 structure=$3 dir=$4 npytool=$5 limit=$6
run() { "$sezm_run" "$artifact" --structure "$structure" "$@" > /dev/null; }
run --entry energy_forces --output-dir "$dir/whole"
run --entry energy_stage0 --output-dir "$dir/s0"
run --entry energy_stage1 --input features="$dir/s0/features.npy" --output-dir "$dir/s1"
run --entry energy_stage2 --input features="$dir/s1/features.npy" --output-dir "$dir/s2"
run --entry energy_stage3 --input features="$dir/s2/features.npy" --output-dir "$dir/s3"
run --entry energy_stage3_backward --input features="$dir/s2/features.npy" --output-dir "$dir/b3"
run --entry energy_stage2_backward --input features="$dir/s1/features.npy" --input features_out_grad="$dir/b3/features_grad.npy" --output-dir "$dir/b2"
run --entry energy_stage1_backward --input features="$dir/s0/features.npy" --input features_out_grad="$dir/b2/features_grad.npy" --output-dir "$dir/b1"
$npytool sum "$dir/forces.npy" "$dir/b1/forces.npy" "$dir/b2/forces.npy"
$npytool sum "$dir/virial.npy" "$dir/b1/virial.npy" "$dir/b2/virial.npy"
$npytool relerr "$dir/s3/energy.npy" "$dir/whole/energy.npy" "$limit"
$npytool relerr "$dir/forces.npy" "$dir/whole/forces.npy" "$limit"
$npytool relerr "$dir/virial.npy" "$dir/whole/virial.npy" "$limit"
