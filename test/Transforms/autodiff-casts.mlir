// RUN: sezm-opt %s --sezm-autodiff | FileCheck %s
// DeePMD-kit's precision split: fp64 edge vectors into an fp32 network,
// whose energy is summed in fp64. A cast's cotangent is the cast back, so
// the forces and virial come out in fp64.

// CHECK-LABEL: func.func @energy_forces(
// CHECK-SAME: -> (tensor<f64> {sezm.name = "energy"}, tensor<?x3xf64> {sezm.name = "forces"}, tensor<3x3xf64> {sezm.name = "virial"})
// CHECK: %[[V:.*]] = sezm.edge_vectors
// CHECK: %[[V32:.*]] = arith.truncf %[[V]] : tensor<?x3xf64> to tensor<?x3xf32>
// CHECK: %[[ENV:.*]] = sezm.envelope %[[V32]]
// CHECK: %[[G64:.*]] = linalg.broadcast ins({{.*}} : tensor<f64>) outs({{.*}} : tensor<?xf64>)
// CHECK: %[[G32:.*]] = arith.truncf %[[G64]] : tensor<?xf64> to tensor<?xf32>
// CHECK: %[[GV32:.*]] = sezm.envelope_grad %[[G32]], %[[V32]]
// CHECK: %[[GV:.*]] = arith.extf %[[GV32]] : tensor<?x3xf32> to tensor<?x3xf64>
// CHECK: sezm.edge_vectors_grad %[[GV]]
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"},
                  %src: tensor<?xi64> {sezm.name = "src"},
                  %dst: tensor<?xi64> {sezm.name = "dst"},
                  %so: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src"},
                  %sr: tensor<?xi64> {sezm.name = "src_rowptr", sezm.csr_of = "src"},
                  %do: tensor<?xi64> {sezm.name = "dst_order", sezm.csr_of = "dst"},
                  %dr: tensor<?xi64> {sezm.name = "dst_rowptr", sezm.csr_of = "dst"})
    -> (tensor<f64> {sezm.name = "energy"}) {
  %v = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf64>
  %v32 = arith.truncf %v : tensor<?x3xf64> to tensor<?x3xf32>
  %env = sezm.envelope %v32 rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>) -> tensor<?xf32>
  %env64 = arith.extf %env : tensor<?xf32> to tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>) -> tensor<f64>
  %e = linalg.reduce ins(%env64 : tensor<?xf64>) outs(%acc : tensor<f64>)
      dimensions = [0]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}
