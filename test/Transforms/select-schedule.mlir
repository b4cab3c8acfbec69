// RUN: sezm-opt %s --sezm-select-schedule --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @energy_forces
// CHECK-SAME: sezm.schedule = "inference"
// expected-remark @+1 {{inference schedule: nothing differentiates @energy_forces again (not marked sezm.training or sezm.create_graph)}}
func.func @energy_forces() {
  return
}

// -----

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: sezm.schedule = "training"
// expected-remark @+1 {{training schedule: @train_step is marked sezm.training, so its gradients are differentiated again}}
func.func @train_step() attributes {sezm.training} {
  return
}

// -----

// CHECK-LABEL: func.func @forces_for_a_force_loss
// CHECK-SAME: sezm.schedule = "training"
// expected-remark @+1 {{training schedule: @forces_for_a_force_loss was built with create-graph, so its backward ops keep their derivative rules}}
func.func @forces_for_a_force_loss() attributes {sezm.create_graph} {
  return
}
