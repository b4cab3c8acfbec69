// RUN: sezm-opt %s --canonicalize --split-input-file | FileCheck %s

// An unused channel-basis gradient is dropped; the other results stay.
// CHECK-LABEL: func.func @drop_unused_cb_grad
// CHECK: %[[XL:.*]], %[[KC:.*]] = sezm.mix_grad %{{.*}}, %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1 : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>) -> (tensor<?x10x64xf32>, tensor<?x25xf32>)
// CHECK: return %[[XL]], %[[KC]]
func.func @drop_unused_cb_grad(%g: tensor<?x10x64xf32>, %xl: tensor<?x10x64xf32>,
                               %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x25xf32>) {
  %gxl, %gkc, %gcb = sezm.mix_grad %g, %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
  return %gxl, %gkc : tensor<?x10x64xf32>, tensor<?x25xf32>
}

// -----

// A used channel-basis gradient stays.
// CHECK-LABEL: func.func @keep_used_cb_grad
// CHECK: %{{.*}}, %{{.*}}, %[[CB:.*]] = sezm.mix_grad
// CHECK-SAME: -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
// CHECK: return %[[CB]]
func.func @keep_used_cb_grad(%g: tensor<?x10x64xf32>, %xl: tensor<?x10x64xf32>,
                             %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>)
    -> tensor<1x64xf32> {
  %gxl, %gkc, %gcb = sezm.mix_grad %g, %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
  return %gcb : tensor<1x64xf32>
}

// -----

// The same for the fused backward; the discardable attribute survives.
// CHECK-LABEL: func.func @drop_unused_cb_grad_fused
// CHECK: %[[N:.*]], %[[W:.*]], %[[K:.*]] = sezm.rotate_mix_grad
// CHECK-SAME: {note = "kept"}
// CHECK-SAME: -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
// CHECK: return %[[N]], %[[W]], %[[K]]
func.func @drop_unused_cb_grad_fused(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                                     %src: tensor<?xi64>, %w: tensor<?x16x16xf32>,
                                     %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>)
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>) {
  %a, %b, %c, %d = sezm.rotate_mix_grad %g, %x[%src] by %w kernel %kc basis %cb
      lmax = 3 rank = 1 {note = "kept"}
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>,
          tensor<1x64xf32>)
  return %a, %b, %c : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

// -----

// Pure ops whose results are unused disappear.
// CHECK-LABEL: func.func @dead_ops
// CHECK-NOT: sezm.
// CHECK: return
func.func @dead_ops(%v: tensor<?x3xf32>) {
  %wd = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  return
}

// -----

// An exchange is the identity outside the stages it separates.
// CHECK-LABEL: func.func @exchange_folds
// CHECK-NOT: sezm.exchange
// CHECK: return %arg0
func.func @exchange_folds(%x: tensor<?x16x32xf32>) -> tensor<?x16x32xf32> {
  %0 = sezm.exchange %x : tensor<?x16x32xf32>
  return %0 : tensor<?x16x32xf32>
}
