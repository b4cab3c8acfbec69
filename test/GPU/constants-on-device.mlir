// A constant that kernels read (here the seed 1.0 of the gradient, which
// bufferizes to a host memref.global) is copied to device memory where it
// is taken and freed before the return: a kernel never dereferences host
// memory. (Passing the global itself made the water model's forces fail
// on the H200 with CUDA_ERROR_ILLEGAL_ADDRESS.)
// RUN: sezm-opt %s --sezm-pipeline="target=gpu" --mlir-print-ir-after=sezm-outline-kernels -o /dev/null 2>&1 | FileCheck %s
// CHECK-LABEL: func.func @scale
// CHECK: %[[HOST:.*]] = memref.get_global @{{.*}} : memref<4xf32>
// CHECK: %[[DEVICE:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[DEVICE]], %[[HOST]]
// CHECK-NOT: args({{.*}}%[[HOST]]
// CHECK: gpu.launch_func {{.*}}%[[DEVICE]] : memref<4xf32>
// CHECK: gpu.dealloc %[[DEVICE]]
// CHECK: return
func.func @scale(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %table = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %empty = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %table : tensor<?x4xf32>, tensor<4xf32>)
      outs(%empty : tensor<?x4xf32>) {
    ^bb0(%a: f32, %t: f32, %out: f32):
      %p = arith.mulf %a, %t : f32
      linalg.yield %p : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
