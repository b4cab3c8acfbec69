// rotate_mix's warp loads an edge's 46 kept Wigner-D entries and 25 kernel
// coefficients together, one or two per lane, and hands them round by
// shuffles; each lane then loads only its two channels of the 16 source
// rows. So the PTX holds 71 index shuffles, three scalar loads for the
// entries beside the source index (two 32-bit halves) and the two channel
// bases, and 16 row loads. (Broadcast, it was 71 scalar loads per lane.)
// The fused backward stages its entries instead (staged-backward.mlir).
// RUN: rm -rf %t && sezm-compile %S/../../bench/so2_kernels.mlir --emit=ptx -o %t
// RUN: grep -c "shfl.sync.idx" %t/rotate_mix_0.ptx | FileCheck %s --check-prefix=SHUFFLES
// RUN: grep -c "ld.global.b32" %t/rotate_mix_0.ptx | FileCheck %s --check-prefix=SCALARS
// RUN: grep -c "ld.global.v2.b32" %t/rotate_mix_0.ptx | FileCheck %s --check-prefix=ROWS

// SHUFFLES: {{^}}71{{$}}
// SCALARS: {{^}}7{{$}}
// ROWS: {{^}}16{{$}}
