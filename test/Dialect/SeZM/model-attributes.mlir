// RUN: sezm-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: module attributes {sezm.rcut = 6.000000e+00 : f64, sezm.type_map = ["O", "H"]}
module attributes {sezm.type_map = ["O", "H"], sezm.rcut = 6.0 : f64} {
}

// -----

// expected-error @+1 {{'sezm.type_map' names species 'O' twice}}
module attributes {sezm.type_map = ["O", "H", "O"]} {
}

// -----

// expected-error @+1 {{'sezm.type_map' must be a non-empty array of species names}}
module attributes {sezm.type_map = []} {
}

// -----

// expected-error @+1 {{'sezm.type_map' holds 3 : i64, which is not a species name}}
module attributes {sezm.type_map = ["O", 3]} {
}

// -----

// expected-error @+1 {{'sezm.rcut' must be a positive cutoff radius in A}}
module attributes {sezm.rcut = -1.0 : f64} {
}

// -----

module {
  // expected-error @+1 {{'sezm.rcut' describes the model: it belongs on the module}}
  func.func @f() attributes {sezm.rcut = 6.0 : f64} {
    return
  }
}

// -----

// A GEMM's precision, one for all its products or one each; IEEE, the
// default, is not printed.
// CHECK-LABEL: func.func @precisions
// CHECK-SAME: #sezm.kernel_config<strategy = microkernel, kernel = "so2_linear", blocks_per_sm = 2, workgroup_tile = [128, 96, 16, 128, 128, 8], thread_tile = [8, 6], precision = [ieee, tf32x3], warp_tile = [32, 64]>
// CHECK: #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", workgroup_tile = [128, 128, 8], precision = tf32x3, warp_tile = [32, 64]>
// CHECK: #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", workgroup_tile = [128, 128, 16], thread_tile = [8, 8]>
func.func @precisions() attributes {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "so2_linear", blocks_per_sm = 2, workgroup_tile = [128, 96, 16, 128, 128, 8], thread_tile = [8, 6], precision = [ieee, tf32x3], warp_tile = [32, 64]>} {
  return {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", workgroup_tile = [128, 128, 8], precision = [tf32x3], warp_tile = [32, 64]>}
}
func.func @ieee() {
  return {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", workgroup_tile = [128, 128, 16], thread_tile = [8, 8], precision = ieee>}
}

// -----

// expected-error @+2 {{expected a GEMM precision (ieee or tf32x3), got 'bf16x3'}}
// expected-error @+1 {{failed to parse SeZM_KernelConfigAttr parameter 'precision'}}
func.func @unknown_precision() attributes {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", precision = [ieee, bf16x3]>} {
  return
}
