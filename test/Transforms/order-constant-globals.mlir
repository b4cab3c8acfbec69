// RUN: sezm-opt %s --sezm-order-constant-globals | FileCheck %s

// Constant globals are renamed and placed in the order the functions first
// read them, whatever order bufferization made them in; other globals stay.
// CHECK-LABEL: module
// CHECK-NEXT: memref.global "private" constant @__constant_0_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_1_f32 : memref<f32> = dense<1.000000e+00>
// CHECK-NEXT: memref.global "private" constant @__constant_2_2xf32 : memref<2xf32> = dense<3.000000e+00>
// CHECK: memref.global "private" @state
// CHECK: func.func @first
// CHECK-NEXT: memref.get_global @__constant_0_2xf32
// CHECK-NEXT: memref.get_global @__constant_1_f32
// CHECK: func.func @second
// CHECK-NEXT: memref.get_global @__constant_2_2xf32
// CHECK-NEXT: memref.get_global @__constant_0_2xf32
// CHECK-NEXT: memref.get_global @state
module {
  memref.global "private" constant @__constant_xf32 : memref<f32> = dense<1.0>
  memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<3.0>
  memref.global "private" @state : memref<2xf32> = dense<0.0>
  memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
  func.func @first() -> (memref<2xf32>, memref<f32>) {
    %a = memref.get_global @__constant_2xf32 : memref<2xf32>
    %b = memref.get_global @__constant_xf32 : memref<f32>
    return %a, %b : memref<2xf32>, memref<f32>
  }
  func.func @second() -> (memref<2xf32>, memref<2xf32>, memref<2xf32>) {
    %c = memref.get_global @__constant_2xf32_0 : memref<2xf32>
    %a = memref.get_global @__constant_2xf32 : memref<2xf32>
    %s = memref.get_global @state : memref<2xf32>
    return %c, %a, %s : memref<2xf32>, memref<2xf32>, memref<2xf32>
  }
}
