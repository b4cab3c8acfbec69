// RUN: sezm-opt %s --sezm-select-schedule --sezm-rematerialize --split-input-file --verify-diagnostics | FileCheck %s

// Under the inference schedule the message of the first block is computed
// again for the backward of its aggregation, which runs after the second
// block: it need not live in between.
// CHECK-LABEL: func.func @inference
// CHECK: %[[U:.*]] = sezm.rotate_mix
// CHECK: sezm.envelope_aggregate %[[U]]
// CHECK: sezm.rotate_mix
// CHECK: %[[AGAIN:.*]] = sezm.rotate_mix
// CHECK-NEXT: sezm.envelope_aggregate_grad %{{.*}}, %[[AGAIN]]
// expected-remark @+1 {{inference schedule}}
func.func @inference(%x: tensor<?x16x8xf32>, %src: tensor<?xi64>,
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x8xf32>,
    %env: tensor<?xf32>, %isd: tensor<?xf32>, %do: tensor<?xi64>,
    %dr: tensor<?xi64>, %dst: tensor<?xi64>, %g: tensor<?x16x8xf32>)
    -> (tensor<?x16x8xf32>, tensor<?x10x8xf32>) {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x8xf32>) -> tensor<?x10x8xf32>
  %agg = sezm.envelope_aggregate %u by %wd env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x8xf32>
  %u2 = sezm.rotate_mix %agg[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x8xf32>) -> tensor<?x10x8xf32>
  // expected-remark @+1 {{rotate_mix recomputed here (inference schedule)}}
  %gu, %gw, %genv, %gisd = sezm.envelope_aggregate_grad %g, %u by %wd env %env norm %isd
      at %dst lmax = 3
      : (tensor<?x16x8xf32>, tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>)
  return %agg, %u2 : tensor<?x16x8xf32>, tensor<?x10x8xf32>
}

// -----

// A focus-scaled message is computed again from its input and its scales,
// which live on for the focus scale's backward anyway.
// CHECK-LABEL: func.func @focus_scale
// CHECK: %[[S:.*]] = sezm.focus_scale %[[Y:.*]] by %[[A:.*]] :
// CHECK: sezm.envelope_aggregate %[[S]]
// CHECK: sezm.rotate_mix
// CHECK: %[[AGAIN:.*]] = sezm.focus_scale %[[Y]] by %[[A]] :
// CHECK-NEXT: sezm.envelope_aggregate_grad %{{.*}}, %[[AGAIN]]
// CHECK: sezm.focus_scale_grad %{{.*}}, %[[Y]] by %[[A]]
// expected-remark @+1 {{inference schedule}}
func.func @focus_scale(%y: tensor<?x10x8xf32>, %alpha: tensor<?x2xf32>,
    %src: tensor<?xi64>, %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
    %cb: tensor<1x8xf32>, %env: tensor<?xf32>, %isd: tensor<?xf32>,
    %do: tensor<?xi64>, %dr: tensor<?xi64>, %dst: tensor<?xi64>, %g: tensor<?x16x8xf32>)
    -> (tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?x2xf32>) {
  %s = sezm.focus_scale %y by %alpha
      : (tensor<?x10x8xf32>, tensor<?x2xf32>) -> tensor<?x10x8xf32>
  %agg = sezm.envelope_aggregate %s by %wd env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x8xf32>
  %u2 = sezm.rotate_mix %agg[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x8xf32>) -> tensor<?x10x8xf32>
  // expected-remark @+1 {{focus_scale recomputed here (inference schedule)}}
  %gs, %gw, %genv, %gisd = sezm.envelope_aggregate_grad %g, %s by %wd env %env norm %isd
      at %dst lmax = 3
      : (tensor<?x16x8xf32>, tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>)
  %gy, %galpha = sezm.focus_scale_grad %gs, %y by %alpha
      : (tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x8xf32>, tensor<?x2xf32>)
  return %u2, %gy, %galpha : tensor<?x10x8xf32>, tensor<?x10x8xf32>, tensor<?x2xf32>
}

