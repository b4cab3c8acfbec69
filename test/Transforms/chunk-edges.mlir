// RUN: sezm-opt %s --split-input-file --sezm-chunk-edges="rows=4096" 2>/dev/null | FileCheck %s
// RUN: sezm-opt %s --split-input-file --sezm-chunk-edges="rows=4096" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: sezm-chunk-edges: 4 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 2 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 4 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 2 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 2 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 2 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 1 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 2 row-wise ops in chunks of 4096 edges
// REMARK: remark: sezm-chunk-edges: 9 row-wise ops in chunks of 4096 edges
// REMARK-NOT: sezm-chunk-edges
// RUN: not sezm-opt %s --split-input-file --sezm-chunk-edges="rows=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: sezm-chunk-edges: rows must be at least 1, got 0

// A message, an SO(2) layer and a gate before an aggregation: the four
// run in a loop over chunks of 4096 edges, on slices of the per-edge
// operands (the sources, the Wigner-D, the kernel, the envelope); the node
// features, weights and the CSR are read whole. The aggregation sums each
// chunk's edges (`from %lo`) and the loop adds those node sums in place to
// its zero-filled (N, ...) result: the gate's (E, ...) output never exists
// whole.
// CHECK-LABEL: func.func @stack(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x16x64xf32>, %[[SRC:[a-z0-9]+]]: tensor<?xi64>, %[[WD:[a-z0-9]+]]: tensor<?x46xf32>, %[[KC:[a-z0-9]+]]: tensor<?x25xf32>
// CHECK-SAME: %[[ENV:[a-z0-9]+]]: tensor<?xf32>, %[[ISD:[a-z0-9]+]]: tensor<?xf32>, %[[DO:[a-z0-9]+]]: tensor<?xi64>, %[[DR:[a-z0-9]+]]: tensor<?xi64>)
// CHECK: %[[E:.*]] = tensor.dim %[[SRC]]
// CHECK: %[[RP:.*]] = tensor.dim %[[DR]]
// CHECK: %[[N:.*]] = arith.subi %[[RP]], %{{.*}}
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<?x16x64xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]]
// CHECK: %[[AGG:.*]] = scf.for %[[LO:.*]] = %{{.*}} to %[[E]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK: %[[LEFT:.*]] = arith.subi %[[E]], %[[LO]]
// CHECK: %[[COUNT:.*]] = arith.minsi %{{.*}}, %[[LEFT]]
// CHECK: %[[S:.*]] = tensor.extract_slice %[[SRC]][%[[LO]]] [%[[COUNT]]] [1]
// CHECK: %[[W:.*]] = tensor.extract_slice %[[WD]][%[[LO]], 0] [%[[COUNT]], 46] [1, 1]
// CHECK: %[[K:.*]] = tensor.extract_slice %[[KC]][%[[LO]], 0] [%[[COUNT]], 25] [1, 1]
// CHECK: %[[U:.*]] = sezm.rotate_mix %[[X]][%[[S]]] by %[[W]] kernel %[[K]]
// CHECK: %[[Z:.*]] = sezm.so2_linear %[[U]]
// CHECK: %[[G:.*]] = sezm.gate %[[Z]] weight %{{.*}} plus %[[U]]
// CHECK: %[[EN:.*]] = tensor.extract_slice %[[ENV]][%[[LO]]] [%[[COUNT]]] [1]
// CHECK: %[[PART:.*]] = sezm.envelope_aggregate %[[G]] by %[[W]] env %[[EN]] norm %[[ISD]] over(%[[DO]], %[[DR]]) from %[[LO]]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[PART]] : tensor<?x16x64xf32>) outs(%[[ACC]] : tensor<?x16x64xf32>)
// CHECK: arith.addf
// CHECK: scf.yield %[[SUM]]
// CHECK: return %[[AGG]]
func.func @stack(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>, %wd: tensor<?x46xf32>,
                 %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
                 %w0: tensor<2x128x128xf32>, %wu: tensor<2x96x96xf32>,
                 %wv: tensor<2x96x96xf32>, %gw: tensor<2x32x96xf32>,
                 %env: tensor<?xf32>, %isd: tensor<?xf32>,
                 %do: tensor<?xi64>, %dr: tensor<?xi64>)
    -> tensor<?x16x64xf32> attributes {sezm.schedule = "inference"} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %y = sezm.gate %z weight %gw plus %u lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x10x64xf32>)
      -> tensor<?x10x64xf32>
  %agg = sezm.envelope_aggregate %y by %wd env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return %agg : tensor<?x16x64xf32>
}

// -----

