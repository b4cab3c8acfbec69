// sezm-keep-wigner-entries: a Wigner-D that only rotations read becomes the
// (E, 46) tensor of the entries they keep (lmax 3); one that anything else
// uses stays whole. The derivatives built after it take the same form, and
// the gradients of its uses add up in it.
// RUN: sezm-opt %sezm_src_root/examples/water/model.mlir --sezm-keep-wigner-entries | FileCheck %s
// RUN: sezm-opt %sezm_src_root/examples/water/model.mlir --sezm-keep-wigner-entries --sezm-autodiff | FileCheck %s --check-prefix=GRAD
// RUN: sezm-opt %s --split-input-file --sezm-keep-wigner-entries | FileCheck %s --check-prefix=WHOLE

// CHECK: %[[W:.*]] = sezm.wigner %{{.*}} lmax = 3 : (tensor<?x3xf32>) -> tensor<?x46xf32>
// CHECK: sezm.rotate_mix %{{.*}} by %[[W]] {{.*}} : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x46xf32>,
// CHECK: sezm.envelope_aggregate %{{.*}} by %[[W]] {{.*}} : (tensor<?x10x8xf32>, tensor<?x46xf32>,

// GRAD-LABEL: func.func @energy_forces(
// GRAD: sezm.envelope_aggregate_grad {{.*}} -> (tensor<?x10x8xf32>, tensor<?x46xf32>,
// GRAD: sezm.rotate_mix_grad {{.*}} -> (tensor<?x16x8xf32>, tensor<?x46xf32>, tensor<?x25xf32>)
// GRAD: arith.addf %{{.*}}, %{{.*}} : tensor<?x46xf32>
// GRAD: sezm.wigner_grad %{{.*}}, %{{.*}} lmax = 3 : (tensor<?x46xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>

// WHOLE-LABEL: func.func @returned
// WHOLE: sezm.wigner %{{.*}} lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
func.func @returned(%v: tensor<?x3xf32>, %x: tensor<?x16x8xf32>,
                    %src: tensor<?xi64>)
    -> (tensor<?x10x8xf32>, tensor<?x16x16xf32>) {
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %xl = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x8xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x10x8xf32>
  return %xl, %w : tensor<?x10x8xf32>, tensor<?x16x16xf32>
}

// -----

// A gradient op already built keeps the whole form (its wigner_grad result
// has the Wigner-D's type).
// WHOLE-LABEL: func.func @backward_built
// WHOLE: sezm.wigner %{{.*}} lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
func.func @backward_built(%v: tensor<?x3xf32>, %x: tensor<?x16x8xf32>,
                          %src: tensor<?xi64>, %g: tensor<?x10x8xf32>)
    -> (tensor<?x16x8xf32>, tensor<?x16x16xf32>) {
  %w = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
  %gx, %gw = sezm.rotate_grad %g, %x[%src] by %w lmax = 3
      : (tensor<?x10x8xf32>, tensor<?x16x8xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>) -> (tensor<?x16x8xf32>, tensor<?x16x16xf32>)
  return %gx, %gw : tensor<?x16x8xf32>, tensor<?x16x16xf32>
}
