// RUN: sezm-opt %s --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s

// The aggregation's backward, one warp per edge (blocks of 4 warps), reading
// its destination's gradient rows: the lanes load the edge's 46 kept
// Wigner-D entries together and hand them round (46 index shuffles); each
// lane stores its channels' edge-frame gradient rows; the entries' 46 sums
// and <grad[n], message_e> cross the warp in 31 + 16 butterfly shuffles (47
// values, two groups). No second kernel: the norm gradient's per-node sum is
// a segment_reduce of the per-edge terms.
// CHECK-LABEL: func.func @aggregate_grad
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@envelope_aggregate_grad)
// CHECK-COUNT-46: gpu.shuffle idx
// CHECK-COUNT-47: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: sezm.envelope_aggregate_grad
func.func @aggregate_grad(%g: tensor<?x16x64xf32>, %xl: tensor<?x10x64xf32>,
                          %wd: tensor<?x46xf32>, %env: tensor<?xf32>,
                          %isd: tensor<?xf32>, %dst: tensor<?xi64>)
    -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>) {
  %g1, %g2, %g3, %g4 = sezm.envelope_aggregate_grad %g, %xl by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x46xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>)
  return %g1, %g2, %g3, %g4
      : tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>
}

// The focus scale's backward, one warp per edge. With 16-channel streams a
// warp's pass spans both, so each lane's term goes to its stream's sum by a
// select, and the two sums cross the warp in five shuffles.
// CHECK-LABEL: func.func @scale_grad
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@focus_scale_grad)
// CHECK: arith.select
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: sezm.focus_scale_grad
func.func @scale_grad(%g: tensor<?x10x32xf32>, %y: tensor<?x10x32xf32>,
                      %a: tensor<?x2xf32>)
    -> (tensor<?x10x32xf32>, tensor<?x2xf32>) {
  %gy, %ga = sezm.focus_scale_grad %g, %y by %a
      : (tensor<?x10x32xf32>, tensor<?x10x32xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x32xf32>, tensor<?x2xf32>)
  return %gy, %ga : tensor<?x10x32xf32>, tensor<?x2xf32>
}

// Channels that do not fill a warp stay loop kernels.
// CHECK-LABEL: func.func @narrow
// CHECK: sezm.focus_scale_grad {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "focus_scale_grad">}
func.func @narrow(%g: tensor<?x10x16xf32>, %y: tensor<?x10x16xf32>,
                  %a: tensor<?x2xf32>)
    -> (tensor<?x10x16xf32>, tensor<?x2xf32>) {
  %gy, %ga = sezm.focus_scale_grad %g, %y by %a
      : (tensor<?x10x16xf32>, tensor<?x10x16xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x16xf32>, tensor<?x2xf32>)
  return %gy, %ga : tensor<?x10x16xf32>, tensor<?x2xf32>
}

// The attention aggregation's backward: the softmax weights per (node,
// stream) in a loop kernel, then one warp per CSR position; with two
// streams of 32 channels each warp pass lies in one stream: the
// 46 kept Wigner-D entries' sums and the two streams' <grad[n], message_e>
// cross the warp together (48 values, 31 + 16 shuffles); then the logit and
// env gradients per position and null_logit's over nodes, in loop kernels.
// Nothing is filled first: the warps of positions past rowptr[N] (edges in
// no segment) store their edges' zero gradients.
// CHECK-LABEL: func.func @attention_grad
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@attention_aggregate_grad)
// CHECK-COUNT-46: gpu.shuffle idx
// CHECK-COUNT-47: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: } else {
// CHECK-COUNT-20: memref.store %cst{{[_0-9]*}}, %subview{{.*}} : memref<10xf32, strided<[64], offset: ?>>
// CHECK-COUNT-2: memref.store %cst{{[_0-9]*}}, %{{.*}} : memref<?x46xf32>
// CHECK-COUNT-2: memref.store %cst{{[_0-9]*}}, %{{.*}} : memref<?x2x1xf32>
// CHECK: memref.store %cst{{[_0-9]*}}, %{{.*}} : memref<?xf32>
// CHECK: gpu.terminator
// CHECK-NOT: sezm.attention_aggregate_grad
func.func @attention_grad(%g: tensor<?x16x64xf32>, %xl: tensor<?x10x64xf32>,
                          %wd: tensor<?x46xf32>, %lg: tensor<?x2x1xf32>,
                          %env: tensor<?xf32>, %z: tensor<2x1xf32>,
                          %do: tensor<?xi64>, %dr: tensor<?xi64>)
    -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?x2x1xf32>,
        tensor<?xf32>, tensor<2x1xf32>) {
  %g1, %g2, %g3, %g4, %g5 = sezm.attention_aggregate_grad %g, %xl by %wd
      logit %lg env %env null %z over(%do, %dr) lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x46xf32>,
         tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>, tensor<?xi64>,
         tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?x2x1xf32>,
          tensor<?xf32>, tensor<2x1xf32>)
  return %g1, %g2, %g3, %g4, %g5
      : tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?x2x1xf32>,
        tensor<?xf32>, tensor<2x1xf32>
}