// A message read by a layer before an aggregation and by another layer
// that needs the aggregation's result (through a second message): the two
// chains cannot share a loop, so the second computes the first message
// again, chunk by chunk. The first aggregation, whose sum a chunked op
// reads, runs whole after its loop; the second sums in its loop.
// CHECK-LABEL: func.func @recomputed
// CHECK: %[[A:.*]] = scf.for
// CHECK: sezm.rotate_mix %arg0
// CHECK: sezm.so2_linear
// CHECK: scf.yield
// CHECK: %[[AGG:.*]] = sezm.envelope_aggregate %[[A]]
// CHECK-NOT: from
// CHECK-SAME: -> tensor<?x16x64xf32>
// CHECK: scf.for
// CHECK-DAG: %[[U:.*]] = sezm.rotate_mix %arg0
// CHECK-DAG: %[[U2:.*]] = sezm.rotate_mix %[[AGG]]
// CHECK: %[[B:.*]] = sezm.so2_linear %[[U]] weights({{.*}}) plus %[[U2]]
// CHECK: sezm.envelope_aggregate %[[B]] {{.*}} from
// CHECK: linalg.generic
// CHECK: scf.yield
func.func @recomputed(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                      %wd: tensor<?x46xf32>, %kc: tensor<?x25xf32>,
                      %cb: tensor<1x64xf32>, %w0: tensor<2x128x128xf32>,
                      %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
                      %env: tensor<?xf32>, %isd: tensor<?xf32>,
                      %do: tensor<?xi64>, %dr: tensor<?xi64>)
    -> (tensor<?x16x64xf32>, tensor<?x16x64xf32>)
    attributes {sezm.schedule = "inference"} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %a = sezm.envelope_aggregate %z by %wd env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  %u2 = sezm.rotate_mix %a[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %z2 = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %u2 lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>, tensor<?x10x64xf32>) -> tensor<?x10x64xf32>
  %b = sezm.envelope_aggregate %z2 by %wd env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return %a, %b : tensor<?x16x64xf32>, tensor<?x16x64xf32>
}

// -----

// Not chunked: under the training schedule (a backward differentiated
// again keeps its activations), a message alone before its aggregation
// (no value lives only inside the chain), and a layer gradient whose weight
// gradient (a sum over the edges) is used.
// CHECK-LABEL: func.func @training
// CHECK-NOT: scf.for
// CHECK: return
func.func @training(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                    %wd: tensor<?x46xf32>, %kc: tensor<?x25xf32>,
                    %cb: tensor<1x64xf32>, %w0: tensor<2x128x128xf32>,
                    %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> tensor<?x10x64xf32> attributes {sezm.schedule = "training"} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

// -----

// CHECK-LABEL: func.func @alone
// CHECK-NOT: scf.for
// CHECK: return
func.func @alone(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                 %wd: tensor<?x46xf32>, %kc: tensor<?x25xf32>,
                 %cb: tensor<1x64xf32>) -> tensor<?x10x64xf32>
    attributes {sezm.schedule = "inference"} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  return %u : tensor<?x10x64xf32>
}

// -----

// CHECK-LABEL: func.func @weight_gradient
// CHECK-NOT: scf.for
// CHECK: sezm.so2_linear_grad
// CHECK: return
func.func @weight_gradient(%g: tensor<?x10x64xf32>, %u: tensor<?x10x64xf32>,
                           %w0: tensor<2x128x128xf32>,
                           %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>)
    attributes {sezm.schedule = "inference"} {
  %t = arith.mulf %g, %g : tensor<?x10x64xf32>
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %t, %u weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  return %gu, %gw0 : tensor<?x10x64xf32>, tensor<2x128x128xf32>
}

// -----