// -----

// Under the training schedule the saved message stays.
// CHECK-LABEL: func.func @training
// CHECK-COUNT-1: sezm.rotate_mix
// CHECK-NOT: sezm.rotate_mix
// expected-remark @+1 {{training schedule}}
func.func @training(%x: tensor<?x16x8xf32>, %src: tensor<?xi64>,
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x8xf32>,
    %env: tensor<?xf32>, %isd: tensor<?xf32>, %do: tensor<?xi64>,
    %dr: tensor<?xi64>, %dst: tensor<?xi64>, %g: tensor<?x16x8xf32>)
    -> (tensor<?x16x8xf32>, tensor<?x10x8xf32>) attributes {sezm.training} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x8xf32>) -> tensor<?x10x8xf32>
  %agg = sezm.envelope_aggregate %u by %wd env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x8xf32>
  %s = sezm.segment_reduce %u over(%do, %dr)
      : (tensor<?x10x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x10x8xf32>
  %gu, %gw, %genv, %gisd = sezm.envelope_aggregate_grad %g, %u by %wd env %env norm %isd
      at %dst lmax = 3
      : (tensor<?x16x8xf32>, tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>)
  return %agg, %s : tensor<?x16x8xf32>, tensor<?x10x8xf32>
}

// -----

// Nothing of sezm runs between the two users: recomputing would cost a
// rotate_mix and free nothing, so the message stays.
// CHECK-LABEL: func.func @adjacent
// CHECK-COUNT-1: sezm.rotate_mix
// CHECK-NOT: sezm.rotate_mix
// expected-remark @+1 {{inference schedule}}
func.func @adjacent(%x: tensor<?x16x8xf32>, %src: tensor<?xi64>,
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x8xf32>,
    %env: tensor<?xf32>, %isd: tensor<?xf32>, %do: tensor<?xi64>,
    %dr: tensor<?xi64>, %dst: tensor<?xi64>, %g: tensor<?x16x8xf32>)
    -> (tensor<?x16x8xf32>, tensor<?x10x8xf32>) {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x8xf32>) -> tensor<?x10x8xf32>
  %agg = sezm.envelope_aggregate %u by %wd env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x8xf32>
  %gu, %gw, %genv, %gisd = sezm.envelope_aggregate_grad %g, %u by %wd env %env norm %isd
      at %dst lmax = 3
      : (tensor<?x16x8xf32>, tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
         tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x8xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>)
  return %agg, %gu : tensor<?x16x8xf32>, tensor<?x10x8xf32>
}

// -----

// Edge vectors are recomputed from the positions for the backward, after the
// messages have run, instead of living through them.
// CHECK-LABEL: func.func @edges
// CHECK: %[[V:.*]] = sezm.edge_vectors
// CHECK: sezm.envelope %[[V]]
// CHECK: sezm.rotate_mix
// CHECK: %[[AGAIN:.*]] = sezm.edge_vectors
// CHECK-NEXT: sezm.envelope_grad %{{.*}}, %[[AGAIN]]
// expected-remark @+1 {{inference schedule}}
func.func @edges(%pos: tensor<?x3xf32>, %src: tensor<?xi64>, %dst: tensor<?xi64>,
    %x: tensor<?x16x8xf32>, %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
    %cb: tensor<1x8xf32>, %g: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?x10x8xf32>, tensor<?x3xf32>) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>, tensor<?x25xf32>,
         tensor<1x8xf32>) -> tensor<?x10x8xf32>
  // expected-remark @+1 {{edge_vectors recomputed here (inference schedule)}}
  %gv = sezm.envelope_grad %g, %v rcut = 6.0 exponent = 5
      : (tensor<?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %env, %u, %gv : tensor<?xf32>, tensor<?x10x8xf32>, tensor<?x3xf32>
}
