// RUN: sezm-opt %s --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s

// The RMS norms and their gradients as one warp per row (rms_norm) or per
// node (equivariant_rms_norm): blocks of 4 warps, lanes over channels (64
// channels: two per lane, loaded once), the sums over channels finished by
// the warp's butterfly (xor shuffles 16 ... 1), no loop over channels.

// CHECK-LABEL: func.func @row
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@rms_norm)
// CHECK-COUNT-2: memref.load %{{.*}} : memref<?x64xf32>
// CHECK: gpu.shuffle xor {{.*}}, %c16_i32
// CHECK: gpu.shuffle xor {{.*}}, %c1_i32
// CHECK-NOT: scf.for
// CHECK-COUNT-2: memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch {{.*}} function(@rms_norm_grad)
// CHECK-COUNT-2: gpu.shuffle xor {{.*}}, %c16_i32
// CHECK-NOT: scf.for
// CHECK: gpu.terminator
// CHECK-NOT: sezm.rms_norm
func.func @row(%x: tensor<?x64xf32>, %s: tensor<64xf32>, %g: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %y = sezm.rms_norm %x scale %s eps = 1.0e-7
      : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %gx = sezm.rms_norm_grad %g, %x scale %s eps = 1.0e-7
      : (tensor<?x64xf32>, tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %y, %gx : tensor<?x64xf32>, tensor<?x64xf32>
}

// A node's 16 rows (lmax 3) in one warp: the l = 0 row's mean, then one
// butterfly for the shared mean square; the gradient adds one for A and
// one for the l = 0 row's centring.
// CHECK-LABEL: func.func @node
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c4{{.*}}, {{.*}}) function(@equivariant_rms_norm)
// CHECK-COUNT-32: memref.load %{{.*}} : memref<?x16x64xf32>
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: scf.for
// CHECK-COUNT-32: memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch {{.*}} function(@equivariant_rms_norm_grad)
// CHECK-COUNT-20: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: scf.for
// CHECK: gpu.terminator
// CHECK-NOT: sezm.equivariant_rms_norm
func.func @node(%x: tensor<?x16x64xf32>, %s: tensor<4x64xf32>,
                %b: tensor<64xf32>, %g: tensor<?x16x64xf32>)
    -> (tensor<?x16x64xf32>, tensor<?x16x64xf32>) {
  %y = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
      : (tensor<?x16x64xf32>, tensor<4x64xf32>, tensor<64xf32>)
      -> tensor<?x16x64xf32>
  %gx = sezm.equivariant_rms_norm_grad %g, %x scale %s lmax = 3 eps = 1.0e-5
      : (tensor<?x16x64xf32>, tensor<?x16x64xf32>, tensor<4x64xf32>)
      -> tensor<?x16x64xf32>
  return %y, %gx : tensor<?x16x64xf32>, tensor<?x16x64xf32>
}

// Channels that do not fill whole warps stay loop kernels.
// CHECK-LABEL: func.func @narrow_rows
// CHECK: sezm.rms_norm {{.*}}kernel_config = #sezm.kernel_config<strategy = loops, kernel = "rms_norm">
func.func @narrow_rows(%x: tensor<?x48xf32>, %s: tensor<48xf32>) -> tensor<?x48xf32> {
  %y = sezm.rms_norm %x scale %s eps = 1.0e-7
      : (tensor<?x48xf32>, tensor<48xf32>) -> tensor<?x48xf32>
  return %y : tensor<?x48xf32>
}
