// RUN: sezm-opt %s --sezm-fuse-focus-scale --split-input-file --verify-diagnostics | FileCheck %s
//
// On the CPU the fused aggregation gives the unfused one's bits (each
// element scaled by the same multiply before the rotation).
// RUN: rm -rf %t && mkdir -p %t && split-file %s %t
// RUN: %npytool random %t/y.npy f32 7,10,64 1
// RUN: %npytool random %t/alpha.npy f32 7,2 2
// RUN: %npytool random %t/wd.npy f32 7,16,16 3
// RUN: %npytool random %t/env.npy f32 7 4
// RUN: %npytool random %t/isd.npy f32 3 5
// RUN: %npytool write %t/do.npy i64 7 "0 3 5 1 6 2 4"
// RUN: %npytool write %t/dr.npy i64 4 "0 3 5 7"
// RUN: sezm-opt %t/run.mlir --sezm-fuse-focus-scale | FileCheck %s --check-prefix=RUN-FUSED
// RUN-FUSED: sezm.envelope_aggregate %{{.*}} scaled %{{.*}} by
// RUN-FUSED-NOT: sezm.focus_scale
// RUN: sezm-run %t/run.mlir --entry aggregate --input y=%t/y.npy --input alpha=%t/alpha.npy --input wd=%t/wd.npy --input env=%t/env.npy --input isd=%t/isd.npy --input do=%t/do.npy --input dr=%t/dr.npy --no-fusion --output-dir %t/unfused > /dev/null
// RUN: sezm-run %t/run.mlir --entry aggregate --input y=%t/y.npy --input alpha=%t/alpha.npy --input wd=%t/wd.npy --input env=%t/env.npy --input isd=%t/isd.npy --input do=%t/do.npy --input dr=%t/dr.npy --output-dir %t/fused > /dev/null
// RUN: cmp %t/fused/agg.npy %t/unfused/agg.npy
//
// The backward likewise: y's and alpha's gradients, the Wigner-D's, the
// envelope's and the norm terms in the same bits.
// RUN: %npytool random %t/g.npy f32 3,16,64 6
// RUN: %npytool write %t/dst.npy i64 7 "0 1 2 0 2 0 1"
// RUN: sezm-opt %t/run.mlir --sezm-fuse-focus-scale | FileCheck %s --check-prefix=RUN-FUSED-GRAD
// RUN-FUSED-GRAD-LABEL: func.func @backward
// RUN-FUSED-GRAD: sezm.envelope_aggregate_grad %{{.*}}, %{{.*}} scaled %{{.*}} by
// RUN-FUSED-GRAD-NOT: sezm.focus_scale
// RUN: sezm-run %t/run.mlir --entry backward --input g=%t/g.npy --input y=%t/y.npy --input alpha=%t/alpha.npy --input wd=%t/wd.npy --input env=%t/env.npy --input isd=%t/isd.npy --input dst=%t/dst.npy --no-fusion --output-dir %t/unfused-grad > /dev/null
// RUN: sezm-run %t/run.mlir --entry backward --input g=%t/g.npy --input y=%t/y.npy --input alpha=%t/alpha.npy --input wd=%t/wd.npy --input env=%t/env.npy --input isd=%t/isd.npy --input dst=%t/dst.npy --output-dir %t/fused-grad > /dev/null
// RUN: cmp %t/fused-grad/gy.npy %t/unfused-grad/gy.npy
// RUN: cmp %t/fused-grad/galpha.npy %t/unfused-grad/galpha.npy
// RUN: cmp %t/fused-grad/gwd.npy %t/unfused-grad/gwd.npy
// RUN: cmp %t/fused-grad/genv.npy %t/unfused-grad/genv.npy
// RUN: cmp %t/fused-grad/terms.npy %t/unfused-grad/terms.npy

