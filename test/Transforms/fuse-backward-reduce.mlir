// RUN: sezm-opt %s --sezm-select-schedule --sezm-fuse-backward-reduce --split-input-file --verify-diagnostics | FileCheck %s

// Under the inference schedule, over the source CSR, at rank 1: fused.
// CHECK-LABEL: func.func @fused
// CHECK: %[[GX:.*]], %[[GW:.*]], %[[GK:.*]] = sezm.rotate_mix_grad_reduce %{{.*}}, %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} over(%{{.*}}, %{{.*}}) lmax = 3 rank = 1
// CHECK-NOT: sezm.segment_reduce
// CHECK: return %[[GX]], %[[GW]], %[[GK]]
// expected-remark @+1 {{inference schedule}}
func.func @fused(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "src"}, %sr: tensor<?xi64> {sezm.csr_of = "src"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)  {
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

// -----

// CHECK-LABEL: func.func @training
// CHECK: sezm.rotate_mix_grad %
// CHECK: sezm.segment_reduce
// expected-remark @+1 {{training schedule}}
func.func @training(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "src"}, %sr: tensor<?xi64> {sezm.csr_of = "src"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>) attributes {sezm.training} {
  // expected-remark @+1 {{not fused with the segment reduction: @training has the training schedule: the fused backward has no derivative rule}}
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

// -----

// CHECK-LABEL: func.func @rank_two
// CHECK: sezm.segment_reduce
// expected-remark @+1 {{inference schedule}}
func.func @rank_two(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x50xf32>, %cb: tensor<2x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "src"}, %sr: tensor<?xi64> {sezm.csr_of = "src"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x50xf32>)  {
  // expected-remark @+1 {{not fused with the segment reduction: rank = 2: the fused backward folds a single channel basis (rank <= 1)}}
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 2
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x50xf32>, tensor<2x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x50xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x50xf32>
}

// -----

// CHECK-LABEL: func.func @node_gradient_used_twice
// CHECK: sezm.segment_reduce
// expected-remark @+1 {{inference schedule}}
func.func @node_gradient_used_twice(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "src"}, %sr: tensor<?xi64> {sezm.csr_of = "src"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<?x16x64xf32>)  {
  // expected-remark @+1 {{not fused with the segment reduction: the per-edge node gradient has other uses}}
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc, %gxe : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<?x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @destination_csr
// CHECK: sezm.segment_reduce
// expected-remark @+1 {{inference schedule}}
func.func @destination_csr(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src"}, %dst: tensor<?xi64> {sezm.name = "dst"},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "dst"}, %sr: tensor<?xi64> {sezm.csr_of = "dst"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)  {
  // expected-remark @+1 {{not fused with the segment reduction: the reduction is not over the source CSR: its order and rowptr must be arguments marked sezm.csr_of = "src"}}
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

// -----

// Without its name the source index has no CSR: the artifact compiler once
// dropped the names before the fusions, and nothing fused.
// CHECK-LABEL: func.func @unnamed_source
// CHECK: sezm.segment_reduce
// expected-remark @+1 {{inference schedule}}
func.func @unnamed_source(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64>, %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
    %cb: tensor<1x64xf32>, %so: tensor<?xi64> {sezm.csr_of = "src"},
    %sr: tensor<?xi64> {sezm.csr_of = "src"})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)  {
  // expected-remark @+1 {{not fused with the segment reduction: 'src' has no sezm.name, so no CSR can be marked as its own}}
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}
