// lane_sum on a GPU against the CPU: outputs that end inside a lane group
// and inside a block, one term a lane and two, 8 lanes an output, a fill
// folded in and an init read.
// REQUIRES: cuda, runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool random %t/x.npy f32 1003,4,32 1
// RUN: %npytool random %t/y.npy f32 1003,32 2
// RUN: %npytool random %t/rows.npy f32 1001,64 3
// RUN: %npytool random %t/init.npy f32 1001 4
// RUN: %npytool random %t/narrow.npy f32 999,3,8 5
// RUN: sezm-compile %s --target all -o %t/m.sezm
// RUN: sezm-exec %t/m.sezm --device cpu --entry channel_sum --input x=%t/x.npy --input y=%t/y.npy --output-dir %t/cpu
// RUN: sezm-exec %t/m.sezm --device cpu --entry deep_rows --input rows=%t/rows.npy --input init=%t/init.npy --output-dir %t/cpu
// RUN: sezm-exec %t/m.sezm --device cpu --entry narrow --input narrow=%t/narrow.npy --output-dir %t/cpu
// RUN: sezm-exec %t/m.sezm --device gpu --entry channel_sum --input x=%t/x.npy --input y=%t/y.npy --expect %t/cpu | FileCheck %s --check-prefix=CHANNEL
// RUN: sezm-exec %t/m.sezm --device gpu --entry deep_rows --input rows=%t/rows.npy --input init=%t/init.npy --expect %t/cpu | FileCheck %s --check-prefix=DEEP
// RUN: sezm-exec %t/m.sezm --device gpu --entry narrow --input narrow=%t/narrow.npy --expect %t/cpu | FileCheck %s --check-prefix=NARROW
// Each run repeats the last one's bits.
// RUN: sezm-exec %t/m.sezm --device gpu --entry channel_sum --input x=%t/x.npy --input y=%t/y.npy --output-dir %t/gpu
// RUN: sezm-exec %t/m.sezm --device gpu --entry channel_sum --input x=%t/x.npy --input y=%t/y.npy --expect %t/gpu --rtol 0 --atol 0 | FileCheck %s --check-prefix=CHANNEL
// CHANNEL: s: float32 (1003, 4)
// CHANNEL-NEXT: max abs error {{.*}} ok
// DEEP: d: float32 (1001,)
// DEEP-NEXT: max abs error {{.*}} ok
// NARROW: n: float32 (999, 3)
// NARROW-NEXT: max abs error {{.*}} ok

#x = affine_map<(e, h, c) -> (e, h, c)>
#y = affine_map<(e, h, c) -> (e, c)>
#out = affine_map<(e, h, c) -> (e, h)>
func.func @channel_sum(%x: tensor<?x4x32xf32> {sezm.name = "x"},
                       %y: tensor<?x32xf32> {sezm.name = "y"})
    -> (tensor<?x4xf32> {sezm.name = "s"}) {
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

#rows = affine_map<(e, c) -> (e, c)>
#row = affine_map<(e, c) -> (e)>
func.func @deep_rows(%x: tensor<?x64xf32> {sezm.name = "rows"},
                     %init: tensor<?xf32> {sezm.name = "init"})
    -> (tensor<?xf32> {sezm.name = "d"}) {
  %s = linalg.generic {indexing_maps = [#rows, #row],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%init : tensor<?xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %q = arith.mulf %a, %a : f32
      %t = arith.addf %q, %acc : f32
      linalg.yield %t : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @narrow(%x: tensor<?x3x8xf32> {sezm.name = "narrow"})
    -> (tensor<?x3xf32> {sezm.name = "n"}) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x8xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %s = linalg.generic {indexing_maps = [#x, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x3x8xf32>) outs(%init : tensor<?x3xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %t = arith.addf %acc, %a : f32
      linalg.yield %t : f32
  } -> tensor<?x3xf32>
  return %s : tensor<?x3xf32>
}
