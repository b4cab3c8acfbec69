// The fused backward stages each edge's inputs: while a warp works on one
// edge, the next one's 10 gradient rows (one 8-byte cp.async per row for
// the lane's two channels) and its kept Wigner-D entries and kernel
// coefficients (one 4-byte cp.async per lane and round of 32: two rounds of
// the 46 entries, one of the 25 coefficients) copy into its other
// workgroup slot. The edge loop takes two edges an iteration, one from
// each slot, so each of the 13 copies is issued three times: before the
// loop (the first edge) and for each of the two. Each edge waits for the
// slot it reads with one group still in flight. Global loads are left for
// the node's 16 rows; each edge reads its entries from workgroup memory 4
// at a time: the m = 0, +1 and -1 rows' entries each from a multiple of 4
// (4 + 4 + 4 pieces of the 46, so that lanes 16 to 31 read the m = -1 and
// +1 blocks swapped), 6 + 1 of the 25 coefficients. The node sums stay in
// registers: the only 8-byte workgroup loads are the gradient rows'. The
// spread's first halving takes the 15 pairs of m = -1 and +1 twins without
// selects: 108 selects an edge where every pair took two (138), with either
// form of the Wigner-D. The loop's positions and their edges are 32-bit
// integers: its five comparisons of positions are 32-bit, none 64-bit.
// Mixer-free, the radial rows are staged as rows too, where the slots fit
// in a block's 48 KB of static workgroup memory: beside a whole Wigner-D
// gradient's matrix they do not (49,728 bytes), and the warps load the
// edge's inputs themselves (no cp.async).
// RUN: rm -rf %t && sezm-compile %S/../../bench/so2_kernels.mlir --emit=ptx -o %t
// RUN: grep -c "cp.async.ca.shared.global .*, 8;" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=ROWS
// RUN: grep -c "cp.async.ca.shared.global .*, 4;" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=ENTRIES
// RUN: grep -c "cp.async.commit_group" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=THREE
// RUN: grep "cp.async.wait_group" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=WAIT
// RUN: grep -c "ld.global.v2.b32" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=NODE-ROWS
// RUN: grep -c "ld.shared.v4.b32" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=PIECES
// RUN: grep -c "ld.shared.v2.b32" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=GRAD-ROWS
// RUN: grep -c "selp.f32" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=SELECTS
// RUN: grep -c "selp.f32" %t/rotate_mix_grad_reduce.ptx | FileCheck %s --check-prefix=SELECTS
// RUN: not grep -E "setp\.(lt|ge)\.[su]64\s+%%p[0-9]+, %rd[0-9]+, %rd[0-9]+;" %t/rotate_mix_grad_reduce_3.ptx %t/rotate_mix_grad_reduce.ptx
// RUN: grep -c -E "setp\.(lt|ge)\.[su]32\s+%%p[0-9]+, %r[0-9]+, %r[0-9]+;" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=POSITIONS
// RUN: rm -rf %t.free && sezm-compile %s --emit=ptx -o %t.free
// RUN: grep -c "cp.async.ca.shared.global .*, 8;" %t.free/rotate_mix_grad_reduce_0.ptx | FileCheck %s --check-prefix=FREE-KEPT
// RUN: not grep -q "cp.async" %t.free/rotate_mix_grad_reduce.ptx

// ROWS: {{^}}30{{$}}
// ENTRIES: {{^}}9{{$}}
// THREE: {{^}}3{{$}}
// WAIT: cp.async.wait_group 1;
// NODE-ROWS: {{^}}16{{$}}
// PIECES: {{^}}36{{$}}
// GRAD-ROWS: {{^}}20{{$}}
// SELECTS: {{^}}216{{$}}
// POSITIONS: {{^}}5{{$}}
// 10 gradient rows and 4 radial rows, before the loop and for each of its
// two edges.
// FREE-KEPT: {{^}}42{{$}}

func.func @free_whole(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                      %src: tensor<?xi64>, %w: tensor<?x16x16xf32>,
                      %rad: tensor<?x4x64xf32>, %so: tensor<?xi64>,
                      %sr: tensor<?xi64>)
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>) {
  %gx, %gw, %gr = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w
      kernel %rad over(%so, %sr) lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x4x64xf32>, tensor<?xi64>,
         tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>)
  return %gx, %gw, %gr
      : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x4x64xf32>
}

func.func @free_kept(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                     %src: tensor<?xi64>, %w: tensor<?x46xf32>,
                     %rad: tensor<?x4x64xf32>, %so: tensor<?xi64>,
                     %sr: tensor<?xi64>)
    -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x4x64xf32>) {
  %gx, %gw, %gr = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w
      kernel %rad over(%so, %sr) lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x46xf32>, tensor<?x4x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x4x64xf32>)
  return %gx, %gw, %gr
      : tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x4x64xf32>
}
