// RUN: sezm-opt %s --sezm-fuse-rotate-mix --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @fused
// CHECK-NOT: sezm.rotate %
// CHECK: %[[U:.*]] = sezm.rotate_mix %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} basis %{{.*}} lmax = 3 rank = 1
// CHECK-NOT: sezm.mix
// CHECK: return %[[U]]
func.func @fused(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                 %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                 %cb: tensor<1x64xf32>) -> tensor<?x10x64xf32> {
  %xl = sezm.rotate %x[%src] by %wd lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>) -> tensor<?x10x64xf32>
  %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  return %y : tensor<?x10x64xf32>
}

// -----

// The mixer-free mode fuses too.
// CHECK-LABEL: func.func @mixer_free
// CHECK: sezm.rotate_mix %{{.*}}[%{{.*}}] by %{{.*}} kernel %{{.*}} lmax = 2 rank = 0
func.func @mixer_free(%x: tensor<?x9x32xf32>, %src: tensor<?xi64>,
                      %wd: tensor<?x9x9xf32>, %rad: tensor<?x3x32xf32>)
    -> tensor<?x7x32xf32> {
  %xl = sezm.rotate %x[%src] by %wd lmax = 2
      : (tensor<?x9x32xf32>, tensor<?xi64>, tensor<?x9x9xf32>) -> tensor<?x7x32xf32>
  %y = sezm.mix %xl kernel %rad lmax = 2 rank = 0
      : (tensor<?x7x32xf32>, tensor<?x3x32xf32>) -> tensor<?x7x32xf32>
  return %y : tensor<?x7x32xf32>
}

// -----

// Rotated features used elsewhere too stay as they are.
// CHECK-LABEL: func.func @shared_rotation
// CHECK: sezm.rotate %
// CHECK: sezm.mix
// CHECK-NOT: sezm.rotate_mix
func.func @shared_rotation(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                           %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                           %cb: tensor<1x64xf32>)
    -> (tensor<?x10x64xf32>, tensor<?x10x64xf32>) {
  %xl = sezm.rotate %x[%src] by %wd lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>) -> tensor<?x10x64xf32>
  %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  return %y, %xl : tensor<?x10x64xf32>, tensor<?x10x64xf32>
}