// The aggregation's backward reads each edge's destination row of the node
// gradient, so it joins the chain that recomputes its operand: the message
// lives one chunk at a time, the per-edge gradients are written whole, and
// the norm gradient's sum over each destination stays outside the loop.
// CHECK-LABEL: func.func @aggregate_grad(
// CHECK-SAME: %[[DST:[a-z0-9]+]]: tensor<?xi64>, %{{[a-z0-9]+}}: tensor<?xi64>, %{{[a-z0-9]+}}: tensor<?xi64>, %{{[a-z0-9]+}}: tensor<?x16x64xf32>)
// CHECK: scf.for
// CHECK: %[[U:.*]] = sezm.rotate_mix
// CHECK: %[[D:.*]] = tensor.extract_slice %[[DST]]
// CHECK: sezm.envelope_aggregate_grad %{{.*}}, %[[U]] by %{{.*}} env %{{.*}} norm %{{.*}} at %[[D]]
// CHECK: scf.yield
// CHECK: sezm.segment_reduce
func.func @aggregate_grad(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                          %wd: tensor<?x46xf32>, %kc: tensor<?x25xf32>,
                          %cb: tensor<1x64xf32>, %env: tensor<?xf32>,
                          %isd: tensor<?xf32>, %dst: tensor<?xi64>,
                          %do: tensor<?xi64>, %dr: tensor<?xi64>,
                          %g: tensor<?x16x64xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>)
    attributes {sezm.schedule = "inference"} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %gu, %gw, %genv, %terms = sezm.envelope_aggregate_grad %g, %u by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x46xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>)
  %gisd = sezm.segment_reduce %terms over(%do, %dr)
      : (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return %gu, %gw, %genv, %gisd
      : tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// A small result (the envelope gradient, one float per edge) that a later
// chain reads is taken from the loop that computed it, written whole, not
// computed again with the message behind it: the aggregation's backward
// runs once. (A second message, aggregated, stands between the two chains,
// so they cannot share a loop.)
// CHECK-LABEL: func.func @imported(
// CHECK: %[[FIRST:.*]]:4 = scf.for
// CHECK: sezm.envelope_aggregate_grad
// CHECK: scf.yield
// CHECK-NOT: sezm.envelope_aggregate_grad
// CHECK: scf.for
// CHECK: tensor.extract_slice %[[FIRST]]#3
// CHECK: arith.addf
// CHECK: scf.yield
func.func @imported(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                    %wd: tensor<?x46xf32>, %kc: tensor<?x25xf32>,
                    %cb: tensor<1x64xf32>, %env: tensor<?xf32>,
                    %isd: tensor<?xf32>, %dst: tensor<?xi64>,
                    %do: tensor<?xi64>, %dr: tensor<?xi64>,
                    %g: tensor<?x16x64xf32>, %h: tensor<?xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>,
        tensor<?x16x64xf32>, tensor<?xf32>)
    attributes {sezm.schedule = "inference"} {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %gu, %gw, %genv, %terms = sezm.envelope_aggregate_grad %g, %u by %wd
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x46xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>, tensor<?xf32>)
  %gisd = sezm.segment_reduce %terms over(%do, %dr)
      : (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  %v = sezm.rotate_mix %g[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %agg = sezm.envelope_aggregate %v by %wd env %env norm %isd over(%do, %dr)
      lmax = 3 : (tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>,
                  tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  %sum = arith.addf %genv, %h : tensor<?xf32>
  return %gu, %gw, %gisd, %agg, %sum
      : tensor<?x10x64xf32>, tensor<?x46xf32>, tensor<?xf32>,
        tensor<?x16x64xf32>, tensor<?xf32>
}

// -----

// The fused backward's source reduction ends the chain of its message
// gradient: each chunk's edges (`from %lo`) are summed into their sources,
// through the whole source CSR, and added in place to the zero-filled node
// gradient; the per-edge Wigner-D and kernel gradients are written whole.
// An aggregation whose sum is read again by a chunked op is not chunked
// (see @recomputed); neither is one already summing a range.
// CHECK-LABEL: func.func @source_reduction(
// CHECK-SAME: %[[SO:[a-z0-9]+]]: tensor<?xi64>, %[[SR:[a-z0-9]+]]: tensor<?xi64>)
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[R:.*]]:3 = scf.for %[[LO:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]], %[[GW:.*]] = %{{.*}}, %[[GK:.*]] = %{{.*}})
// CHECK: %[[Z:.*]] = sezm.so2_linear
// CHECK: %[[PART:[a-z_0-9]+]], %[[PW:[a-z_0-9]+]], %[[PK:[a-z_0-9]+]] = sezm.rotate_mix_grad_reduce %[[Z]], {{.*}} over(%[[SO]], %[[SR]]) from %[[LO]]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[PART]] : tensor<?x16x64xf32>) outs(%[[ACC]] : tensor<?x16x64xf32>)
// CHECK: tensor.insert_slice %[[PW]] into %[[GW]]
// CHECK: tensor.insert_slice %[[PK]] into %[[GK]]
// CHECK: scf.yield %[[SUM]]
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @source_reduction(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                            %wd: tensor<?x46xf32>, %kc: tensor<?x25xf32>,
                            %cb: tensor<1x64xf32>, %w0: tensor<2x128x128xf32>,
                            %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
                            %u: tensor<?x10x64xf32>,
                            %so: tensor<?xi64>, %sr: tensor<?xi64>)
    -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>)
    attributes {sezm.schedule = "inference"} {
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  %gx, %gwd, %gkc = sezm.rotate_mix_grad_reduce %z, %x[%src] by %wd
      kernel %kc basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x46xf32>, tensor<?x25xf32>, tensor<1x64xf32>, tensor<?xi64>,
         tensor<?xi64>) -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>)
  return %gx, %gwd, %gkc
      : tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>
}

