// Values that an elementwise op computes and only a segment_reduce or a
// product over the middle axis reads: the strategy room fuses the op into
// its reader (the op `fused`), and the lowering writes one kernel, which
// computes each value from the op's inputs as it loads it.
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

// -----

// A middle-axis product's x scaled per (degree, channel) first (DPA4-Mini's
// degree scaling before its mixing into grid directions): the product's
// kernel scales each x it loads, and the scaled copy is never written.
// CHOICE-LABEL: func.func @scaled_middle_axis
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = fused, kernel = "middle_axis_product">
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = microkernel, kernel = "middle_axis_product">
// KERNEL-LABEL: func.func @scaled_middle_axis
// KERNEL: gpu.launch {{.*}} function(@middle_axis_product)
// KERNEL: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %c0{{.*}}, %{{.*}}] : memref<?x3x32xf32>
// KERNEL: %[[S:.*]] = memref.load %{{.*}}[%c0{{.*}}, %{{.*}}] : memref<3x32xf32>
// KERNEL: %[[XS:.*]] = arith.mulf %[[X]], %[[S]] {{.*}}: f32
// KERNEL-COUNT-2: memref.load %{{.*}} : memref<?x3x32xf32>
// KERNEL: %[[W:.*]] = memref.load %{{.*}}[%c0{{.*}}, %c0{{.*}}] : memref<3x7xf32>
// KERNEL: arith.mulf %[[XS]], %[[W]]
// KERNEL-NOT: memref<?x3x32xf32>
// KERNEL: gpu.terminator
// KERNEL-NOT: gpu.launch
// KERNEL-NOT: linalg
// KERNEL: return
#rows = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#scale = affine_map<(d0, d1, d2) -> (d1, d2)>
#xIn = affine_map<(e, j, c, i) -> (e, i, c)>
#wIn = affine_map<(e, j, c, i) -> (i, j)>
#outAt = affine_map<(e, j, c, i) -> (e, j, c)>
func.func @scaled_middle_axis(%x: tensor<?x3x32xf32>, %s: tensor<3x32xf32>,
                              %w: tensor<3x7xf32>) -> tensor<?x7x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x32xf32>
  %xs = linalg.generic {indexing_maps = [#rows, #scale, #rows],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<?x3x32xf32>, tensor<3x32xf32>)
      outs(%x : tensor<?x3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<?x3x32xf32>
  %e = tensor.empty(%n) : tensor<?x7x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x7x32xf32>) -> tensor<?x7x32xf32>
  %y = linalg.generic {indexing_maps = [#xIn, #wIn, #outAt],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xs, %w : tensor<?x3x32xf32>, tensor<3x7xf32>) outs(%init : tensor<?x7x32xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %t = arith.addf %acc, %p : f32
      linalg.yield %t : f32
  } -> tensor<?x7x32xf32>
  return %y : tensor<?x7x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A GEMM's epilogue that a segment_reduce alone reads stays the epilogue
// (the strategy room fused the product into it; a segment_reduce computing
// it instead would leave the product to no kernel). In a loop (a chunk of
// edges) too, the product the epilogue computed leaves no op behind.
// CHOICE-LABEL: func.func @epilogue_values
// CHOICE: linalg.matmul {{.*}}kernel_config<strategy = fused, kernel = "tiled_matmul_epilogue">
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = microkernel, kernel = "tiled_matmul_epilogue"
// CHOICE: sezm.segment_reduce
// KERNEL-LABEL: func.func @epilogue_values
// KERNEL: scf.for
// KERNEL: gpu.launch {{.*}} function(@tiled_matmul_epilogue)
// KERNEL: gpu.launch {{.*}} function(@segment_reduce)
// KERNEL-NOT: linalg
// KERNEL: return
func.func @epilogue_values(%x: tensor<?x16xf32>, %w: tensor<16x32xf32>,
                           %v: tensor<?x32xf32>, %order: tensor<?xi64>,
                           %rowptr: tensor<?xi64>, %chunks: index)
    -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %r = scf.for %i = %c0 to %chunks step %c1 iter_args(%acc = %v) -> tensor<?x32xf32> {
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
    %p = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x32xf32>)
        outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
    %q = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%p, %acc : tensor<?x32xf32>, tensor<?x32xf32>) outs(%p : tensor<?x32xf32>) {
    ^bb0(%a: f32, %b: f32, %out: f32):
      %m = arith.mulf %a, %b : f32
      linalg.yield %m : f32
    } -> tensor<?x32xf32>
    %s = sezm.segment_reduce %q over(%order, %rowptr) : (tensor<?x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x32xf32>
    scf.yield %s : tensor<?x32xf32>
  }
  return %r : tensor<?x32xf32>
}
