// RUN: sezm-opt %s --sezm-pipeline="target=gpu" | FileCheck %s --check-prefix=NAMES
// RUN: sezm-opt %s --sezm-pipeline="target=gpu" | FileCheck %s --check-prefix=ONE
// RUN: sezm-opt %s --sezm-pipeline="target=gpu" --mlir-print-ir-after=sezm-select-lowering-strategy -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFIG

// The strategy room names every kernel in its configuration: a microkernel
// by its own name, a loop kernel after its op, an elementwise one after the
// op its payload yields (the product, not "generic"). The launches, and so
// the outlined kernels and the runtime's per-kernel times, take those
// names; no location carries them. The one-thread kernel that fills a
// scalar buffer (a sum's init) is `scalar_fill`. A gate is one launch.
// ONE-NOT: @gate_logits
// CONFIG: sezm.gate {{.*}}kernel_config<strategy = microkernel, kernel = "gate"
// CONFIG: linalg.generic {{.*}}kernel_config<strategy = loops, kernel = "mulf">
// NAMES-DAG: gpu.launch_func <{{.*}}> @gate::@gate
// NAMES-DAG: gpu.launch_func <{{.*}}> @mulf::@mulf
// NAMES-DAG: gpu.launch_func <{{.*}}> @scalar_fill::@scalar_fill
// NAMES-DAG: gpu.launch_func <{{.*}}> @full_sum::@full_sum
func.func @main(%u: tensor<?x10x64xf32> {sezm.name = "u"},
                %g: tensor<2x32x96xf32> {sezm.name = "gate"})
    -> (tensor<?x10x64xf32> {sezm.name = "y"}) {
  %z = sezm.gate %u weight %g lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  // A product: an add would fold into the gate (sezm-fuse-accumulate).
  %y = arith.mulf %u, %z : tensor<?x10x64xf32>
  return %y : tensor<?x10x64xf32>
}

func.func @total(%x: tensor<?xf32> {sezm.name = "x"})
    -> (tensor<f32> {sezm.name = "total"}) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%x : tensor<?xf32>) outs(%init : tensor<f32>)
      dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<f32>
}
