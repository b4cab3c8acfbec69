// RUN: sezm-opt %s --sezm-flatten-parallel-loops | FileCheck %s

// A fill of (E, 16) becomes one loop over E * 16 elements, the last index
// fastest, so that consecutive GPU threads store consecutive elements; the
// loop keeps its kernel configuration (its kernel's name).
// CHECK-LABEL: func.func @fill
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[N:.*]] = arith.muli %[[ROWS]], %[[C16:.*]] : index
// CHECK: scf.parallel (%[[K:.*]]) = (%{{.*}}) to (%[[N]]) step (%{{.*}}) {
// CHECK-DAG: %[[J:.*]] = arith.remsi %[[K]], %[[C16]]
// CHECK-DAG: %[[I:.*]] = arith.divsi %[[K]], %[[C16]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK: } {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "fill">}
// CHECK-NOT: scf.parallel
func.func @fill(%m: memref<?x16xf32>, %e: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%e, %c16) step (%c1, %c1) {
    memref.store %zero, %m[%i, %j] : memref<?x16xf32>
  } {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "fill">}
  return
}

// A loop with a reduction, and a loop of one dimension, stay.
// CHECK-LABEL: func.func @stays
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: scf.reduce
func.func @stays(%m: memref<?x16xf32>, %e: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%e, %c16) step (%c1, %c1) init (%zero) -> f32 {
    %v = memref.load %m[%i, %j] : memref<?x16xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}
