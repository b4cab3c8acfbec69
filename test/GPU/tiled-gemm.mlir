// RUN: sezm-opt %s --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s

// A matmul over edges (E x 40) (40 x 25) on the GEMM schedule: blocks of
// 256 threads over 128-row tiles, one column tile (25 columns padded to
// 32), the depth copied 16 at a time (cp.async) into two stages of
// workgroup memory: A row by row, 4 depths (16 bytes) a copy, each row
// padded to 20 words; B as is, a word a copy (25 columns are no whole
// groups). The first slice's copies started, then per slice one wait, one
// barrier, the next slice's copies (guarded: none past the last) and the
// slice's sums, A read 4 depths of a row at a time; two full steps carried
// through a loop, the last 8 after it. The constant init is folded into
// the sums (no fill kernel), and no branch guards the stores.
// CHECK-LABEL: func.func @radial
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256, {{.*}}) function(@tiled_matmul) workgroup({{.*}} : memref<2x128x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x32xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: scf.if
// CHECK-COUNT-2: nvgpu.device_async_copy {{.*}}, 4 : memref<?x40xf32> to memref<2x128x20xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvgpu.device_async_copy {{.*}}, 1 : memref<40x25xf32> to memref<2x16x32xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
// CHECK: vector.load {{.*}} : memref<2x128x20xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: arith.addf {{.*}} fastmath<contract>
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: scf.if
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.terminator
// CHECK-NOT: linalg
func.func @radial(%a: tensor<?x40xf32>, %b: tensor<40x25xf32>) -> tensor<?x25xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x40xf32>
  %e = tensor.empty(%n) : tensor<?x25xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x25xf32>) -> tensor<?x25xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x40xf32>, tensor<40x25xf32>)
      outs(%init : tensor<?x25xf32>) -> tensor<?x25xf32>
  return %y : tensor<?x25xf32>
}

// A depth that is no whole number of groups (42) is staged transposed
// ([k][row], rows padded to 132 words), a word a copy, and read 4 rows of a
// depth at a time; B's 64 columns are whole groups in whole column blocks:
// 4 columns a copy.
// CHECK-LABEL: func.func @odd_depth
// CHECK: gpu.launch {{.*}} function(@tiled_matmul) workgroup({{.*}} : memref<2x16x132xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-8: nvgpu.device_async_copy {{.*}}, 1 : memref<?x42xf32> to memref<2x16x132xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}}, 4 : memref<42x64xf32> to memref<2x16x64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.device_async_copy {{.*}} : memref<42x64xf32>
// CHECK: nvvm.cp.async.commit.group
// CHECK: vector.load {{.*}} : memref<2x16x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
func.func @odd_depth(%a: tensor<?x42xf32>, %b: tensor<42x64xf32>) -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x42xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%a, %b : tensor<?x42xf32>, tensor<42x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// An init that is not a constant fill is read: each sum starts from it.
// CHECK-LABEL: func.func @accumulate
// CHECK: gpu.launch {{.*}} function(@tiled_matmul)
// CHECK: memref.load %{{.*}} : memref<?x128xf32>
func.func @accumulate(%a: tensor<?x64xf32>, %b: tensor<64x128xf32>,
                      %c: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x128xf32>)
      outs(%c : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// An SO(2) linear, two focus streams of 32 channels at lmax 3: the m = 0
// product (128 x 128, one column tile) and the m = -1, +1 one (192 x 192,
// two column tiles of 96), each a launch over (edge tiles, column tiles,
// streams), read in place: A (a stream's 32 channels of a row are whole
// groups) and B (the weights, whole column blocks) 4 words a copy.
// CHECK-LABEL: func.func @so2
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c2{{.*}}) threads({{.*}}) in ({{.*}} = %c256, {{.*}}) function(@so2_linear_m0) workgroup({{.*}} : memref<2x128x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x128xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-2: nvgpu.device_async_copy {{.*}}, 4 : memref<?x10x64xf32> to memref<2x128x20xf32
// CHECK-COUNT-2: nvgpu.device_async_copy {{.*}}, 4 : memref<2x128x128xf32> to memref<2x16x128xf32
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}} = %c2{{.*}}, {{.*}} = %c2{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) function(@so2_linear_m1) workgroup({{.*}} : memref<2x128x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x96xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-2: nvgpu.device_async_copy {{.*}}, 4 : memref<?x10x64xf32> to memref<2x128x20xf32
// CHECK: nvgpu.device_async_copy {{.*}}, 4 : memref<2x192x192xf32> to memref<2x16x96xf32
// CHECK-NOT: sezm.so2_linear
func.func @so2(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
               %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> tensor<?x10x64xf32> {
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

// With an addend (a residual add folded in by sezm-fuse-accumulate), each
// product's sums per thread (8 x 8 for m = 0, 8 x 6 for m = +-1) start
// from the addend's elements, read before the depth loop.
// CHECK-LABEL: func.func @so2_plus
// CHECK: %[[ACC:.*]] = bufferization.to_buffer %arg4
// CHECK: gpu.launch {{.*}} function(@so2_linear_m0)
// CHECK-COUNT-64: memref.load %[[ACC]]
// CHECK-NOT: memref.load %[[ACC]]
// CHECK: scf.for
// CHECK: gpu.launch {{.*}} function(@so2_linear_m1)
// CHECK-COUNT-48: memref.load %[[ACC]]
// CHECK-NOT: memref.load %[[ACC]]
// CHECK: scf.for
func.func @so2_plus(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                    %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
                    %x: tensor<?x10x64xf32>) -> tensor<?x10x64xf32> {
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %x lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>, tensor<?x10x64xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

// A degree linear: one product per degree over the 2l+1 rows of degree l of
// every node, w[l] as B, all four (lmax 3) in one launch, a batch per
// degree over the rows of the largest (7 N): the blocks past their
// degree's rows do nothing. Its transpose (the input gradient) first
// assembles the weights transposed, once per call; its 32 columns take 8
// threads across. The rows are few (one per atom and degree order), so the
// tiles are 64 rows deep (4 x 4 and 2 x 4 sums per thread): blocks for
// every multiprocessor.
// CHECK-LABEL: func.func @degree
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %c7{{.*}} : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}} = %c4{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) function(@degree_linear) workgroup({{.*}} : memref<2x64x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.if
// CHECK: gpu.barrier
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func @degree_transposed
// CHECK: gpu.launch {{.*}} function(@degree_linear_weights)
// CHECK: gpu.launch {{.*}} function(@degree_linear) workgroup({{.*}} : memref<2x64x20xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2x16x32xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.launch
// CHECK-NOT: sezm.degree_linear
func.func @degree(%x: tensor<?x16x32xf32>, %w: tensor<4x32x64xf32>)
    -> tensor<?x16x64xf32> {
  %y = sezm.degree_linear %x weight %w lmax = 3
      : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  return %y : tensor<?x16x64xf32>
}
func.func @degree_transposed(%g: tensor<?x16x64xf32>,
                             %w: tensor<4x32x64xf32>) -> tensor<?x16x32xf32> {
  %y = sezm.degree_linear %g weight %w lmax = 3 transposed
      : (tensor<?x16x64xf32>, tensor<4x32x64xf32>) -> tensor<?x16x32xf32>
  return %y : tensor<?x16x32xf32>
}