// -----

// A radial network on edge rows (linalg on tensors: an empty edge row sized
// by the edge count, its fill, a matmul against a weight, an activation)
// that makes a message's kernel joins the message's loop: its (E, 128)
// hidden rows live one chunk at a time, the empty row takes the chunk's
// count, and the weight is read whole.
// CHECK-LABEL: func.func @radial(
// CHECK-SAME: %[[R:[a-z0-9]+]]: tensor<?x16xf32>
// CHECK: scf.for %[[LO:.*]] = {{.*}} iter_args
// CHECK: %[[COUNT:.*]] = arith.minsi
// CHECK: %[[EMPTY:.*]] = tensor.empty(%[[COUNT]]) : tensor<?x128xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]]
// CHECK: %[[RS:.*]] = tensor.extract_slice %[[R]][%[[LO]], 0] [%[[COUNT]], 16] [1, 1]
// CHECK: %[[H:.*]] = linalg.matmul ins(%[[RS]], %{{.*}} : tensor<?x16xf32>, tensor<16x128xf32>) outs(%[[ZERO]]
// CHECK: %[[T:.*]] = math.tanh %[[H]]
// CHECK: linalg.matmul ins(%[[T]]
// CHECK: sezm.rotate_mix
// CHECK: sezm.so2_linear
// CHECK: scf.yield
func.func @radial(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                  %wd: tensor<?x46xf32>,
                  %r: tensor<?x16xf32> {sezm.extents = ["E", ""]},
                  %w1: tensor<16x128xf32>, %w2: tensor<128x25xf32>,
                  %cb: tensor<1x64xf32>, %w0: tensor<2x128x128xf32>,
                  %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> tensor<?x10x64xf32> attributes {sezm.schedule = "inference"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.dim %r, %c0 : tensor<?x16xf32>
  %h0 = tensor.empty(%e) : tensor<?x128xf32>
  %h1 = linalg.fill ins(%zero : f32) outs(%h0 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %h = linalg.matmul ins(%r, %w1 : tensor<?x16xf32>, tensor<16x128xf32>)
      outs(%h1 : tensor<?x128xf32>) -> tensor<?x128xf32>
  %t = math.tanh %h : tensor<?x128xf32>
  %k0 = tensor.empty(%e) : tensor<?x25xf32>
  %k1 = linalg.fill ins(%zero : f32) outs(%k0 : tensor<?x25xf32>) -> tensor<?x25xf32>
  %kc = linalg.matmul ins(%t, %w2 : tensor<?x128xf32>, tensor<128x25xf32>)
      outs(%k1 : tensor<?x25xf32>) -> tensor<?x25xf32>
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> tensor<?x10x64xf32>
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

// -----

// Not row-wise, so not chunked: a matmul whose init is a value read whole
// (it would accumulate into a slice of it), and a generic that reads the
// edge index itself; the activations between them alone keep a few floats
// an edge.
// CHECK-LABEL: func.func @not_rowwise(
// CHECK-NOT: scf.for
// CHECK: return
func.func @not_rowwise(%r: tensor<?x16xf32> {sezm.extents = ["E", ""]},
                       %w1: tensor<16x128xf32>,
                       %acc: tensor<?x128xf32> {sezm.extents = ["E", ""]})
    -> (tensor<?x128xf32>, tensor<?x128xf32>)
    attributes {sezm.schedule = "inference"} {
  %c0 = arith.constant 0 : index
  %e = tensor.dim %r, %c0 : tensor<?x16xf32>
  %h = linalg.matmul ins(%r, %w1 : tensor<?x16xf32>, tensor<16x128xf32>)
      outs(%acc : tensor<?x128xf32>) -> tensor<?x128xf32>
  %t = math.tanh %h : tensor<?x128xf32>
  %i0 = tensor.empty(%e) : tensor<?x128xf32>
  %i = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x128xf32>) outs(%i0 : tensor<?x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %row = linalg.index 0 : index
    %ri = arith.index_cast %row : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %s = arith.mulf %in, %rf : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %m = math.tanh %i : tensor<?x128xf32>
  return %t, %m : tensor<?x128xf32>, tensor<?x128xf32>
}
