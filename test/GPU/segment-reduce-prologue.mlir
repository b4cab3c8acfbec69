// Values that an elementwise op computes and only a segment_reduce reads:
// the strategy room fuses the op into the reduction (the op `fused`), and
// the lowering writes one kernel, which computes each value from the op's
// inputs as it adds it.
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy | FileCheck %s --check-prefix=CHOICE
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s --check-prefix=KERNEL

#rows = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#axis = affine_map<(d0, d1, d2) -> (d0, d1)>
#channel = affine_map<(d0, d1, d2) -> (d0, d2)>

// An outer product per edge (DPA4's env seed: 4 harmonics of the edge
// direction times 32 radial channels) summed into each destination: the
// (E, 4, 32) products are never written.
// CHOICE-LABEL: func.func @outer_product
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = fused, kernel = "segment_reduce">
// CHOICE: sezm.segment_reduce {{.*}}kernel_config<strategy = microkernel, kernel = "segment_reduce">
// KERNEL-LABEL: func.func @outer_product
// KERNEL: gpu.launch {{.*}} function(@segment_reduce)
// KERNEL: scf.for
// KERNEL: %[[EDGE:.*]] = arith.index_cast
// KERNEL: %[[A:.*]] = memref.load %{{.*}}[%[[EDGE]], %{{.*}}] : memref<?x4xf32>
// KERNEL: %[[V:.*]] = memref.load %{{.*}}[%[[EDGE]], %{{.*}}] : memref<?x32xf32>
// KERNEL: %[[P:.*]] = arith.mulf %[[A]], %[[V]] : f32
// KERNEL: arith.addf %{{.*}}, %[[P]]
// KERNEL: memref.store %{{.*}} : memref<?x128xf32>
// KERNEL-NOT: gpu.launch
// KERNEL-NOT: linalg
// KERNEL: return
func.func @outer_product(%a: tensor<?x4xf32>, %v: tensor<?x32xf32>,
                         %order: tensor<?xi64>, %rowptr: tensor<?xi64>)
    -> tensor<?x4x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4x32xf32>
  %p = linalg.generic {indexing_maps = [#axis, #channel, #rows],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %v : tensor<?x4xf32>, tensor<?x32xf32>)
      outs(%e : tensor<?x4x32xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<?x4x32xf32>
  %s = sezm.segment_reduce %p over(%order, %rowptr) : (tensor<?x4x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4x32xf32>
  return %s : tensor<?x4x32xf32>
}

// -----

#rows = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#axis = affine_map<(d0, d1, d2) -> (d0, d1)>
#channel = affine_map<(d0, d1, d2) -> (d0, d2)>

// Values that something else reads too are written by their own kernel.
// CHOICE-LABEL: func.func @values_kept
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = loops, kernel = "mulf">
// KERNEL-LABEL: func.func @values_kept
// KERNEL: gpu.launch {{.*}} function(@segment_reduce)
// KERNEL-NOT: arith.mulf
// KERNEL: return
func.func @values_kept(%a: tensor<?x4xf32>, %v: tensor<?x32xf32>,
                       %order: tensor<?xi64>, %rowptr: tensor<?xi64>)
    -> (tensor<?x4x32xf32>, tensor<?x4x32xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4x32xf32>
  %p = linalg.generic {indexing_maps = [#axis, #channel, #rows],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %v : tensor<?x4xf32>, tensor<?x32xf32>)
      outs(%e : tensor<?x4x32xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<?x4x32xf32>
  %s = sezm.segment_reduce %p over(%order, %rowptr) : (tensor<?x4x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4x32xf32>
  return %s, %p : tensor<?x4x32xf32>, tensor<?x4x32xf32>
}
