// Constants, dims and the selects and compares over them are cloned into
// each launch that uses them (in the order they are needed), their uses
// there rewritten; a value that is not worth recomputing (a load) stays a
// launch operand, and uses outside the launch keep the original.
// RUN: sezm-opt %s --sezm-sink-into-launches | FileCheck %s

// CHECK-LABEL: func.func @sink
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[LOADED:.*]] = memref.load
// CHECK: gpu.launch
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.0{{.*}} : f32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[DIM:.*]] = memref.dim %{{.*}}, %[[C0]]
// CHECK-NEXT: %[[C64IN:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %[[DIM]], %[[C64IN]]
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[LT]], %[[DIM]], %[[C64IN]]
// CHECK-NEXT: memref.store %[[ONE]], %{{.*}}[%[[SEL]]]
// CHECK-NEXT: memref.store %[[LOADED]]
// CHECK: gpu.terminator
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[C64]]]
func.func @sink(%buffer: memref<?xf32>, %index: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %loaded = memref.load %index[%c0] : memref<1xf32>
  %n = memref.dim %buffer, %c0 : memref<?xf32>
  %lt = arith.cmpi ult, %n, %c64 : index
  %last = arith.select %lt, %n, %c64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %one, %buffer[%last] : memref<?xf32>
    memref.store %loaded, %buffer[%tx] : memref<?xf32>
    gpu.terminator
  }
  memref.store %one, %buffer[%c64] : memref<?xf32>
  return
}
