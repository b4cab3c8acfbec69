// Given the Wigner-D as the 46 entries a rotation keeps (E, 46), the SO(2)
// kernels read and write those entries alone.
// rotate_mix (rotate_mix_2, @rotate_mix_kept): the entries of an edge are
// consecutive, so each lane's place in a warp-shared round is one select
// (two rounds), where the whole (E, 16, 16) matrix (rotate_mix_0) needs a
// select per run of consecutive kept places in it (a row's entries), 11 in
// the two rounds.
// The fused backward (rotate_mix_grad_reduce_3, @fused_backward_kept) stores
// each Wigner-D gradient sum from the lane that holds it: no matrix in
// workgroup memory (four workgroup buffers: the node sums and the three
// staged inputs) and no 16-byte copy-out, where the whole-matrix kernel has
// both.
// RUN: rm -rf %t && sezm-compile %S/../../bench/so2_kernels.mlir --emit=ptx -o %t
// RUN: grep -c "selp.b64" %t/rotate_mix_2.ptx | FileCheck %s --check-prefix=KEPT-PLACES
// RUN: grep -c "selp.b64" %t/rotate_mix_0.ptx | FileCheck %s --check-prefix=WHOLE-PLACES
// RUN: not grep -q "st.global.v4" %t/rotate_mix_grad_reduce_3.ptx
// RUN: grep -c "^\s*.shared .align" %t/rotate_mix_grad_reduce_3.ptx | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "st.global.v4" %t/rotate_mix_grad_reduce.ptx | FileCheck %s --check-prefix=SOME
// RUN: grep -c "^\s*.shared .align" %t/rotate_mix_grad_reduce.ptx | FileCheck %s --check-prefix=FIVE

// KEPT-PLACES: {{^}}2{{$}}
// WHOLE-PLACES: {{^}}11{{$}}
// FOUR: {{^}}4{{$}}
// SOME: {{^}}{{[1-9][0-9]*}}{{$}}
// FIVE: {{^}}5{{$}}
