// RUN: sezm-opt %s --sezm-mark-kernel-origins --mlir-print-debuginfo | FileCheck %s --check-prefix=MARK
// RUN: sezm-opt %s --sezm-pipeline="target=gpu" | FileCheck %s --check-prefix=NAMES

// Each op's location gets the op's name; the kernels of the GPU pipeline are
// named after them, so that per-kernel times say which op ran.
// MARK: sezm.gate {{.*}} loc(#[[GATE:.*]])
// MARK: arith.mulf {{.*}} loc(#[[MUL:.*]])
// MARK-DAG: #[[GATE]] = loc("gate"(
// MARK-DAG: #[[MUL]] = loc("mulf"(

// NAMES-DAG: gpu.launch_func <{{.*}}> @gate::@gate
// NAMES-DAG: gpu.launch_func <{{.*}}> @mulf::@mulf
func.func @main(%u: tensor<?x10x64xf32> {sezm.name = "u"},
                %g: tensor<2x32x96xf32> {sezm.name = "gate"})
    -> (tensor<?x10x64xf32> {sezm.name = "y"}) {
  %z = sezm.gate %u weight %g lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  // A product: an add would fold into the gate (sezm-fuse-accumulate).
  %y = arith.mulf %u, %z : tensor<?x10x64xf32>
  return %y : tensor<?x10x64xf32>
}