// The forward's scaled messages, read by the aggregation alone.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[Y:.*]]: tensor<?x10x64xf32>, %[[A:.*]]: tensor<?x2xf32>,
// CHECK-NOT: sezm.focus_scale
// CHECK: sezm.envelope_aggregate %[[Y]] scaled %[[A]] by %{{.*}} env %{{.*}} norm %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3
func.func @forward(%y: tensor<?x10x64xf32>, %alpha: tensor<?x2xf32>,
    %wd: tensor<?x16x16xf32>, %env: tensor<?xf32>, %isd: tensor<?xf32>,
    %do: tensor<?xi64>, %dr: tensor<?xi64>) -> tensor<?x16x64xf32> {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %agg = sezm.envelope_aggregate %s by %wd env %env norm %isd over(%do, %dr)
      lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %agg : tensor<?x16x64xf32>
}

// -----

// The backward reads the scaled messages too: they are stored anyway.
// CHECK-LABEL: func.func @shared
// CHECK: %[[S:.*]] = sezm.focus_scale
// CHECK: sezm.envelope_aggregate %[[S]] by
func.func @shared(%y: tensor<?x10x64xf32>, %alpha: tensor<?x2xf32>,
    %wd: tensor<?x16x16xf32>, %env: tensor<?xf32>, %isd: tensor<?xf32>,
    %do: tensor<?xi64>, %dr: tensor<?xi64>)
    -> (tensor<?x16x64xf32>, tensor<?x10x64xf32>) {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  // expected-remark @below {{keeps its focus_scale: the scaled messages have other uses}}
  %agg = sezm.envelope_aggregate %s by %wd env %env norm %isd over(%do, %dr)
      lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %agg, %s : tensor<?x16x64xf32>, tensor<?x10x64xf32>
}

// -----

// A scale computed outside a loop body stays there: the loop would scale
// every iteration.
// CHECK-LABEL: func.func @in_loop
// CHECK: sezm.focus_scale
// CHECK: scf.for
// CHECK: sezm.envelope_aggregate %{{.*}} by
func.func @in_loop(%y: tensor<?x10x64xf32>, %alpha: tensor<?x2xf32>,
    %wd: tensor<?x16x16xf32>, %env: tensor<?xf32>, %isd: tensor<?xf32>,
    %do: tensor<?xi64>, %dr: tensor<?xi64>, %init: tensor<?x16x64xf32>)
    -> tensor<?x16x64xf32> {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init)
      -> tensor<?x16x64xf32> {
    // expected-remark @below {{keeps its focus_scale: the scale is in another block}}
    %agg = sezm.envelope_aggregate %s by %wd env %env norm %isd
        over(%do, %dr) lmax = 3
        : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
           tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
    scf.yield %agg : tensor<?x16x64xf32>
  }
  return %r : tensor<?x16x64xf32>
}

// -----

// The backward: the aggregation's backward of the scaled messages, then the
// scale's backward, become one op on y.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[G:[^:]*]]: tensor<?x16x64xf32>, %[[Y:[^:]*]]: tensor<?x10x64xf32>, %[[A:[^:]*]]: tensor<?x2xf32>,
// CHECK-NOT: sezm.focus_scale
// CHECK: %[[GY:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %[[GA:.*]] = sezm.envelope_aggregate_grad %[[G]], %[[Y]] scaled %[[A]] by
// CHECK-NOT: sezm.focus_scale
// CHECK: return %[[GY]], %[[GA]]
func.func @backward(%g: tensor<?x16x64xf32>, %y: tensor<?x10x64xf32>,
    %alpha: tensor<?x2xf32>, %wd: tensor<?x16x16xf32>, %env: tensor<?xf32>,
    %isd: tensor<?xf32>, %dst: tensor<?xi64>)
    -> (tensor<?x10x64xf32>, tensor<?x2xf32>) {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %gs, %gwd, %genv, %terms = sezm.envelope_aggregate_grad %g, %s by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>)
  %gy, %galpha = sezm.focus_scale_grad %gs, %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  return %gy, %galpha : tensor<?x10x64xf32>, tensor<?x2xf32>
}

// -----

