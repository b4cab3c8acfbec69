// RUN: sezm-opt %s --sezm-split-stages | FileCheck %s
// RUN: sezm-opt %S/Inputs/split-stages-skip.mlir --verify-diagnostics --sezm-split-stages="energy=skip" -o /dev/null
// RUN: not sezm-opt %s --sezm-split-stages="energy=none" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: sezm-split-stages: @none has no sezm.exchange, so no stages
// RUN: not sezm-opt %s --sezm-split-stages="energy=absent" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ABSENT
// ABSENT: error: sezm-split-stages: no function @absent

// A model of three stages: the node features from the types (stage 0,
// which reads no geometry: no backward), one block scaling them by the
// envelope summed into each node (stage 1), and a readout summed over the
// atoms (stage 2). The exchanges stay in @energy itself (they fold away).

// CHECK-LABEL: func.func @energy(
// CHECK: sezm.exchange
// CHECK: sezm.exchange

// Stage 0 reads the positions' count and the types only.
// CHECK-LABEL: func.func @energy_stage0(
// CHECK-SAME: %{{.*}}: tensor<?x3xf64> {sezm.extents = ["N", ""], sezm.name = "positions"}, %{{.*}}: tensor<?xi64> {sezm.extents = ["N"], sezm.name = "types"}, %{{.*}}: tensor<2x4xf64> {sezm.name = "embedding"})
// CHECK-SAME: -> (tensor<?x4xf64> {sezm.name = "features"})
// CHECK-NOT: sezm.exchange
// CHECK-NOT: sezm.envelope
// CHECK: return
// CHECK-NOT: func.func @energy_stage0_backward

// The backward of stage 1: the geometry's share of the forces and virial
// and the features' gradient, from the gradient of the stage's result.
// CHECK-LABEL: func.func @energy_stage1_backward(
// CHECK-SAME: sezm.name = "positions"
// CHECK-SAME: %{{.*}}: tensor<?x4xf64> {sezm.extents = ["N", ""], sezm.name = "features"}, %{{.*}}: tensor<?x4xf64> {sezm.extents = ["N", ""], sezm.name = "features_out_grad"})
// CHECK-SAME: -> (tensor<?x3xf64> {sezm.name = "forces"}, tensor<3x3xf64> {sezm.name = "virial"}, tensor<?x4xf64> {sezm.name = "features_grad"})
// CHECK-NOT: sezm.exchange
// CHECK: sezm.envelope_grad
// CHECK: sezm.edge_vectors_grad

// CHECK-LABEL: func.func @energy_stage1(
// CHECK-SAME: %{{.*}}: tensor<?x4xf64> {sezm.extents = ["N", ""], sezm.name = "features"})
// CHECK-SAME: -> (tensor<?x4xf64> {sezm.name = "features"})
// CHECK-NOT: sezm.exchange
// CHECK: sezm.envelope
// CHECK: sezm.segment_reduce
// CHECK: return

// The readout reads the features alone: no forces of its own.
// CHECK-LABEL: func.func @energy_stage2_backward(
// CHECK-SAME: %{{.*}}: tensor<?x4xf64> {sezm.extents = ["N", ""], sezm.name = "features"})
// CHECK-SAME: -> (tensor<?x4xf64> {sezm.name = "features_grad"})
// CHECK-LABEL: func.func @energy_stage2(
// CHECK-SAME: %{{.*}}: tensor<?x4xf64> {sezm.extents = ["N", ""], sezm.name = "features"})
// CHECK-SAME: -> (tensor<f64> {sezm.name = "energy"})
// CHECK: linalg.reduce
// CHECK-NOT: _work
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions", sezm.extents = ["N", ""]},
                  %src: tensor<?xi64> {sezm.name = "src", sezm.extents = ["E"]},
                  %dst: tensor<?xi64> {sezm.name = "dst", sezm.extents = ["E"]},
                  %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src", sezm.extents = ["E"]},
                  %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src", sezm.extents = ["N+1"]},
                  %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst", sezm.extents = ["E"]},
                  %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst", sezm.extents = ["N+1"]},
                  %types: tensor<?xi64> {sezm.name = "types", sezm.extents = ["N"]},
                  %emb: tensor<2x4xf64> {sezm.name = "embedding"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %pos, %c0 : tensor<?x3xf64>
  %x0e = tensor.empty(%n) : tensor<?x4xf64>
  %x0 = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n)>, affine_map<(n, c) -> (n, c)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%types : tensor<?xi64>) outs(%x0e : tensor<?x4xf64>) {
    ^bb0(%t: i64, %out: f64):
      %c = linalg.index 1 : index
      %ti = arith.index_cast %t : i64 to index
      %h = tensor.extract %emb[%ti, %c] : tensor<2x4xf64>
      linalg.yield %h : f64
  } -> tensor<?x4xf64>
  %x0s = sezm.exchange %x0 : tensor<?x4xf64>
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %env = sezm.envelope %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf64>) -> tensor<?xf64>
  %e = tensor.dim %env, %c0 : tensor<?xf64>
  %env1 = tensor.expand_shape %env [[0, 1]] output_shape [%e, 1]
      : tensor<?xf64> into tensor<?x1xf64>
  %deg = sezm.segment_reduce %env1 over(%do, %dr)
      : (tensor<?x1xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x1xf64>
  %ones = arith.constant dense<1.0> : tensor<1x4xf64>
  %mE = tensor.empty(%n) : tensor<?x4xf64>
  %mZ = linalg.fill ins(%zero : f64) outs(%mE : tensor<?x4xf64>) -> tensor<?x4xf64>
  %degB = linalg.matmul ins(%deg, %ones : tensor<?x1xf64>, tensor<1x4xf64>)
      outs(%mZ : tensor<?x4xf64>) -> tensor<?x4xf64>
  %x1 = arith.mulf %x0s, %degB : tensor<?x4xf64>
  %x1s = sezm.exchange %x1 : tensor<?x4xf64>
  %sq = arith.mulf %x1s, %x1s : tensor<?x4xf64>
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %energy = linalg.reduce ins(%sq : tensor<?x4xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %energy : tensor<f64>
}

// No exchange: nothing to cut.
func.func @none(%pos: tensor<?x3xf64> {sezm.name = "positions"}) -> tensor<f64> {
  %zero = arith.constant dense<0.0> : tensor<f64>
  return %zero : tensor<f64>
}
