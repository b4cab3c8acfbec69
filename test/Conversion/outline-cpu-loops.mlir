// RUN: sezm-opt %s --sezm-outline-cpu-loops | FileCheck %s

// Each outermost scf.parallel moves into a private function of its own:
// values from above become arguments in their first-use order, constants
// and globals are cloned in, loops inside a parallel loop stay with it, and
// a loop nested in a sequential scf.for takes the induction variable along.

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[X:.*]]: memref<?x4xf32>, %[[Y:.*]]: memref<?x4xf32>, %[[S:.*]]: f32)
// CHECK: %[[N:.*]] = memref.dim %[[X]]
// CHECK-NEXT: call @scale_loop0(%[[N]], %[[X]], %[[S]], %[[Y]])
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK: call @scale_loop1(%[[Y]], %[[K]])
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @scale(%x: memref<?x4xf32>, %y: memref<?x4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      %v = memref.load %x[%i, %j] : memref<?x4xf32>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %y[%i, %j] : memref<?x4xf32>
    }
  }
  scf.for %k = %c0 to %c2 step %c1 {
    %t = memref.get_global @table : memref<4xf32>
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      %v = memref.load %t[%j] : memref<4xf32>
      memref.store %v, %y[%k, %j] : memref<?x4xf32>
    }
  }
  return
}

// CHECK: func.func private @scale_loop0(%[[N0:.*]]: index, %[[X0:.*]]: memref<?x4xf32>, %[[S0:.*]]: f32, %[[Y0:.*]]: memref<?x4xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[N0]]) step (%[[C1]])
// CHECK-NEXT: scf.parallel
// CHECK: arith.mulf %{{.*}}, %[[S0]]
// CHECK: memref.store %{{.*}}, %[[Y0]]

// CHECK: func.func private @scale_loop1(%[[Y1:.*]]: memref<?x4xf32>, %[[K1:.*]]: index)
// CHECK-DAG: memref.get_global @table
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[Y1]][%[[K1]], %{{.*}}]
