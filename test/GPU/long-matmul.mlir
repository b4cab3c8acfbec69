// RUN: sezm-opt %s --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s

// The virial's matmul (3 x E) (E x 3): nine outputs, each a sum over every
// edge, becomes one block of 1024 threads per output (a strided share per
// thread, then a tree), not nine threads with a serial loop over E.
// CHECK-LABEL: func.func @virial
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c9, {{.*}}) threads({{.*}}) in ({{.*}} = %c1024, {{.*}}) function(@long_matmul) workgroup({{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK-NOT: linalg.matmul
func.func @virial(%gt: tensor<3x?xf32>, %v: tensor<?x3xf32>) -> tensor<3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %w = linalg.matmul ins(%gt, %v : tensor<3x?xf32>, tensor<?x3xf32>)
      outs(%init : tensor<3x3xf32>) -> tensor<3x3xf32>
  return %w : tensor<3x3xf32>
}

// A matmul over a static reduction is a tiled GEMM (tiled-gemm.mlir); one
// too narrow for it (fewer than 8 columns) over a depth of whole warps is
// one warp per row: each lane's share of the row's products, then the
// warp's butterfly (xor shuffles 16, 8, 4, 2, 1), the init added last.
// CHECK-LABEL: func.func @narrow
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c4{{(_[0-9]+)?}}, {{.*}}) function(@narrow_matmul)
// CHECK-COUNT-2: memref.load
// CHECK: gpu.shuffle xor {{.*}}, %c16_i32
// CHECK: gpu.shuffle xor {{.*}}, %c1_i32
// CHECK-NOT: linalg.matmul
func.func @narrow(%a: tensor<?x64xf32>, %b: tensor<64x1xf32>) -> tensor<?x1xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x1xf32>)
      outs(%init : tensor<?x1xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

// Several columns, summed over the lanes together (warpSumSpread), and an
// init that is not a constant fill, read where each sum is stored.
// CHECK-LABEL: func.func @narrow_columns
// CHECK: function(@narrow_matmul)
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<?x4xf32>
// CHECK: memref.store
// CHECK-NOT: linalg.matmul
func.func @narrow_columns(%a: tensor<?x64xf32>, %b: tensor<64x4xf32>, %init: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x4xf32>)
      outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// From 8 columns (DPA4's radial degree mixer, 96 x 13) the lanes' reads of
// B would bind a warp per row: the tiled GEMM, on one 16-column block
// whose last three columns repeat the thirteenth.
// CHECK-LABEL: func.func @thirteen_columns
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}}) function(@tiled_matmul) workgroup({{.*}} : memref<2x128x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x16xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: narrow_matmul
func.func @thirteen_columns(%a: tensor<?x96xf32>, %b: tensor<96x13xf32>) -> tensor<?x13xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x96xf32>
  %e = tensor.empty(%n) : tensor<?x13xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x13xf32>) -> tensor<?x13xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x96xf32>, tensor<96x13xf32>)
      outs(%init : tensor<?x13xf32>) -> tensor<?x13xf32>
  return %y : tensor<?x13xf32>
}

// A depth that is not a whole number of warps: one thread per output,
// summed over k in order from its init (read here).
// CHECK-LABEL: func.func @shallow
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) function(@small_matmul)
// CHECK: %[[INIT:.*]] = memref.load %{{.*}} : memref<?x4xf32>
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %c10 step %{{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK: memref.load %{{.*}} : memref<?x10xf32>
// CHECK: memref.load %{{.*}} : memref<10x4xf32>
// CHECK: memref.store %[[SUM]]
// CHECK-NOT: linalg.matmul
func.func @shallow(%a: tensor<?x10xf32>, %b: tensor<10x4xf32>, %init: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<?x10xf32>, tensor<10x4xf32>)
      outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// A zero fill of its init folds in: no fill kernel writes the outputs first.
// CHECK-LABEL: func.func @shallow_zero
// CHECK-NOT: linalg.fill
// CHECK: function(@small_matmul)
// CHECK-NOT: memref.load %{{.*}} : memref<?x6xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %{{.*}} iter_args(%{{.*}} = %cst
// CHECK: memref.load %{{.*}} : memref<4x6xf32>
// CHECK: memref.store
func.func @shallow_zero(%a: tensor<?x4xf32>, %b: tensor<4x6xf32>) -> tensor<?x6xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x6xf32>) -> tensor<?x6xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x6xf32>)
      outs(%init : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %y : tensor<?x6xf32>
}

// A product over the middle axis (sezm-fuse-elementwise's contraction),
// out[e, j, c] = sum_i x[e, i, c] w[i, j]: one thread per (e, c), c
// across a warp, x and w read in place; x's three depths loaded once for
// the seven outputs, each summed over i in order from the zero fill, which
// is folded in (no fill kernel, no read of the init).
// CHECK-LABEL: func.func @middle_axis
// CHECK-NOT: linalg.fill
// CHECK: %[[OWNERS:.*]] = arith.muli %{{.*}}, %c32 : index
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}}) function(@middle_axis_product)
// CHECK: arith.cmpi ult, %{{.*}}, %[[OWNERS]]
// CHECK-COUNT-3: memref.load %{{.*}} : memref<?x3x32xf32>
// CHECK-NOT: memref<?x3x32xf32>
// CHECK-COUNT-7: memref.store {{.*}} : memref<?x7x32xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
#xIn = affine_map<(e, j, c, i) -> (e, i, c)>
#wIn = affine_map<(e, j, c, i) -> (i, j)>
#outAt = affine_map<(e, j, c, i) -> (e, j, c)>
func.func @middle_axis(%x: tensor<?x3x32xf32>, %w: tensor<3x7xf32>) -> tensor<?x7x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x32xf32>
  %e = tensor.empty(%n) : tensor<?x7x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x7x32xf32>) -> tensor<?x7x32xf32>
  %y = linalg.generic {indexing_maps = [#xIn, #wIn, #outAt],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x3x32xf32>, tensor<3x7xf32>) outs(%init : tensor<?x7x32xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
  } -> tensor<?x7x32xf32>
  return %y : tensor<?x7x32xf32>
}

// A contraction whose x is not read along out's rows first is no product
// over the middle axis: it stays a loop kernel.
// CHECK-LABEL: func.func @not_middle_axis
// CHECK: strategy = loops
// CHECK-NOT: middle_axis_product
#xRows = affine_map<(e, j, c, i) -> (c, i, e)>
func.func @not_middle_axis(%x: tensor<32x3x?xf32>, %w: tensor<3x7xf32>,
                           %init: tensor<?x7x32xf32>) -> tensor<?x7x32xf32> {
  %y = linalg.generic {indexing_maps = [#xRows, #wIn, #outAt],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<32x3x?xf32>, tensor<3x7xf32>) outs(%init : tensor<?x7x32xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
  } -> tensor<?x7x32xf32>
  return %y : tensor<?x7x32xf32>
}
