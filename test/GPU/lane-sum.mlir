// RUN: sezm-opt %s --sezm-select-lowering-strategy --split-input-file | FileCheck %s --check-prefix=CHOICE
// RUN: sezm-opt %s --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels --split-input-file | FileCheck %s --check-prefix=KERNEL

// A sum over the channels of (E, 4, 32) against (E, 32) (DPA4's env seed
// backward): 32 lanes an output, 8 outputs a group, each output's two
// loads issued before the first shuffle, five xor steps of the 8 sums,
// lane o's total picked and stored from the zero fill, folded in.
// CHOICE-LABEL: func.func @channel_sum
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = microkernel, kernel = "lane_sum">
// KERNEL-LABEL: func.func @channel_sum
// KERNEL-NOT: linalg.fill
// KERNEL: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256, {{.*}}) function(@lane_sum)
// KERNEL-COUNT-16: memref.load
// KERNEL-NOT: memref.load
// KERNEL-COUNT-8: gpu.shuffle xor %{{.*}}, %c16_i32{{.*}}
// KERNEL-COUNT-8: gpu.shuffle xor %{{.*}}, %c8_i32{{.*}}
// KERNEL-COUNT-8: gpu.shuffle xor %{{.*}}, %c4_i32{{.*}}
// KERNEL-COUNT-8: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}
// KERNEL-COUNT-8: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}
// KERNEL-COUNT-7: arith.select
// KERNEL: scf.if
// KERNEL-NOT: memref.load
// KERNEL: memref.store %{{.*}} : memref<?x4xf32>
// KERNEL: gpu.terminator
// KERNEL-NOT: linalg
// KERNEL: return
#x = affine_map<(e, h, c) -> (e, h, c)>
#y = affine_map<(e, h, c) -> (e, c)>
#out = affine_map<(e, h, c) -> (e, h)>
func.func @channel_sum(%x: tensor<?x4x32xf32>, %y: tensor<?x32xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4x32xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = linalg.generic {indexing_maps = [#x, #y, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<?x4x32xf32>, tensor<?x32xf32>) outs(%init : tensor<?x4xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %t = arith.addf %acc, %p : f32
      linalg.yield %t : f32
  } -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// -----

// A depth of 64 over rows with an init read: two terms a lane in order,
// 32 loads and each output's init loaded by the lane that stores it.
// CHOICE-LABEL: func.func @deep_rows
// CHOICE: linalg.generic {{.*}}kernel = "lane_sum"
// KERNEL-LABEL: func.func @deep_rows
// KERNEL: gpu.launch {{.*}} function(@lane_sum)
// KERNEL-COUNT-16: memref.load %{{.*}} : memref<?x64xf32>
// KERNEL-NOT: memref.load %{{.*}} : memref<?x64xf32>
// KERNEL: gpu.shuffle xor
// KERNEL: scf.if
// KERNEL: memref.load %{{.*}} : memref<?xf32>
// KERNEL: memref.store %{{.*}} : memref<?xf32>
#rows = affine_map<(e, c) -> (e, c)>
#row = affine_map<(e, c) -> (e)>
func.func @deep_rows(%x: tensor<?x64xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %s = linalg.generic {indexing_maps = [#rows, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%init : tensor<?xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Refused: a sum whose loop an input reads along a middle axis (a thread
// per output already reads it coalesced), a payload that is not a sum, and
// fp64 (the shuffles move 32-bit words).
// CHOICE-LABEL: func.func @middle_axis
// CHOICE: kernel_config<strategy = loops, kernel = "reduce"
// CHOICE-LABEL: func.func @largest
// CHOICE: kernel_config<strategy = loops, kernel = "reduce"
// CHOICE-LABEL: func.func @double
// CHOICE: kernel_config<strategy = loops, kernel = "reduce"
#xT = affine_map<(e, h, c) -> (e, c, h)>
#x3 = affine_map<(e, h, c) -> (e, h, c)>
#o3 = affine_map<(e, h, c) -> (e, h)>
func.func @middle_axis(%x: tensor<?x32x4xf32>, %init: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = linalg.generic {indexing_maps = [#xT, #o3],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x32x4xf32>) outs(%init : tensor<?x4xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %t = arith.addf %acc, %a : f32
      linalg.yield %t : f32
  } -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
func.func @largest(%x: tensor<?x4x32xf32>, %init: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = linalg.generic {indexing_maps = [#x3, #o3],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x32xf32>) outs(%init : tensor<?x4xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %t = arith.maximumf %acc, %a : f32
      linalg.yield %t : f32
  } -> tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
func.func @double(%x: tensor<?x4x32xf64>, %init: tensor<?x4xf64>) -> tensor<?x4xf64> {
  %s = linalg.generic {indexing_maps = [#x3, #o3],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x4x32xf64>) outs(%init : tensor<?x4xf64>) {
    ^bb0(%a: f64, %acc: f64):
      %t = arith.addf %acc, %a : f64
      linalg.yield %t : f64
  } -> tensor<?x4xf64>
  return %s : tensor<?x4xf64>
}
