// RUN: sezm-opt %s --sezm-reductions-innermost --split-input-file | FileCheck %s
// RUN: sezm-opt %s --sezm-reductions-innermost --convert-linalg-to-parallel-loops --sezm-flatten-parallel-loops --split-input-file | FileCheck %s --check-prefix=LOOPS

// A sum over the middle axis becomes a generic with both parallel
// dimensions first, and then one thread per output element, each adding
// its 16 terms in order.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @middle
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: arith.addf %[[A]], %[[B]]
// LOOPS-LABEL: func.func @middle
// LOOPS: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// LOOPS-NOT: scf.parallel
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c16 step %{{.*}} {
// LOOPS-NOT: scf.parallel
// LOOPS: arith.addf
func.func @middle(%x: memref<?x16x192xf32>, %y: memref<?x192xf32>) {
  linalg.reduce ins(%x : memref<?x16x192xf32>) outs(%y : memref<?x192xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Two reductions around a parallel dimension keep their order, innermost.
// CHECK-DAG: #[[IN2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-DAG: #[[OUT2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @around
// CHECK: linalg.generic {indexing_maps = [#[[IN2]], #[[OUT2]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
func.func @around(%x: memref<?x4x8x2xf32>, %y: memref<?x8xf32>) {
  linalg.reduce ins(%x : memref<?x4x8x2xf32>) outs(%y : memref<?x8xf32>) dimensions = [1, 3]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Reductions already last, and ops without any, are left as they are.
// CHECK-LABEL: func.func @last
// CHECK: linalg.reduce
// CHECK: linalg.matmul
// CHECK-NOT: linalg.generic
func.func @last(%x: memref<?x192xf32>, %y: memref<?xf32>, %a: memref<?x8xf32>, %b: memref<8x4xf32>, %c: memref<?x4xf32>) {
  linalg.reduce ins(%x : memref<?x192xf32>) outs(%y : memref<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x4xf32>) outs(%c : memref<?x4xf32>)
  return
}
