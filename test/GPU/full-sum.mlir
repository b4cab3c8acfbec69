// RUN: sezm-opt %s --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels --split-input-file | FileCheck %s

// A sum of every element to a scalar becomes one block of 1024 threads:
// strided partial sums in order, a fixed tree through workgroup memory, and
// the init added by thread 0.
// CHECK-LABEL: func.func @energy
// CHECK: memref.collapse_shape
// CHECK: gpu.launch
// CHECK-SAME: threads({{.*}}) in ({{.*}} = %c1024,
// CHECK-SAME: function(@full_sum) workgroup({{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK-COUNT-10: gpu.barrier
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK-NOT: linalg.reduce
// CHECK: return
func.func @energy(%x: tensor<?x16x8xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e = linalg.reduce ins(%x : tensor<?x16x8xf32>) outs(%acc : tensor<f32>)
      dimensions = [0, 1, 2]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %e : tensor<f32>
}

// -----

// A partial reduction, or one that is not a sum, stays for the loop path.
// CHECK-LABEL: func.func @rows
// CHECK: linalg.reduce
// CHECK-LABEL: func.func @largest
// CHECK: linalg.reduce
func.func @rows(%x: tensor<?x3xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.reduce ins(%x : tensor<?x3xf32>) outs(%init : tensor<?xf32>)
      dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
func.func @largest(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%x : tensor<?xf32>) outs(%init : tensor<f32>)
      dimensions = [0]
    (%in: f32, %out: f32) {
      %s = arith.maximumf %in, %out : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
