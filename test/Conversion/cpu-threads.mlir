// The CPU pipeline's threads: a matmul's loops in (i, k, j) order, only the
// outermost loop of each parallel nest left parallel, then OpenMP.
// RUN: sezm-opt %s --sezm-cpu-matmul-order --convert-linalg-to-parallel-loops --sezm-sequential-inner-loops | FileCheck %s
// RUN: sezm-opt %s --sezm-cpu-matmul-order --convert-linalg-to-parallel-loops --sezm-sequential-inner-loops --convert-scf-to-openmp --canonicalize | FileCheck %s --check-prefix=OMP
// RUN: not sezm-opt %s --convert-sezm-to-loops=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: convert-sezm-to-loops: target=tpu: expected cpu or gpu

// CHECK-LABEL: func.func @matmul
// Rows in parallel; then k in order; then j, contiguous in B and C.
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[K]], %[[J]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
// OMP-LABEL: func.func @matmul
// OMP: omp.parallel
// OMP: omp.wsloop
// OMP: omp.loop_nest
// OMP: scf.for
// OMP: scf.for
// OMP-NOT: omp.parallel
func.func @matmul(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}

// A nest of parallel loops keeps its outer loop parallel; a loop with a
// reduction becomes sequential, its partial sums combined in order.
// CHECK-LABEL: func.func @nest
// CHECK: scf.parallel (%{{.*}}) =
// CHECK-NEXT: scf.for
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// CHECK: scf.yield %[[NEXT]] : f32
// CHECK: memref.store %[[SUM]]
// CHECK-NOT: scf.parallel
// OMP-LABEL: func.func @nest
// OMP: omp.parallel
// OMP-NOT: omp.parallel
// OMP: return
func.func @nest(%m: memref<?x4xf32>, %v: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %m, %c0 : memref<?x4xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      %x = memref.load %m[%i, %j] : memref<?x4xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %m[%i, %j] : memref<?x4xf32>
    }
  }
  %sum = scf.parallel (%j) = (%c0) to (%c4) step (%c1) init (%zero) -> f32 {
    %x = memref.load %m[%c0, %j] : memref<?x4xf32>
    scf.reduce(%x : f32) {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      scf.reduce.return %s : f32
    }
  }
  memref.store %sum, %v[%c0] : memref<1xf32>
  return
}
