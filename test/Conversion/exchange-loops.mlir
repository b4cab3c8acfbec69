// RUN: sezm-opt %s --convert-sezm-to-loops | FileCheck %s
// RUN: sezm-opt %s --convert-sezm-to-loops="target=gpu" | FileCheck %s
// sezm.exchange folds away in the pipelines; lowered on its own (CPU or GPU
// loop kernel) it is a copy of its rows, one parallel iteration per node.
// CHECK-LABEL: func.func @exchange
// CHECK: %[[IN:.*]] = bufferization.to_buffer %arg0
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// CHECK: scf.parallel (%[[N:.*]]) =
// CHECK: scf.for %[[C:.*]] =
// CHECK: %[[V:.*]] = memref.load %[[IN]][%[[N]], %[[C]]]
// CHECK: memref.store %[[V]], %[[OUT]][%[[N]], %[[C]]]
// CHECK-NOT: sezm.exchange
func.func @exchange(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = sezm.exchange %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
