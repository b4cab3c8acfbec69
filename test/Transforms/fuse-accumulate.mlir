// RUN: sezm-opt %s --sezm-fuse-accumulate --split-input-file --verify-diagnostics | FileCheck %s

// The mixing stack's residual adds, forward (x + z, z first or second; a
// gated layer's) and backward (g + the input gradient): each folds into its
// op.
// CHECK-LABEL: func.func @residuals
// CHECK-SAME: (%[[X:.*]]: tensor<?x10x64xf32>, %[[G:.*]]: tensor<?x10x64xf32>,
// CHECK: %[[Z:.*]] = sezm.so2_linear %[[X]] weights(%{{.*}}, %{{.*}}, %{{.*}}) plus %[[X]] lmax = 3 focus = 2
// CHECK: %[[Y:.*]] = sezm.so2_linear %[[Z]] weights(%{{.*}}, %{{.*}}, %{{.*}}) plus %[[Z]] lmax = 3 focus = 2
// CHECK: %[[GU:.*]], %{{.*}}, %{{.*}}, %{{.*}} = sezm.so2_linear_grad %[[G]], %[[X]] weights(%{{.*}}, %{{.*}}, %{{.*}}) plus %[[G]] lmax = 3 focus = 2
// CHECK: %[[A:.*]] = sezm.gate %[[Y]] weight %{{.*}} plus %[[Y]] lmax = 3 focus = 2
// CHECK-NOT: arith.addf
// CHECK: return %[[A]], %[[GU]]
func.func @residuals(%x: tensor<?x10x64xf32>, %g: tensor<?x10x64xf32>,
    %w0: tensor<2x128x128xf32>, %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
    %gw: tensor<2x32x96xf32>) -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>) {
  %z = sezm.so2_linear %x weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %r = arith.addf %x, %z : tensor<?x10x64xf32>
  %z2 = sezm.so2_linear %r weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %r2 = arith.addf %z2, %r : tensor<?x10x64xf32>
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %g, %x weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  %s = arith.addf %g, %gu : tensor<?x10x64xf32>
  %act = sezm.gate %r2 weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  %r3 = arith.addf %r2, %act : tensor<?x10x64xf32>
  return %r3, %s : tensor<?x10x64xf32>, tensor<?x10x64xf32>
}

// -----

// The backward of the focus competition meets the stack's input gradient:
// its u_grad starts from it, with or without the competition's norm; the
// weight gradient, unused, does not block it.
// CHECK-LABEL: func.func @competition
// CHECK-SAME: (%[[GA:.*]]: tensor<?x2xf32>, %[[U:.*]]: tensor<?x10x64xf32>, %[[WFC:.*]]: tensor<32x2xf32>, %[[NS:.*]]: tensor<2x32xf32>, %[[GS:.*]]: tensor<?x10x64xf32>)
// CHECK: %[[A:.*]], %{{.*}} = sezm.focus_compete_grad %[[GA]], %[[U]] weight %[[WFC]] plus %[[GS]] lmax = 3 focus = 2
// CHECK: %[[B:.*]], %{{.*}}, %{{.*}} = sezm.focus_compete_grad %[[GA]], %[[U]] weight %[[WFC]] norm %[[NS]] plus %[[A]] lmax = 3 focus = 2
// CHECK-NOT: arith.addf
// CHECK: return %[[B]]
func.func @competition(%ga: tensor<?x2xf32>, %u: tensor<?x10x64xf32>,
    %wfc: tensor<32x2xf32>, %ns: tensor<2x32xf32>, %gs: tensor<?x10x64xf32>)
    -> tensor<?x10x64xf32> {
  %gu, %gw = sezm.focus_compete_grad %ga, %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  %s = arith.addf %gs, %gu : tensor<?x10x64xf32>
  %nu, %nw, %nn = sezm.focus_compete_grad %ga, %u weight %wfc norm %ns
      lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<2x32xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  %t = arith.addf %nu, %s : tensor<?x10x64xf32>
  return %t : tensor<?x10x64xf32>
}

// -----

// The addend is defined after the op: the fused op is built at the add.
// CHECK-LABEL: func.func @addend_after
// CHECK: %[[A:.*]] = arith.mulf
// CHECK-NEXT: sezm.so2_linear %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}) plus %[[A]]
func.func @addend_after(%x: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
    %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>) -> tensor<?x10x64xf32> {
  %z = sezm.so2_linear %x weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %a = arith.mulf %x, %x : tensor<?x10x64xf32>
  %r = arith.addf %a, %z : tensor<?x10x64xf32>
  return %r : tensor<?x10x64xf32>
}

// -----

// Refusals: a result used twice, and weight gradients in use.
// CHECK-LABEL: func.func @refused
// CHECK: arith.addf
// CHECK: arith.addf
func.func @refused(%x: tensor<?x10x64xf32>, %g: tensor<?x10x64xf32>,
    %w0: tensor<2x128x128xf32>, %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>) {
  // expected-remark @+1 {{keeps its add: its result has other uses}}
  %z = sezm.so2_linear %x weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %r = arith.addf %x, %z : tensor<?x10x64xf32>
  // expected-remark @+1 {{keeps its add: its result #1 is used, and the fused op moves to the add}}
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %g, %x weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  %s = arith.addf %g, %gu : tensor<?x10x64xf32>
  return %r, %z, %s, %gw0 : tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>
}

// -----

// An add in a loop body keeps the op outside the loop.
// CHECK-LABEL: func.func @in_loop
// CHECK: sezm.so2_linear %{{.*}} weights(%{{.*}}, %{{.*}}, %{{.*}}) lmax
// CHECK: scf.for
// CHECK: arith.addf
func.func @in_loop(%x: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
    %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>) -> tensor<?x10x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-remark @+1 {{keeps its add: the add is in another block}}
  %z = sezm.so2_linear %x weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> tensor<?x10x64xf32> {
    %s = arith.addf %acc, %z : tensor<?x10x64xf32>
    scf.yield %s : tensor<?x10x64xf32>
  }
  return %r : tensor<?x10x64xf32>
}
