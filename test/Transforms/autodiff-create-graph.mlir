// create-graph: the backward of @energy is made of ops with derivative rules,
// so a force loss that calls @energy_forces can be differentiated again.
// RUN: sezm-opt %S/Inputs/force-loss.mlir --sezm-autodiff="create-graph" --inline --sezm-autodiff="energy=loss" | FileCheck %s
// RUN: sezm-opt %S/Inputs/force-loss.mlir --sezm-autodiff="create-graph" --inline --sezm-autodiff="energy=loss" --sezm-select-schedule -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// An SO(2) backward has no second-order rules yet.
// RUN: not sezm-opt %S/autodiff.mlir --sezm-autodiff="create-graph" 2>&1 | FileCheck %s --check-prefix=SO2
// Without create-graph the forces are marked nothing.
// RUN: sezm-opt %S/Inputs/force-loss.mlir --sezm-autodiff | FileCheck %s --check-prefix=PLAIN
// RUN: sezm-opt %s --split-input-file --verify-diagnostics --sezm-autodiff="create-graph"
// Gradients with respect to weights too: a training step on the force loss.
// RUN: sezm-opt %S/Inputs/force-loss.mlir --sezm-autodiff="create-graph" --inline --sezm-autodiff="energy=loss weights=radial_weight,wigner_weight" | FileCheck %s --check-prefix=WEIGHTS
// RUN: not sezm-opt %S/Inputs/force-loss.mlir --sezm-autodiff="create-graph" --inline --sezm-autodiff="energy=loss weights=radial_wieght" 2>&1 | FileCheck %s --check-prefix=NOWEIGHT

// WEIGHTS-LABEL: func.func @loss_forces(
// WEIGHTS-SAME: -> (tensor<f64> {sezm.name = "energy"}, tensor<?x3xf64> {sezm.name = "forces"}, tensor<3x3xf64> {sezm.name = "virial"}, tensor<8x81xf64> {sezm.name = "radial_weight_grad"}, tensor<?x81xf64> {sezm.name = "wigner_weight_grad"})
// The radial weight's gradient through the forward matmul: rbf^T g.
// WEIGHTS: %[[RBFT:.*]] = linalg.transpose ins(%{{.*}} : tensor<?x8xf64>)
// WEIGHTS: linalg.matmul ins(%[[RBFT]], %{{.*}} : tensor<8x?xf64>, tensor<?x81xf64>)
// NOWEIGHT: error: sezm-autodiff: @loss has no weight argument named "radial_wieght"

// The declaration is replaced by the definition, marked for the schedule.
// CHECK-NOT: func.func private @energy_forces
// CHECK-LABEL: func.func @loss(
// The call was inlined: the loss holds the first-order backward.
// CHECK-NOT: func.call
// CHECK: sezm.wigner_grad %
// CHECK-LABEL: func.func @energy_forces(
// CHECK-SAME: attributes {sezm.create_graph}
// The second derivative: the first-order gradient ops differentiated.
// CHECK-LABEL: func.func @loss_forces(
// CHECK: sezm.segment_reduce_grad
// CHECK: %[[DV:.*]] = sezm.edge_vectors %{{.*}}[%arg1, %arg2]
// CHECK: sezm.wigner_grad_grad %[[DV]], %{{.*}}, %{{.*}} lmax = 2
// CHECK: sezm.radial_basis_grad_grad %[[DV]], %{{.*}}, %{{.*}} rcut = 6.000000e+00 exponent = 7
// CHECK: sezm.envelope_grad_grad %[[DV]], %{{.*}}, %{{.*}} rcut = 6.000000e+00 exponent = 5
// CHECK: sezm.edge_vectors_grad

// SCHEDULE: remark: training schedule: @energy_forces was built with create-graph
// SCHEDULE: remark: inference schedule: nothing differentiates @loss_forces again

// SO2: error: sezm-autodiff: create-graph: the backward of @energy uses sezm.{{.*}}_grad, which has no derivative rule yet

// PLAIN-LABEL: func.func @energy_forces(
// PLAIN-NOT: sezm.create_graph
// PLAIN-SAME: {

// expected-error @+1 {{sezm-autodiff: @energy_forces is declared as '(tensor<?x3xf64>) -> tensor<f64>', but it is '(tensor<?x3xf64>) -> (tensor<f64>, tensor<?x3xf64>, tensor<3x3xf64>)'}}
func.func private @energy_forces(tensor<?x3xf64>) -> tensor<f64>
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"})
    -> tensor<f64> {
  %sq = arith.mulf %pos, %pos : tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e = linalg.reduce ins(%sq : tensor<?x3xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}

// -----

// expected-error @+1 {{sezm-autodiff: @energy_forces exists already}}
func.func @energy_forces(%pos: tensor<?x3xf64>) -> tensor<?x3xf64> {
  return %pos : tensor<?x3xf64>
}
func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"})
    -> tensor<f64> {
  %sq = arith.mulf %pos, %pos : tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %scalar = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%scalar : tensor<f64>)
      -> tensor<f64>
  %e = linalg.reduce ins(%sq : tensor<?x3xf64>) outs(%acc : tensor<f64>)
      dimensions = [0, 1]
    (%in: f64, %out: f64) {
      %s = arith.addf %in, %out : f64
      linalg.yield %s : f64
    }
  return %e : tensor<f64>
}
