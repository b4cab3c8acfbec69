// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy | FileCheck %s --check-prefix=CONFIG
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels --canonicalize | FileCheck %s

// A gate whose lanes can hold the columns of gw they use (DPA4-Mini's 32
// channels at lmax 2: 64 words a lane) runs on resident warps: 4 blocks a
// multiprocessor for the registers, at most 2112 blocks, gw loaded once
// before a loop over the edges a grid apart. The loop is a software
// pipeline: each edge's rows are loaded one trip ahead (the first before
// the loop), the next edge's before this one's logits' shuffles, and the
// last edge's again past the end, so every load is in bounds.
// CONFIG-LABEL: func.func @resident
// CONFIG: sezm.gate {{.*}}kernel = "gate_resident", blocks_per_sm = 4>
// Its backward's l = 0 row, a product 64 deep and 32 wide per edge,
// streams (as the matmuls over edges under 16 FLOP a byte do): 128-row
// blocks of 4 x 4 sums at 4 blocks a multiprocessor.
// CONFIG-LABEL: func.func @resident_grad
// CONFIG: sezm.gate_grad {{.*}}kernel = "gate_grad", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]>
// CONFIG-LABEL: func.func @per_edge
// CONFIG: sezm.gate {{.*}}kernel = "gate", blocks_per_sm = 16>

// CHECK-LABEL: func.func @resident
// CHECK: %[[BLOCKS:.*]] = arith.minui %{{.*}}, %c2112
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[BLOCKS]], {{.*}}) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c4, {{.*}}) function(@gate_resident)
// CHECK-COUNT-64: tensor.extract %arg1[%c0,
// CHECK: %[[STRIDE:.*]] = arith.muli %[[BLOCKS]], %c4
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1
// CHECK: %[[FIRST:.*]] = arith.minui %{{.*}}, %[[LAST]]
// CHECK-COUNT-7: tensor.extract %arg0[%[[FIRST]], %c{{[0-6]}}, %{{.*}}]
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %[[STRIDE]] iter_args(%[[ROW0:[^ ]*]] =
// CHECK-NOT: tensor.extract %arg1
// CHECK: %[[AHEAD:.*]] = arith.addi %[[E]], %[[STRIDE]]
// CHECK: %[[NEXT:.*]] = arith.minui %[[AHEAD]], %[[LAST]]
// CHECK-COUNT-7: tensor.extract %arg0[%[[NEXT]], %c{{[0-6]}}, %{{.*}}]
// CHECK-NEXT: gpu.shuffle idx %[[ROW0]], %c0_i32
// CHECK-COUNT-31: gpu.shuffle
// CHECK-COUNT-7: memref.store {{.*}}[%[[E]],
// CHECK: scf.yield
// CHECK: nvvm.minctasm = 4
func.func @resident(%z: tensor<?x7x32xf32>, %gw: tensor<1x32x64xf32>)
    -> tensor<?x7x32xf32> {
  %y = sezm.gate %z weight %gw lmax = 2 focus = 1
      : (tensor<?x7x32xf32>, tensor<1x32x64xf32>) -> tensor<?x7x32xf32>
  return %y : tensor<?x7x32xf32>
}

// -----

// Its backward's warp kernel too: each edge's l = 0 row and its 6 gated
// rows' gradients and values loaded a trip ahead; the l = 0 row's gradient
// stays a GEMM.
// CHECK-LABEL: func.func @resident_grad
// CHECK: gpu.launch {{.*}} function(@gate_grad)
// CHECK-COUNT-64: tensor.extract %arg2[%c0,
// CHECK: scf.for %[[E:.*]] = {{.*}} iter_args(
// CHECK: %[[NEXT:.*]] = arith.minui
// CHECK-COUNT-13: tensor.extract %arg{{[01]}}[%[[NEXT]], %c{{[0-6]}}, %{{.*}}]
// CHECK-NEXT: gpu.shuffle
// CHECK: nvvm.minctasm = 4
// CHECK: function(@gate_grad_zero_row)
func.func @resident_grad(%g: tensor<?x7x32xf32>, %z: tensor<?x7x32xf32>,
                         %gw: tensor<1x32x64xf32>) -> tensor<?x7x32xf32> {
  %gz, %ggw = sezm.gate_grad %g, %z weight %gw lmax = 2 focus = 1
      : (tensor<?x7x32xf32>, tensor<?x7x32xf32>, tensor<1x32x64xf32>)
      -> (tensor<?x7x32xf32>, tensor<1x32x64xf32>)
  return %gz : tensor<?x7x32xf32>
}

// -----

// Where the lanes would hold more (two streams of 32 channels at lmax 3:
// 192 words a lane), a warp per edge loads each weight as it adds it.
// CHECK-LABEL: func.func @per_edge
// CHECK: gpu.launch {{.*}} function(@gate)
// CHECK-NOT: scf.for
// CHECK: scf.if
// CHECK: nvvm.minctasm = 16
func.func @per_edge(%z: tensor<?x10x64xf32>, %gw: tensor<2x32x96xf32>)
    -> tensor<?x10x64xf32> {
  %y = sezm.gate %z weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  return %y : tensor<?x10x64xf32>
}

// -----

// A deeper l = 0 row (64 channels at lmax 3: 192 deep, 64 wide, the default
// DPA4's) does not stream: 8 rows of sums a thread at 2 blocks.
// CONFIG-LABEL: func.func @deep_grad
// CONFIG: sezm.gate_grad {{.*}}kernel = "gate_grad", blocks_per_sm = 2, workgroup_tile = [128, 64, 16], thread_tile = [8, 4]>
// CHECK-LABEL: func.func @deep_grad
// CHECK: function(@gate_grad_zero_row)
func.func @deep_grad(%g: tensor<?x10x64xf32>, %z: tensor<?x10x64xf32>,
                     %gw: tensor<1x64x192xf32>) -> tensor<?x10x64xf32> {
  %gz, %ggw = sezm.gate_grad %g, %z weight %gw lmax = 3 focus = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<1x64x192xf32>)
      -> (tensor<?x10x64xf32>, tensor<1x64x192xf32>)
  return %gz : tensor<?x10x64xf32>
}
