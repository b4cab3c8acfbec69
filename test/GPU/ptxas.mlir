// Every op's kernels, compiled for sm_90, are PTX that ptxas accepts.
// REQUIRES: ptxas
// RUN: rm -rf %t && sezm-compile %S/../Dialect/SeZM/ops.mlir --emit=ptx -o %t
// RUN: ls %t | wc -l | FileCheck %s --check-prefix=COUNT
// RUN: for f in %t/*.ptx; do %ptxas -arch=sm_90 $f -o %t.cubin || exit 1; done
// RUN: cat %t/*.ptx | FileCheck %s

// One kernel module per kernel of the round-trip file.
// COUNT: 38

// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK: .entry