// The focus scale, one warp per edge: no shuffles, one alpha load per pass.
// CHECK-LABEL: func.func @scale
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@focus_scale)
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
// CHECK-NOT: sezm.focus_scale
func.func @scale(%y: tensor<?x10x64xf32>, %a: tensor<?x2xf32>)
    -> tensor<?x10x64xf32> {
  %out = sezm.focus_scale %y by %a
      : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
  return %out : tensor<?x10x64xf32>
}

// The competition's message gradient, one warp per edge (the weight
// gradient unused): each stream's logit is a warp sum (2 x 5 shuffles);
// normalized, its sum of squares and the norm's backward sum too (2 x 15).
// One launch: no zero fill or copy of the other rows beside it.
// CHECK-LABEL: func.func @compete_grad
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@focus_compete_grad)
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
// CHECK: gpu.launch {{.*}} function(@focus_compete_grad)
// CHECK-COUNT-30: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: sezm.focus_compete_grad
func.func @compete_grad(%ga: tensor<?x2xf32>, %u: tensor<?x10x64xf32>,
                        %wfc: tensor<32x2xf32>, %ns: tensor<2x32xf32>,
                        %acc: tensor<?x10x64xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>) {
  %gu, %gw = sezm.focus_compete_grad %ga, %u weight %wfc plus %acc lmax = 3
      focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<?x10x64xf32>) -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  %nu, %nw, %nn = sezm.focus_compete_grad %ga, %u weight %wfc norm %ns
      lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<2x32xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  return %gu, %nu : tensor<?x10x64xf32>, tensor<?x10x64xf32>
}

// With its weight gradient used (training), the loop kernel.
// CHECK-LABEL: func.func @compete_grad_training
// CHECK: sezm.focus_compete_grad {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "focus_compete_grad">}
func.func @compete_grad_training(%ga: tensor<?x2xf32>, %u: tensor<?x10x64xf32>,
                                 %wfc: tensor<32x2xf32>)
    -> (tensor<?x10x64xf32>, tensor<32x2xf32>) {
  %gu, %gw = sezm.focus_compete_grad %ga, %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  return %gu, %gw : tensor<?x10x64xf32>, tensor<32x2xf32>
}

// The gather back to the edges (segment_reduce_grad), one warp per node and
// one more for the positions past rowptr[N] (zeros): the node's row loaded
// once (64 channels: two per lane), then stored to each edge of its
// segment; no bisection of rowptr, no fill of the result first.
// CHECK-LABEL: func.func @gather_rows
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@segment_reduce_grad)
// CHECK-NOT: scf.while
// CHECK: scf.if
// CHECK-COUNT-2: memref.load %{{.*}} : memref<?x64xf32>
// CHECK: scf.for
// CHECK-COUNT-2: memref.store %{{.*}} : memref<?x64xf32>
// CHECK-NOT: sezm.segment_reduce_grad
func.func @gather_rows(%g: tensor<?x64xf32>, %order: tensor<?xi64>,
                       %rowptr: tensor<?xi64>) -> tensor<?x64xf32> {
  %ge = sezm.segment_reduce_grad %g over(%order, %rowptr)
      : (tensor<?x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x64xf32>
  return %ge : tensor<?x64xf32>
}

// A row narrower than a warp: 32 / 3 = 10 edges at a time, 3 lanes each,
// the last two lanes idle.
// CHECK-LABEL: func.func @gather_vectors
// CHECK: function(@segment_reduce_grad)
// CHECK: %[[SLOT:.*]] = arith.divui %{{.*}}, %c3
// CHECK: arith.cmpi ult, %[[SLOT]], %c10
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c10
func.func @gather_vectors(%g: tensor<?x3xf32>, %order: tensor<?xi64>,
                          %rowptr: tensor<?xi64>) -> tensor<?x3xf32> {
  %ge = sezm.segment_reduce_grad %g over(%order, %rowptr)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  return %ge : tensor<?x3xf32>
}