// The scaled messages' gradient is returned too: it must be stored.
// CHECK-LABEL: func.func @gradient_shared
// CHECK: sezm.focus_scale
// CHECK: sezm.envelope_aggregate_grad %{{.*}}, %{{.*}} by
// CHECK: sezm.focus_scale_grad
func.func @gradient_shared(%g: tensor<?x16x64xf32>, %y: tensor<?x10x64xf32>,
    %alpha: tensor<?x2xf32>, %wd: tensor<?x16x16xf32>, %env: tensor<?xf32>,
    %isd: tensor<?xf32>, %dst: tensor<?xi64>)
    -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>) {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  // expected-remark @below {{keeps its focus_scale: the scaled messages' gradient is not only the scale's backward's}}
  %gs, %gwd, %genv, %terms = sezm.envelope_aggregate_grad %g, %s by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>)
  %gy, %galpha = sezm.focus_scale_grad %gs, %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  return %gy, %gs : tensor<?x10x64xf32>, tensor<?x10x64xf32>
}

// -----

// The scale's backward takes other factors than the scale: not its backward.
// CHECK-LABEL: func.func @other_factors
// CHECK: sezm.focus_scale
// CHECK: sezm.envelope_aggregate_grad %{{.*}}, %{{.*}} by
// CHECK: sezm.focus_scale_grad
func.func @other_factors(%g: tensor<?x16x64xf32>, %y: tensor<?x10x64xf32>,
    %alpha: tensor<?x2xf32>, %beta: tensor<?x2xf32>, %wd: tensor<?x16x16xf32>,
    %env: tensor<?xf32>, %isd: tensor<?xf32>, %dst: tensor<?xi64>)
    -> tensor<?x10x64xf32> {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  // expected-remark @below {{keeps its focus_scale: the scale's backward reads other messages or factors}}
  %gs, %gwd, %genv, %terms = sezm.envelope_aggregate_grad %g, %s by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>)
  %gy, %galpha = sezm.focus_scale_grad %gs, %y by %beta
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  return %gy : tensor<?x10x64xf32>
}

//--- run.mlir
func.func @aggregate(%y: tensor<?x10x64xf32> {sezm.name = "y"},
    %alpha: tensor<?x2xf32> {sezm.name = "alpha"},
    %wd: tensor<?x16x16xf32> {sezm.name = "wd"},
    %env: tensor<?xf32> {sezm.name = "env"},
    %isd: tensor<?xf32> {sezm.name = "isd"},
    %do: tensor<?xi64> {sezm.name = "do"},
    %dr: tensor<?xi64> {sezm.name = "dr"})
    -> (tensor<?x16x64xf32> {sezm.name = "agg"}) {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %agg = sezm.envelope_aggregate %s by %wd env %env norm %isd over(%do, %dr)
      lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %agg : tensor<?x16x64xf32>
}

func.func @backward(%g: tensor<?x16x64xf32> {sezm.name = "g"},
    %y: tensor<?x10x64xf32> {sezm.name = "y"},
    %alpha: tensor<?x2xf32> {sezm.name = "alpha"},
    %wd: tensor<?x16x16xf32> {sezm.name = "wd"},
    %env: tensor<?xf32> {sezm.name = "env"},
    %isd: tensor<?xf32> {sezm.name = "isd"},
    %dst: tensor<?xi64> {sezm.name = "dst"})
    -> (tensor<?x10x64xf32> {sezm.name = "gy"},
        tensor<?x2xf32> {sezm.name = "galpha"},
        tensor<?x16x16xf32> {sezm.name = "gwd"},
        tensor<?xf32> {sezm.name = "genv"},
        tensor<?xf32> {sezm.name = "terms"}) {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  %gs, %gwd, %genv, %terms = sezm.envelope_aggregate_grad %g, %s by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
          tensor<?xf32>)
  %gy, %galpha = sezm.focus_scale_grad %gs, %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
  return %gy, %galpha, %gwd, %genv, %terms : tensor<?x10x64xf32>,
      tensor<?x2xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>
}
